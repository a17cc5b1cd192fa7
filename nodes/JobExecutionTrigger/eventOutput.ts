/**
 * What one trigger event looks like as an item, per node version. Version 1's shape is frozen (saved workflows read
 * it); version 2 leads with `jobId` and `outcome` and, with Simplify on (its default), leaves the raw log out; 2.1
 * adds why a job failed (`failureReason`) and writes Simplify's times in the workflow's time zone.
 */
import type { IDataObject } from 'n8n-workflow';

import { formatJob } from '../shared/jobOutput';
import { jobFailureReason } from '../shared/jobSummary';
import { isoInZone, statusOutcome, toEpochMs } from '../shared/jobVocabulary';
import { VERSION_2_1 } from '../shared/versionDisplay';
import type { JobEvent } from './jobStatusTracker';

export interface EventOutput {
	/** The node's type version as saved in the workflow. */
	version: number;
	parseLog: boolean;
	/** Version 2 only: the summary instead of the JobStatus as the service sent it. */
	simplify: boolean;
	/** Version 2.1: the workflow's time zone, that Simplify's times are written in. */
	timeZone?: string;
}

/** The fields of the shared summary (jobSummary.ts) a simplified event carries, after the event's own. */
const SUMMARY_FIELDS = ['flowName', 'runProfileName', 'startTime', 'endTime', 'runtimeSeconds'] as const;
/** What Parse Log adds (the parsed log, or why it was kept raw): asked for, so kept in either form. */
const PARSED_LOG_FIELDS = ['logParsed', 'logNotParsed'] as const;

export function eventJson(event: JobEvent, output: EventOutput): IDataObject {
	if (output.version < 2) return versionOneJson(event, output.parseLog);
	if (output.version >= VERSION_2_1) return output.simplify ? simplifiedJson21(event, output) : rawJson21(event, output);
	return output.simplify ? simplifiedJson(event, output.parseLog) : rawJson(event, output.parseLog);
}

/** Version 1, unchanged: the JobStatus (Parse Log applied), then how the tracker saw the job. */
function versionOneJson(event: JobEvent, parseLog: boolean): IDataObject {
	return {
		...formatJob(event.job as IDataObject, { parseLog }),
		event: event.event,
		previousStatus: event.previousStatus,
		skippedStatuses: event.skippedStatuses,
	};
}

/** Version 2 without Simplify: `jobId` and `outcome` first, the JobStatus as sent, then the tracker's view. */
function rawJson(event: JobEvent, parseLog: boolean, timeZone?: string): IDataObject {
	const json: IDataObject = { jobId: event.job.id, outcome: statusOutcome(event.status), ...formatJob(event.job as IDataObject, { parseLog, timeZone }) };
	// A service's own fields of those names do not replace the trigger's (their places stay first).
	json.jobId = event.job.id;
	json.outcome = statusOutcome(event.status);
	return { ...json, event: event.event, previousStatus: event.previousStatus, skippedStatuses: event.skippedStatuses };
}

/**
 * Version 2 with Simplify: ten fields, the ones a workflow branches on first (n8n's guideline: at most ten, most
 * used on top). The status is the one the tracker compared, as `previousStatus` is.
 */
function simplifiedJson(event: JobEvent, parseLog: boolean, timeZone?: string): IDataObject {
	const summary = formatJob(event.job as IDataObject, { simplify: true, parseLog, timeZone });
	const json: IDataObject = {
		jobId: event.job.id,
		outcome: statusOutcome(event.status),
		executionStatus: event.status === '' ? null : event.status,
		previousStatus: event.previousStatus,
		skippedStatuses: event.skippedStatuses,
	};
	for (const field of SUMMARY_FIELDS) json[field] = summary[field] ?? null;
	for (const field of PARSED_LOG_FIELDS) if (field in summary) json[field] = summary[field];
	return json;
}

/** Why the job failed or was cancelled (the action node's 2.1 rule: the service's error, else the log's error messages, then the step); null otherwise. */
function failureReason(event: JobEvent): string | null {
	const status = event.status.toUpperCase();
	return status === 'ERROR' || status === 'CANCELLED' ? jobFailureReason({ ...event.job, executionStatus: status }) : null;
}

/** 2.1 without Simplify: version 2's raw item (Parse Log's times in the workflow's zone), with `failureReason` after `outcome` (a service's own field of that name does not replace it). */
function rawJson21(event: JobEvent, output: EventOutput): IDataObject {
	const { jobId, outcome, ...rest } = rawJson(event, output.parseLog, output.timeZone);
	const json: IDataObject = { jobId, outcome, failureReason: null, ...rest };
	json.failureReason = failureReason(event);
	return json;
}

/**
 * 2.1 with Simplify: still ten fields. `failureReason` follows the status, `skippedStatuses` (how the trigger saw the
 * job, not what happened to it) stays in the raw item, and the times are in the workflow's zone with their offset.
 */
function simplifiedJson21(event: JobEvent, output: EventOutput): IDataObject {
	const { jobId, outcome, executionStatus, ...rest } = simplifiedJson(event, output.parseLog, output.timeZone);
	const json: IDataObject = { jobId, outcome, executionStatus, failureReason: failureReason(event), ...rest };
	delete json.skippedStatuses;
	const zone = output.timeZone;
	for (const field of ['startTime', 'endTime'] as const) {
		const ms = toEpochMs(event.job[field]);
		json[field] = ms === null ? null : zone === undefined ? new Date(ms).toISOString() : isoInZone(ms, zone);
	}
	return json;
}
