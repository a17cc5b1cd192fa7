/**
 * The Simplify option's summary of a JobStatus the Job Execution Service returns.
 *
 * The spec leaves units and optionality open, so every reader here accepts extra fields, nulls,
 * numeric strings and both 13-digit millisecond and 10-digit second timestamps. Nothing throws.
 */

import { isActiveStatus, isPlainObject, isTerminalStatus, parseRuntimeSeconds, toEpochMs } from './jobVocabulary';

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
