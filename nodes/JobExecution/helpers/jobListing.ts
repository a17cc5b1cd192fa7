import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { JOB_STATUS_OPTIONS, jobFilterFields, jobFilterLocatorFields } from '../../shared/descriptions';
import { checkStatuses, describeGiven, describeType, isoInZone, isPlainObject, JOB_STATUSES, readGivenTimeIn, readTimestamp } from '../../shared/jobVocabulary';
import type { GivenTimeProblem, JobFilter } from '../../shared/jobVocabulary';
import { fromVersion2, fromVersion21, version1Only, version2Only } from '../../shared/versionDisplay';
import { hintOnce } from './hints';
import { badParameter, checkText } from './itemParameters';

/** Get Many's Filters (per version) and version 2's Sort: which listed jobs it returns, in which order. */
const statusFilter: INodeProperties = {
	displayName: 'Status',
	name: 'executionStatus',
	type: 'multiOptions',
	default: [],
	options: JOB_STATUS_OPTIONS,
	description: 'Only jobs in one of these statuses',
};

const TIME_FILTERS = [
	{ name: 'startedAfter', displayName: 'Started After', field: 'startTime', after: true },
	{ name: 'startedBefore', displayName: 'Started Before', field: 'startTime', after: false },
	{ name: 'endedAfter', displayName: 'Ended After', field: 'endTime', after: true },
	{ name: 'endedBefore', displayName: 'Ended Before', field: 'endTime', after: false },
] as const;

const timeFilterFields: INodeProperties[] = TIME_FILTERS.map(({ name, displayName, after }) => ({
	displayName,
	name,
	type: 'dateTime',
	default: '',
	description: `Only jobs that ${name.startsWith('started') ? 'started' : 'ended'} ${after ? 'at or after' : 'before'} this time, in the workflow's time zone unless it has its own (a job with no such time is left out)`,
}));

const filtersCollection = (options: INodeProperties[]): INodeProperties => ({ displayName: 'Filters', name: 'filters', type: 'collection', placeholder: 'Add Filter', default: {}, options });

export const listFilterFields: INodeProperties[] = [
	...version1Only([filtersCollection([...jobFilterFields, statusFilter])]),
	...fromVersion2([filtersCollection([...jobFilterLocatorFields, statusFilter, ...timeFilterFields])]),
];

const sortRuleFields: INodeProperties[] = [
	{
		displayName: 'By',
		name: 'field',
		type: 'options',
		default: 'startTime',
		options: [
			{ name: 'Start Time', value: 'startTime' },
			{ name: 'End Time', value: 'endTime', description: 'Jobs still running count as the latest' },
		],
	},
	{
		displayName: 'Direction',
		name: 'direction',
		type: 'options',
		default: 'descending',
		options: [
			{ name: 'Newest First', value: 'descending' },
			{ name: 'Oldest First', value: 'ascending' },
		],
	},
];

const SORT_DESCRIPTION = 'Newest first (by start time) unless set: the service does not promise an order';

/**
 * Version 2's Sort adds By and Direction one at a time (a collection); 2.1 adds the rule as one row, both fields
 * together, as the Airtable node's Sort does (a fixedCollection, packages/nodes-base/nodes/Airtable/v2/actions/record/
 * search.operation.ts). One rule only: the two times are the only keys.
 */
export const sortFields: INodeProperties[] = [
	...version2Only([{ displayName: 'Sort', name: 'sort', type: 'collection', placeholder: 'Add Sort Rule', default: {}, description: SORT_DESCRIPTION, options: sortRuleFields }]),
	...fromVersion21([
		{
			displayName: 'Sort',
			name: 'sort',
			type: 'fixedCollection',
			placeholder: 'Add Sort Rule',
			default: {},
			description: SORT_DESCRIPTION,
			options: [{ displayName: 'Rule', name: 'property', values: sortRuleFields }],
		},
	]),
];

/** A filter's text: a plain value, or a resource locator's (version 2 picks names from a list). */
function locatorText(value: unknown): unknown {
	return isPlainObject(value) && 'value' in value ? value.value : value;
}

export interface ListSelection extends JobFilter {
	times: Array<{ field: 'startTime' | 'endTime'; after: boolean; ms: number }>;
	sort?: { field: 'startTime' | 'endTime'; descending: boolean };
}

/** A time filter's value: text (with or without a zone), epoch seconds or ms, or a Luxon DateTime (an expression's `$now`). */
function timeValue(context: IExecuteFunctions, itemIndex: number, label: string, raw: unknown): number | null {
	if (raw === undefined || raw === null || raw === '') return null;
	const given = isPlainObject(raw) && typeof raw.toISO === 'function' ? (raw.toISO as () => unknown)() : raw;
	const zone = context.getTimezone();
	const read = readGivenTimeIn(given, zone);
	if ('ms' in read) return read.ms;
	const [message, description] = timeProblemWords(read, `${label} filter`, describeGiven(given, { values: true }), zone);
	throw badParameter(context, itemIndex, message, description);
}

/** What a refused time filter says: the filter, what was given, and what to write instead (its offset, mostly). */
function timeProblemWords(read: GivenTimeProblem, filter: string, got: string, zone: string): [string, string] {
	const offsetIn = (ms: number) => isoInZone(ms, zone).slice(23);
	switch (read.problem) {
		case 'impossible':
			return [`${filter} is not a real date and time, got ${got}`, 'No calendar has that day or time (a 30 February, an hour 24): Luxon, n8n\'s date library, calls it invalid.'];
		case 'ambiguous': {
			const [first, second] = read.instants;
			return [
				`${filter} happens twice in the workflow's time zone (${zone}), got ${got}: add its offset`,
				`The clocks go back then: ${isoInZone(first, zone)} is the first time, ${isoInZone(second, zone)} the second. Write the one you mean, with its offset (${offsetIn(first)} or ${offsetIn(second)}).`,
			];
		}
		case 'skipped':
			return [
				`${filter} never happens in the workflow's time zone (${zone}), got ${got}: add its offset`,
				'The clocks go forward then and skip that time. Write the time with the offset you mean (…Z, …+01:00), or a time outside the skipped hour.',
			];
		case 'unknownZone':
			return [
				`${filter} has no offset and the workflow's time zone "${zone}" is unknown, got ${got}: add its offset`,
				'Set a time zone in the workflow\'s settings (Settings → Timezone), or write the time with its offset (…Z, …+01:00).',
			];
		default:
			return [
				`${filter} must be a date and time, got ${got}`,
				`A date and time without a zone is read in the workflow's time zone (${zone}); a number is epoch seconds (10 digits) or milliseconds (13 digits).`,
			];
	}
}

export function readListSelection(context: IExecuteFunctions, itemIndex: number, version: number): ListSelection {
	const raw = (context.getNodeParameter('filters', itemIndex, {}) as IDataObject) ?? {};
	const { statuses, unknown } = checkStatuses(raw.executionStatus ?? []);
	if (statuses === undefined) {
		throw badParameter(context, itemIndex, `Status filter must be among ${JOB_STATUSES.join(', ')}, got ${describeGiven(unknown)}`);
	}
	const text = (value: unknown) => (version < 2 ? value : locatorText(value));
	const selection: ListSelection = {
		flowName: checkText(context, itemIndex, 'Flow Name filter', text(raw.flowName)),
		runProfileName: checkText(context, itemIndex, 'Run Profile filter', text(raw.runProfileName)),
		statuses,
		times: [],
	};
	if (version < 2) return selection;
	for (const { name, displayName, field, after } of TIME_FILTERS) {
		const ms = timeValue(context, itemIndex, displayName, raw[name]);
		if (ms !== null) selection.times.push({ field, after, ms });
	}
	const saved = (context.getNodeParameter('sort', itemIndex, {}) as IDataObject) ?? {};
	// 2.1's one row ({ property: { field, direction } }), or version 2's collection ({ field, direction }).
	const sort = isPlainObject(saved) && isPlainObject(saved.property) ? saved.property : saved;
	const field = sort.field ?? 'startTime';
	const direction = sort.direction ?? 'descending';
	if ((field !== 'startTime' && field !== 'endTime') || (direction !== 'descending' && direction !== 'ascending')) {
		throw badParameter(context, itemIndex, `Sort must be by startTime or endTime, descending or ascending, got ${isPlainObject(sort) ? 'other values' : describeType(sort)}`);
	}
	selection.sort = { field, descending: direction === 'descending' };
	return selection;
}

/** The jobs the time filters keep: a job without the filtered time (not started, not ended) is left out. */
export function timeMatcher(times: ListSelection['times']): (job: IDataObject) => boolean {
	return (job) =>
		times.every(({ field, after, ms }) => {
			const at = readTimestamp(job[field]);
			return at !== null && (after ? at >= ms : at < ms);
		});
}

/**
 * Jobs in the chosen order whatever order the service lists them in. A job without the sorting time (queued, or
 * still running when sorting by end time) counts as the latest; equal times keep the service's order.
 */
export function sortJobs(jobs: IDataObject[], sort: NonNullable<ListSelection['sort']>): IDataObject[] {
	const at = (job: IDataObject) => readTimestamp(job[sort.field]) ?? Number.POSITIVE_INFINITY;
	const sign = sort.descending ? -1 : 1;
	return jobs
		.map((job, order) => ({ job, order, time: at(job) }))
		.sort((a, b) => (a.time === b.time ? 0 : a.time < b.time ? -sign : sign) || a.order - b.order)
		.map(({ job }) => job);
}

/** The spec: a list holds at most 100 jobs (the node reads more, up to MAX_JOBS_PER_LIST, from one that sends more). */
const SERVICE_LIST_CAP = 100;

/** Version 2's hints: a list at the service's cap (older jobs not listed), and filters that matched none. */
export function hintListing(context: IExecuteFunctions, listed: number, kept: number, filtered: boolean): void {
	if (listed >= SERVICE_LIST_CAP) {
		hintOnce(context, {
			type: 'warning',
			location: 'outputPane',
			message: `The service listed ${listed} jobs, the most it lists at once: older jobs are not listed, so they are not among these. Narrow Jobs to Active or History to see more of each.`,
		});
	}
	if (filtered && listed > 0 && kept === 0) {
		hintOnce(context, {
			type: 'info',
			location: 'outputPane',
			message: `None of the ${listed} listed jobs matched the filters. Names must match exactly: pick them from the list, and check the time filters.`,
		});
	}
}
