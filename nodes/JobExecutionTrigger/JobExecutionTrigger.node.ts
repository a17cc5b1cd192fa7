import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';

import {
	authenticationField,
	credentialsDescription,
	JOB_STATUS_OPTIONS,
	jobFilterFields,
	parseLogField,
} from '../shared/descriptions';
import { asJobArray, formatJob, isJobObject } from '../shared/jobOutput';
import { settle } from '../shared/settle';
import type { CredentialType, ResolvedConnection } from '../shared/transport';
import { apiRequest, getConnection, jobIdProblem, listCall, readJobCall, transportTiming } from '../shared/transport';
import { describeGiven, JOB_STATUSES, readableJobId, TERMINAL_STATUSES } from '../shared/jobVocabulary';
import {
	computeEvents,
	emissionFilter,
	jobsToReadIndividually,
	loadState,
	MAX_LISTED_JOBS,
	MAX_OPEN_JOBS,
	normalizeStatus,
	toMillis,
} from './jobStatusTracker';
import type { JobEvent, JobSnapshot, TrackerOptions } from './jobStatusTracker';

/** Individual reads of tracked jobs that fell off both capped lists, per poll; the rest wait for the next poll. */
const DEFAULT_MAX_INDIVIDUAL_READS = 25;
/** Stop individual reads when this share of the engine's poll budget is spent. */
const BUDGET_SHARE = 0.5;
/** n8n 1.x gives polls no budget: this bound keeps a poll well inside its minute there. */
const BUDGET_WITHOUT_ENGINE_MS = 60_000;

export class JobExecutionTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Job Execution Trigger',
		name: 'jobExecutionTrigger',
		icon: { light: 'file:../JobExecution/jobExecution.svg', dark: 'file:../JobExecution/jobExecution.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["triggerOn"] === "anyChange" ? "Any status change" : "Job status changes" }}',
		description: 'Run data-processing jobs on the Job Execution Service and start workflows when their status changes',
		defaults: { name: 'Job Execution Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: credentialsDescription,
		properties: [
			authenticationField,
			{
				displayName: 'Trigger On',
				name: 'triggerOn',
				type: 'options',
				default: 'statuses',
				options: [
					{ name: 'Jobs Reaching a Status', value: 'statuses', description: 'Fire when a job reaches one of the statuses below' },
					{ name: 'Any Status Change', value: 'anyChange', description: 'Fire on every new job and every status change' },
				],
			},
			{
				displayName: 'Statuses to Watch',
				name: 'statuses',
				type: 'multiOptions',
				default: [...TERMINAL_STATUSES],
				options: JOB_STATUS_OPTIONS,
				displayOptions: { show: { triggerOn: ['statuses'] } },
			},
			{
				displayName: 'Start From',
				name: 'startFrom',
				type: 'options',
				default: 'now',
				options: [
					{
						name: 'Changes From Now On',
						value: 'now',
						description: 'The first poll after activation only records the jobs that exist',
					},
					{
						name: 'Include Existing Jobs',
						value: 'existing',
						description: 'The first poll also fires for the jobs already listed (up to 100 active and 100 finished)',
					},
				],
			},
			{
				displayName: 'Filters',
				name: 'filters',
				type: 'collection',
				placeholder: 'Add Filter',
				default: {},
				options: jobFilterFields,
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					parseLogField,
					{
						displayName: 'Max Individual Reads per Poll',
						name: 'maxIndividualReads',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 500 },
						default: DEFAULT_MAX_INDIVIDUAL_READS,
						description:
							'Tracked jobs that no longer appear in the service’s lists (capped at 100) are read one by one, at most this many per poll',
					},
				],
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const connection = await getConnection.call(this, this.getNodeParameter('authentication') as CredentialType);
		const tracker = trackerOptions(this);
		const options = (this.getNodeParameter('options', {}) as IDataObject) ?? {};
		const maxReads = readMaxReads(this, options);
		// Whatever the service does, a poll ends by this deadline (every request of it included).
		const startedAt = Date.now();
		const deadline = startedAt + transportTiming.callMs;
		// Active first, history second: a job ending in between shows up twice (never zero times).
		const active = await listJobs(this, connection, 'active', { deadline, startedAt });
		const history = await listJobs(this, connection, 'history', { deadline, startedAt });

		if (this.getMode() === 'manual') return [testEvent(this, tracker, active.jobs, history.jobs, options)];

		const staticData = this.getWorkflowStaticData('node');
		const state = loadState(staticData.tracker);
		const budgetMs = typeof this.getPollBudgetMs === 'function' ? this.getPollBudgetMs() : BUDGET_WITHOUT_ENGINE_MS;
		const readsEnd = Math.min(deadline, Date.now() + budgetMs * BUDGET_SHARE);
		const ids = jobsToReadIndividually(state, active.jobs, history.jobs, maxReads);
		const { individual, notFound } = await readIndividually(this, connection, ids, readsEnd);

		const observation = { active: active.jobs, history: history.jobs, individual, notFound };
		const { events, state: next, stats } = computeEvents(state, observation, tracker);
		// Stored only now: a poll that failed above leaves the previous state, so nothing is lost or repeated.
		staticData.tracker = next as unknown as IDataObject;
		logSkipped(this, active.dropped + history.dropped + stats.unreadable, stats.overflow, stats.forgotten);
		if (events.length === 0) return null;
		return [events.map((event) => ({ json: eventJson(event, options) }))];
	}
}

/** Tracked jobs on neither list, one by one, until `readsEnd`; the rest wait for the next poll. */
async function readIndividually(
	context: IPollFunctions,
	connection: ResolvedConnection,
	ids: string[],
	readsEnd: number,
): Promise<{ individual: JobSnapshot[]; notFound: string[] }> {
	const individual: JobSnapshot[] = [];
	const notFound: string[] = [];
	for (const id of ids) {
		if (Date.now() >= readsEnd) break;
		// The tracker keeps only readable ids; a state stored before that rule may still hold others.
		if (jobIdProblem(id) !== null) continue;
		const read = await settle(apiRequest.call(context, connection, readJobCall(id), { deadline: readsEnd }));
		if (read.ok) {
			if (isJobObject(read.value.body)) individual.push(read.value.body as JobSnapshot);
			continue;
		}
		// The service answers 400 for an unknown job; the tracker forgets a job only after repeated misses. A read
		// that used up the poll's time counts as a miss too, so that job goes to the back of the rotation.
		const httpCode = (read.error as { httpCode?: string }).httpCode;
		if (httpCode !== '400' && httpCode !== 'DEADLINE') throw read.error;
		notFound.push(id);
		if (httpCode === 'DEADLINE') break;
	}
	return { individual, notFound };
}

/** One line per poll in n8n's log for what the trigger had to leave aside; nothing when all was readable. */
function logSkipped(context: IPollFunctions, unreadable: number, overflow: number, forgotten: number): void {
	const parts: string[] = [];
	if (unreadable > 0) parts.push(`skipped ${unreadable} listed job(s) without a usable ID`);
	if (overflow > 0) parts.push(`read only the first ${MAX_LISTED_JOBS} jobs of a list, leaving ${overflow}`);
	if (forgotten > 0) parts.push(`forgot ${forgotten} unfinished job(s) past the ${MAX_OPEN_JOBS} it tracks`);
	if (parts.length > 0) context.logger.warn(`Job Execution Trigger: unusual job lists: ${parts.join('; ')}`);
}

const STATUSES: readonly string[] = JOB_STATUSES;

/** The trigger's settings, checked: a wrong value would silently watch nothing, so it stops the poll instead. */
function trackerOptions(context: IPollFunctions): TrackerOptions {
	const filters = (context.getNodeParameter('filters', {}) as IDataObject) ?? {};
	const triggerOn = context.getNodeParameter('triggerOn', 'statuses');
	if (triggerOn !== 'statuses' && triggerOn !== 'anyChange') throw badSetting(context, 'Trigger On must be "statuses" or "anyChange"');
	let watch: TrackerOptions['watch'] = 'anyChange';
	if (triggerOn === 'statuses') {
		const statuses = context.getNodeParameter('statuses', []);
		if (!Array.isArray(statuses) || statuses.some((status) => !STATUSES.includes(String(status).toUpperCase()))) {
			throw badSetting(context, `Statuses to Watch must be a list among ${STATUSES.join(', ')}`);
		}
		watch = statuses.map((status) => String(status).toUpperCase());
	}
	const text = (value: unknown, label: string): string | undefined => {
		if (value === undefined || value === null) return undefined;
		if (typeof value !== 'string' && typeof value !== 'number') throw badSetting(context, `${label} filter must be text`);
		return String(value).trim() || undefined;
	};
	return {
		watch,
		flowName: text(filters.flowName, 'Flow Name'),
		runProfileName: text(filters.runProfileName, 'Run Profile'),
		startFrom: context.getNodeParameter('startFrom', 'now') === 'existing' ? 'existing' : 'now',
	};
}

/** 0 or a non-number would stop reading jobs that fell off the capped lists, and they would never fire. */
function readMaxReads(context: IPollFunctions, options: IDataObject): number {
	const raw = options.maxIndividualReads ?? DEFAULT_MAX_INDIVIDUAL_READS;
	if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > 500) {
		throw badSetting(context, `Max Individual Reads per Poll must be a whole number from 1 to 500, got ${describeGiven(raw, { values: true })}`);
	}
	return raw;
}

function badSetting(context: IPollFunctions, message: string): NodeOperationError {
	return new NodeOperationError(context.getNode(), message, { description: 'Fix the trigger setting; the trigger stores nothing until then.' });
}

async function listJobs(
	context: IPollFunctions,
	connection: ResolvedConnection,
	filter: 'active' | 'history',
	bound: { deadline: number; startedAt: number },
): Promise<{ jobs: JobSnapshot[]; dropped: number }> {
	const { body } = await apiRequest.call(context, connection, listCall(filter), bound);
	const jobs = asJobArray(body);
	if (!jobs) throw new NodeOperationError(context.getNode(), `The service answered the ${filter} job list with no list`);
	// Entries that are not objects are dropped by asJobArray; the tracker counts and skips the other unreadable ones.
	const listed = Array.isArray(body) ? body.length : jobs.length;
	return { jobs: jobs as JobSnapshot[], dropped: listed - jobs.length };
}

function eventJson(event: JobEvent, options: IDataObject): IDataObject {
	return {
		...formatJob(event.job as IDataObject, { parseLog: options.parseLog === true }),
		event: event.event,
		previousStatus: event.previousStatus,
		skippedStatuses: event.skippedStatuses,
	};
}

/** "Fetch test event": the most recent matching job, with the same filters, and no state written. */
function testEvent(
	context: IPollFunctions,
	tracker: TrackerOptions,
	active: JobSnapshot[],
	history: JobSnapshot[],
	options: IDataObject,
): INodeExecutionData[] {
	const watch = tracker.watch;
	const matches = emissionFilter(tracker);
	const matching = [...active, ...history].filter((job) => readableJobId(job) !== null && matches({ job }));
	const latest = matching.sort((a, b) => recency(b) - recency(a))[0];
	if (!latest) {
		const statuses = watch === 'anyChange' ? 'any status' : watch.join(', ') || 'no status';
		const filters = [tracker.flowName && `flow "${tracker.flowName}"`, tracker.runProfileName && `run profile "${tracker.runProfileName}"`]
			.filter(Boolean)
			.join(' and ');
		throw new NodeOperationError(context.getNode(), 'No job matches the trigger settings yet', {
			description: `Checked ${active.length} active and ${history.length} finished jobs: none is in ${statuses}${filters ? ` with ${filters}` : ''}. Submit a job, or widen Statuses to Watch and Filters.`,
		});
	}
	return [
		{
			json: eventJson(
				{ job: latest, event: 'newJob', status: normalizeStatus(latest.executionStatus), previousStatus: null, skippedStatuses: [] },
				options,
			),
		},
	];
}

function recency(job: JobSnapshot): number {
	return toMillis(job.endTime) ?? toMillis(job.startTime) ?? toMillis(job.currentStepStartTime) ?? 0;
}
