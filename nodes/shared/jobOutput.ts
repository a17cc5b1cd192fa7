import type { IDataObject } from 'n8n-workflow';

import { isParsableLog, MAX_PARSED_LOG_CHARS, parseJobLog } from './logParser';
import { isoInZone, readableJobId, readGivenTime } from './jobVocabulary';
import type { ParsedJobLog } from './logParser';
import { simplifyJob, summarizeJob } from './jobSummary';
import type { SummaryOptions } from './jobSummary';
import { LIST_CUT_FIELD } from './transport/listReader';

/** Whether a listed job's log was cut by the list reader (a list too large to keep whole): its end is missing. */
function logCutInList(job: IDataObject): boolean {
	const fields = (job[LIST_CUT_FIELD] as { fields?: unknown } | undefined)?.fields;
	return Array.isArray(fields) && fields.includes('log');
}

export interface JobOutputOptions {
	parseLog?: boolean;
	simplify?: boolean;
	/** 2.1: the parsed log's entry times in this zone, with their offset. */
	timeZone?: string;
}

/** Version 1: a JobStatus as the user asked to see it: raw, with the parsed log beside the raw one, or summarised. */
export function formatJob(job: IDataObject, options: JobOutputOptions): IDataObject {
	const output: IDataObject = options.simplify ? simplifyJob(job) : { ...job };
	if (options.parseLog) addParsedLog(output, job, options.timeZone);
	return output;
}

// An entry's time as the grammar writes it (docs/log-format.md): UTC, no zone; its minute, its seconds, its fraction.
const ENTRY_TIME_RE = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}):(\d{2})(?:[.,](\d{1,9}))?$/;

/** One minute of UTC in the zone: its wall minute and offset (offsets change only on whole minutes), or null when no such minute exists. */
function minuteInZone(utcMinute: string, timeZone: string): { wall: string; offset: string } | null {
	const ms = readGivenTime(`${utcMinute}Z`, 'UTC');
	if (ms === null) return null;
	const iso = isoInZone(ms, timeZone);
	return { wall: iso.slice(0, 16), offset: iso.slice(23) };
}

/**
 * 2.1: the entries' times, which the log writes in UTC without a zone, as the same instants in the workflow's zone with
 * their offset (`2026-11-21T05:15:02.120-05:00`); a time the grammar does not read is kept as written. The zone is
 * looked up once per minute the log spans, not once per entry: linear in the entries, a lookup per minute.
 */
function entryTimesInZone(parsed: ParsedJobLog, timeZone: string): ParsedJobLog {
	const minutes = new Map<string, { wall: string; offset: string } | null>();
	for (const entry of parsed.entries) {
		const m = ENTRY_TIME_RE.exec(entry.time);
		if (m === null || Number(m[3]) > 59) continue;
		const key = `${m[1]}T${m[2]}`;
		let minute = minutes.get(key);
		if (minute === undefined) minutes.set(key, (minute = minuteInZone(key, timeZone)));
		if (minute !== null) entry.time = `${minute.wall}:${m[3]}.${((m[4] ?? '') + '000').slice(0, 3)}${minute.offset}`;
	}
	return parsed;
}

function addParsedLog(output: IDataObject, job: IDataObject, timeZone?: string): void {
	const log = job.log;
	if (logCutInList(job)) {
		// Its end (the results and the final status) is cut: a partial parse would look like a job that never finished.
		output.logParsed = null;
		output.logNotParsed = `The log was cut in the job list (see "${LIST_CUT_FIELD}"): read the job by its ID (Get) to parse its log whole.`;
	} else if (typeof log === 'string' && log.length > MAX_PARSED_LOG_CHARS) {
		// Kept raw: a bounded log bounds how long one item blocks n8n (the parser is linear, not free).
		output.logParsed = null;
		output.logNotParsed = `The log has ${log.length} characters, more than the ${MAX_PARSED_LOG_CHARS} the node parses: it is kept raw in "log".`;
	} else {
		const parsed = isParsableLog(log) ? parseJobLog(log) : null;
		output.logParsed = parsed !== null && timeZone !== undefined ? entryTimesInZone(parsed, timeZone) : parsed;
	}
}

/** Version 2's output choice: n8n's Simplify (or, as an AI tool, Output: Simplified / Raw / Selected fields). */
export type JobOutputMode = 'simplified' | 'raw' | 'selected';

export interface JobShape {
	mode: JobOutputMode;
	/** The JobStatus fields kept in 'selected' mode (jobId always is). */
	fields?: readonly string[];
	parseLog?: boolean;
	/** How Simplify writes times and whether it adds the failure reason (version 2.1). */
	summary?: SummaryOptions;
}

/** The JobStatus fields of the spec, in its order: what Selected Fields offers. */
export const JOB_STATUS_FIELDS = [
	'jobType', 'flowName', 'runProfileName', 'jobName', 'startTime', 'endTime', 'executionStatus', 'log', 'executionPerformanceReport',
	'error', 'currentStepId', 'currentStepDescription', 'currentStepStartTime', 'currentStepStatus', 'runProfile', 'runtimeFormatted',
	'startTimeFormatted', 'endTimeFormatted', 'currentStepElapsedTime',
] as const;

/**
 * Version 2: a job as an item, `jobId` first in every shape (the job's own id, else the one the item asked for).
 * Raw keeps every field the service sent; Parse Log adds `logParsed` where the log is kept.
 */
export function shapeJob(job: IDataObject, shape: JobShape, knownJobId?: string): IDataObject {
	const jobId = readableJobId(job) ?? knownJobId ?? null;
	let output: IDataObject;
	if (shape.mode === 'simplified') {
		output = { ...summarizeJob(job, shape.summary), jobId };
	} else if (shape.mode === 'selected') {
		output = { jobId };
		for (const field of shape.fields ?? []) if (Object.hasOwn(job, field) && field !== 'jobId') output[field] = job[field];
	} else {
		// jobId leads; a jobId the service sent is replaced by the one the item describes.
		output = { jobId, ...job };
		output.jobId = jobId;
	}
	if (shape.parseLog) addParsedLog(output, job, shape.summary?.timeZone);
	return output;
}
