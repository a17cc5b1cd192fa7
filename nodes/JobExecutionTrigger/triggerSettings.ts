/** The trigger's settings, checked: a wrong value would silently watch nothing, so it stops the poll instead. */
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { describeGiven, isKnownZone, JOB_STATUSES } from '../shared/jobVocabulary';
import { nodeVersion } from '../shared/nodeVersion';
import { VERSION_2_1 } from '../shared/versionDisplay';
import type { EventOutput } from './eventOutput';
import { filterValue } from './filterPickers';
import type { TrackerOptions } from './jobStatusTracker';

/** Individual reads of tracked jobs that fell off both capped lists, per poll; the rest wait for the next poll. */
export const DEFAULT_MAX_INDIVIDUAL_READS = 25;

const STATUSES: readonly string[] = JOB_STATUSES;

/** What to watch, with which filters, from when. */
export function trackerOptions(context: IPollFunctions): TrackerOptions {
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
		flowName: text(filterValue(filters.flowName), 'Flow Name'),
		runProfileName: text(filterValue(filters.runProfileName), 'Run Profile'),
		startFrom: context.getNodeParameter('startFrom', 'now') === 'existing' ? 'existing' : 'now',
	};
}

/** 0 or a non-number would stop reading jobs that fell off the capped lists, and they would never fire. */
export function readMaxReads(context: IPollFunctions, options: IDataObject): number {
	const raw = options.maxIndividualReads ?? DEFAULT_MAX_INDIVIDUAL_READS;
	if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > 500) {
		throw badSetting(context, `Max Individual Reads per Poll must be a whole number from 1 to 500, got ${describeGiven(raw, { values: true })}`);
	}
	return raw;
}

export function readOnGap(context: IPollFunctions, options: IDataObject): 'logOnly' | 'emitItem' {
	const raw = options.onPossibleGap ?? 'logOnly';
	if (raw !== 'logOnly' && raw !== 'emitItem') throw badSetting(context, 'On Possible Gap must be "logOnly" or "emitItem"');
	return raw;
}

/** How events become items: version 1's shape, or version 2's (Simplify on by default); 2.1's times in the workflow's zone. */
export function outputOf(context: IPollFunctions, options: IDataObject): EventOutput {
	const version = nodeVersion(context);
	const simplify = version >= 2 ? context.getNodeParameter('simplify', true) : false;
	if (typeof simplify !== 'boolean') throw badSetting(context, `Simplify must be true or false, got ${describeGiven(simplify)}`);
	const timeZone = version >= VERSION_2_1 ? context.getTimezone() : undefined;
	if (timeZone !== undefined && !isKnownZone(timeZone)) {
		context.logger.warn(`Job Execution Trigger: the workflow's time zone "${timeZone}" is not one this n8n knows; its items show times in UTC (+00:00)`);
	}
	return { version, parseLog: options.parseLog === true, simplify, ...(timeZone === undefined ? {} : { timeZone }) };
}

function badSetting(context: IPollFunctions, message: string): NodeOperationError {
	return new NodeOperationError(context.getNode(), message, { description: 'Fix the trigger setting; the trigger stores nothing until then.' });
}
