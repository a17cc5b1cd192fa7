/**
 * The Simplify option's summary of a JobStatus the Job Execution Service returns.
 *
 * The spec leaves units and optionality open, so every reader here accepts extra fields, nulls,
 * numeric strings and both 13-digit millisecond and 10-digit second timestamps. Nothing throws.
 */

import { isActiveStatus, isoInZone, isPlainObject, isTerminalStatus, normalizeStatus, parseRuntimeSeconds, statusOutcome, stepProgress, toEpochMs } from './jobVocabulary';
import { readEntryLine } from './logParser';
import { cutMarker } from './transport/answer';
import type { JobOutcome } from './jobVocabulary';

export type SimplifiedJob = {
	id: string | null;
	jobName: string | null;
	flowName: string | null;
	runProfileName: string | null;
	executionStatus: string | null;
	currentStep: string | null;
	startTime: string | null;
	endTime: string | null;
	runtimeSeconds: number | null;
	finished: boolean;
};

// toEpochMs only returns values in a valid Date range, so toISOString cannot throw.
function toIso(ms: number | null): string | null {
	return ms === null ? null : new Date(ms).toISOString();
}

/** A non-empty text value; numbers become text (ids are sometimes numeric), everything else null. */
function text(value: unknown): string | null {
	if (typeof value === 'string') {
		const t = value.trim();
		return t === '' ? null : t;
	}
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return null;
}

function firstText(...values: unknown[]): string | null {
	for (const v of values) {
		const t = text(v);
		if (t !== null) return t;
	}
	return null;
}

/** `runtimeFormatted` is `<seconds> seconds` once finished and empty while running; a negative runtime is none. */
function runtimeFromFormatted(value: unknown): number | null {
	const n = typeof value === 'number' ? value : typeof value === 'string' ? parseRuntimeSeconds(value) : null;
	return n !== null && Number.isFinite(n) && n >= 0 ? n : null;
}

/**
 * Compact summary of a JobStatus for the node's "Simplify" option. Missing or malformed fields
 * become null; never throws.
 */
export function simplifyJob(job: Record<string, unknown>): SimplifiedJob {
	const j: Record<string, unknown> = isPlainObject(job) ? job : {};
	const executionStatus = text(j.executionStatus);
	const startMs = toEpochMs(j.startTime);
	const endMs = toEpochMs(j.endTime);

	let runtimeSeconds = runtimeFromFormatted(j.runtimeFormatted);
	if (runtimeSeconds === null && startMs !== null && endMs !== null && endMs >= startMs) {
		runtimeSeconds = (endMs - startMs) / 1000;
	}

	// A known status decides; without one, an end time means the job is over.
	let finished: boolean;
	if (isTerminalStatus(executionStatus)) finished = true;
	else if (isActiveStatus(executionStatus)) finished = false;
	else finished = endMs !== null;

	return {
		id: firstText(j.id, j.jobId),
		jobName: firstText(j.jobName, j.runProfile),
		flowName: text(j.flowName),
		runProfileName: text(j.runProfileName),
		executionStatus,
		currentStep: firstText(j.currentStepDescription, j.currentStepId),
		startTime: toIso(startMs),
		endTime: toIso(endMs),
		runtimeSeconds,
		finished,
	};
}

/** Version 2's simplified job: ten fields at most, flat, the ones users branch on first. */
export type JobSummary = {
	jobId: string | null;
	executionStatus: string | null;
	/** How the job ended, in the vocabulary's words (the trigger's `outcome`); null until it ends. */
	outcome: JobOutcome | null;
	flowName: string | null;
	runProfileName: string | null;
	startTime: string | null;
	endTime: string | null;
	runtimeSeconds: number | null;
	stepsCompleted: number | null;
	stepsTotal: number | null;
};

/** How a summary is written: version 2 in UTC; version 2.1 in the workflow's time zone, with the failure reason. */
export interface SummaryOptions {
	/** Times in this zone with their offset (2.1); UTC (`…Z`) without it (version 2). */
	timeZone?: string;
	/** Adds `failureReason` (2.1). */
	failureReason?: boolean;
}

/**
 * Version 2.1's summary, still ten fields (n8n's UX guidelines: Simplify returns at most ten): why the job failed (null
 * unless it ended in ERROR or CANCELLED) comes right after how it ended, and the run profile (an input the workflow
 * already holds; the raw job keeps it) gives it its place.
 */
export type JobSummaryWithReason = Omit<JobSummary, 'runProfileName'> & { failureReason: string | null };

/**
 * Version 2's Simplify (action node and trigger): a pure function of the job as the service sent it. Times are ISO
 * text, the runtime and the progress numbers; missing or malformed fields are null. Never throws.
 */
export function summarizeJob(job: Record<string, unknown>, options: SummaryOptions = {}): JobSummary | JobSummaryWithReason {
	const j: Record<string, unknown> = isPlainObject(job) ? job : {};
	const old = simplifyJob(j);
	const status = old.executionStatus === null ? null : old.executionStatus.toUpperCase();
	const progress = stepProgress(j.currentStepDescription);
	const zone = options.timeZone;
	const time = (value: unknown, iso: string | null) => (zone === undefined || iso === null ? iso : isoInZone(toEpochMs(value) as number, zone));
	// A job that failed or was cancelled ended in its current step: that step is not completed ("Step 2 (2)" → 1 of 2).
	const ended = status === 'ERROR' || status === 'CANCELLED';
	const completed = progress === null ? null : ended && progress.failedAt !== null ? Math.min(progress.completed, progress.failedAt - 1) : progress.completed;
	const summary: JobSummary = {
		jobId: old.id,
		executionStatus: status,
		outcome: isTerminalStatus(status) ? statusOutcome(status) : null,
		flowName: old.flowName,
		runProfileName: old.runProfileName,
		startTime: time(j.startTime, old.startTime),
		endTime: time(j.endTime, old.endTime),
		runtimeSeconds: old.runtimeSeconds,
		stepsCompleted: completed,
		stepsTotal: progress?.total ?? null,
	};
	if (!options.failureReason) return summary;
	const { jobId, executionStatus, outcome, flowName, startTime, endTime, runtimeSeconds, stepsCompleted, stepsTotal } = summary;
	return { jobId, executionStatus, outcome, failureReason: jobFailureReason(j), flowName, startTime, endTime, runtimeSeconds, stepsCompleted, stepsTotal };
}

/** The reason in a message or an item: this many characters at most, then the cut is said. */
export const MAX_REASON_CHARS = 600;
/** Lines of the log's end that are searched for error lines, and how many of them are kept. */
const LOG_TAIL_CHARS = 64 * 1024;
const MAX_LOG_REASON_LINES = 3;
// An entry of level ERROR/FATAL/SEVERE, or the reference grammar's "Step <n> failed: / cancelled:" (docs/log-format.md).
const ERROR_LINE_RE = /^\d{4}-\d{2}-\d{2}[ T][\d:.]{5,15}[ \t]+\[[^\]\n]{0,80}\][ \t]+(?:(?:ERROR|FATAL|SEVERE)[ \t]|[A-Z]{1,12}[ \t]+Step[ \t]+\d{1,9}[ \t]+(?:failed|cancelled):)/;

function cut(text: string, max: number): string {
	return text.length > max ? text.slice(0, max) + cutMarker(text.length - max) : text;
}

/** The service's `error`: text, or an object's message (a service may send `{ message, code }`). */
function serviceError(value: unknown): string | null {
	if (typeof value === 'string') return value.trim() === '' ? null : value.trim();
	if (isPlainObject(value)) {
		for (const key of ['message', 'detail', 'reason', 'description']) if (typeof value[key] === 'string' && (value[key] as string).trim() !== '') return (value[key] as string).trim();
	}
	return null;
}

/**
 * How a reason quotes the log's error lines: version 2 as written (time stamp, thread and level included); 2.1 only
 * their message, the step and why (`Step 2 failed: Node node_3 (Write inventory) failed: …`, docs/log-format.md).
 */
export type ReasonForm = 'logLines' | 'messages';

/** An error line's message, read with the log grammar; a line the grammar does not read is kept whole. */
function lineMessage(line: string): string {
	const entry = readEntryLine(line);
	const message = entry === null ? '' : entry.message.trim();
	return message === '' ? line : message;
}

/** The log's last error lines (the last MAX_LOG_REASON_LINES of them in its last LOG_TAIL_CHARS), oldest first. */
function logErrorLines(log: unknown, form: ReasonForm): string[] {
	if (typeof log !== 'string' || log === '') return [];
	const lines = log.slice(-LOG_TAIL_CHARS).split('\n');
	const found: string[] = [];
	for (let i = lines.length - 1; i >= 0 && found.length < MAX_LOG_REASON_LINES; i--) {
		const line = lines[i].replace(/\r$/, '');
		if (ERROR_LINE_RE.test(line)) found.unshift(cut(form === 'logLines' ? line.trim() : lineMessage(line.trim()), 300));
	}
	return found;
}

/**
 * Why a job failed or was cancelled, as the service tells it: its `error` field when set, else the log's last error
 * lines (as `form` says); then the step it ended in. Null for any other status, or when the service says nothing. Bounded; the strings
 * were redacted by the transport, and messages redact them once more.
 */
export function jobFailureReason(job: Record<string, unknown>, form: ReasonForm = 'messages'): string | null {
	const status = normalizeStatus(job.executionStatus);
	if (status !== 'ERROR' && status !== 'CANCELLED') return null;
	const told = serviceError(job.error);
	const parts = told !== null ? [cut(told, 400)] : logErrorLines(job.log, form);
	const step = typeof job.currentStepId === 'string' && job.currentStepId.trim() !== '' ? job.currentStepId.trim().slice(0, 80) : null;
	if (step !== null && !parts.some((part) => part.includes(step))) parts.push(`ended in ${step}`);
	return parts.length === 0 ? null : cut(parts.join(' | '), MAX_REASON_CHARS);
}
