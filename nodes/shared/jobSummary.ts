/**
 * The Simplify option's summary of a JobStatus the Job Execution Service returns.
 *
 * The spec leaves units and optionality open, so every reader here accepts extra fields, nulls,
 * numeric strings and both 13-digit millisecond and 10-digit second timestamps. Nothing throws.
 */

import { isActiveStatus, isPlainObject, isTerminalStatus, parseRuntimeSeconds, statusOutcome, stepProgress, toEpochMs } from './jobVocabulary';
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

/**
 * Version 2's Simplify (action node and trigger): a pure function of the job as the service sent it. Times are ISO
 * text, the runtime and the progress numbers; missing or malformed fields are null. Never throws.
 */
export function summarizeJob(job: Record<string, unknown>): JobSummary {
	const j: Record<string, unknown> = isPlainObject(job) ? job : {};
	const old = simplifyJob(j);
	const status = old.executionStatus === null ? null : old.executionStatus.toUpperCase();
	const progress = stepProgress(j.currentStepDescription);
	return {
		jobId: old.id,
		executionStatus: status,
		outcome: isTerminalStatus(status) ? statusOutcome(status) : null,
		flowName: old.flowName,
		runProfileName: old.runProfileName,
		startTime: old.startTime,
		endTime: old.endTime,
		runtimeSeconds: old.runtimeSeconds,
		stepsCompleted: progress?.completed ?? null,
		stepsTotal: progress?.total ?? null,
	};
}
