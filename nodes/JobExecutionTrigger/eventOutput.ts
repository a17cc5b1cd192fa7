/**
 * What one trigger event looks like as an item, per node version. Version 1's shape is frozen (saved workflows read
 * it); version 2 leads with `jobId` and `outcome` and, with Simplify on (its default), leaves the raw log out.
 */
import type { IDataObject } from 'n8n-workflow';

import { formatJob } from '../shared/jobOutput';
import { statusOutcome } from '../shared/jobVocabulary';
import type { JobEvent } from './jobStatusTracker';

export interface EventOutput {
	/** The node's type version as saved in the workflow. */
	version: number;
	parseLog: boolean;
	/** Version 2 only: the summary instead of the JobStatus as the service sent it. */
	simplify: boolean;
}

/** The fields of the shared summary (jobSummary.ts) a simplified event carries, after the event's own. */
const SUMMARY_FIELDS = ['flowName', 'runProfileName', 'startTime', 'endTime', 'runtimeSeconds'] as const;
/** What Parse Log adds (the parsed log, or why it was kept raw): asked for, so kept in either form. */
const PARSED_LOG_FIELDS = ['logParsed', 'logNotParsed'] as const;

export function eventJson(event: JobEvent, output: EventOutput): IDataObject {
	if (output.version < 2) return versionOneJson(event, output.parseLog);
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
function rawJson(event: JobEvent, parseLog: boolean): IDataObject {
	const json: IDataObject = { jobId: event.job.id, outcome: statusOutcome(event.status), ...formatJob(event.job as IDataObject, { parseLog }) };
	// A service's own fields of those names do not replace the trigger's (their places stay first).
	json.jobId = event.job.id;
	json.outcome = statusOutcome(event.status);
	return { ...json, event: event.event, previousStatus: event.previousStatus, skippedStatuses: event.skippedStatuses };
}

/**
 * Version 2 with Simplify: ten fields, the ones a workflow branches on first (n8n's guideline: at most ten, most
 * used on top). The status is the one the tracker compared, as `previousStatus` is.
 */
function simplifiedJson(event: JobEvent, parseLog: boolean): IDataObject {
	const summary = formatJob(event.job as IDataObject, { simplify: true, parseLog });
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
