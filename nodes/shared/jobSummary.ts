/**
 * Tolerant normalisation of the JobStatus objects the Job Execution Service returns.
 *
 * The spec leaves units and optionality open, so every reader here accepts extra fields, nulls,
 * numeric strings and both 13-digit millisecond and 10-digit second timestamps. Nothing throws.
 */

import { isActiveStatus, isTerminalStatus, toEpochMs } from './jobVocabulary';

export { ACTIVE_STATUSES, TERMINAL_STATUSES, isActiveStatus, isTerminalStatus, toEpochMs } from './jobVocabulary';

export interface SimplifiedJob {
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
	[key: string]: unknown;
}

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

// `runtimeFormatted` is `<seconds> seconds` once finished and empty while running.
const RUNTIME_RE = /^([+-]?\d+(?:\.\d+)?)(?:[ \t]*(?:seconds?|secs?|s))?$/i;

function runtimeFromFormatted(value: unknown): number | null {
	if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : null;
	if (typeof value !== 'string') return null;
	const m = RUNTIME_RE.exec(value.trim());
	if (!m) return null;
	const n = Number(m[1]);
	return Number.isFinite(n) && n >= 0 ? n : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Compact summary of a JobStatus for the node's "Simplify" option. Missing or malformed fields
 * become null; never throws.
 */
export function simplifyJob(job: Record<string, unknown>): SimplifiedJob {
	const j: Record<string, unknown> = isRecord(job) ? job : {};
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

// A status is one word; anything else (an HTML error page, a sentence) is not a status.
const STATUS_WORD_RE = /^[A-Za-z_][\w-]{0,63}$/;
const KEY_VALUE_RE = /^["']?executionStatus["']?\s*[:=]\s*(.*)$/s;
const MAX_DEPTH = 4;

const QUOTES = new Set(['"', "'", '`']);

/** Trims whitespace and quote characters from both ends (matched or not: `"RUNNING` still reads). */
function stripQuotes(value: string): string {
	let start = 0;
	let end = value.length;
	while (start < end && (QUOTES.has(value[start]) || value[start].trim() === '')) start++;
	while (end > start && (QUOTES.has(value[end - 1]) || value[end - 1].trim() === '')) end--;
	return value.slice(start, end);
}

function extract(body: unknown, depth: number): string | null {
	if (depth > MAX_DEPTH || body === null || body === undefined) return null;

	if (typeof body === 'string') {
		const trimmed = body.trim();
		if (trimmed === '') return null;
		const first = trimmed[0];
		if (first === '{' || first === '[' || first === '"') {
			try {
				return extract(JSON.parse(trimmed) as unknown, depth + 1);
			} catch {
				// Not JSON after all: fall through to the plain-text reading.
			}
		}
		const kv = KEY_VALUE_RE.exec(trimmed);
		const candidate = stripQuotes(kv ? kv[1] : trimmed);
		return STATUS_WORD_RE.test(candidate) ? candidate : null;
	}

	if (body instanceof Uint8Array) {
		return extract(new TextDecoder().decode(body), depth + 1);
	}

	if (Array.isArray(body)) {
		// Only an unambiguous single value counts.
		return body.length === 1 ? extract(body[0], depth + 1) : null;
	}

	if (typeof body === 'object') {
		const record = body as Record<string, unknown>;
		if ('executionStatus' in record) return extract(record.executionStatus, depth + 1);
		// Some HTTP helpers hand back `{ body, headers, statusCode }` (returnFullResponse).
		if ('body' in record && 'statusCode' in record) return extract(record.body, depth + 1);
		return null;
	}

	return null;
}

/**
 * The `?filter=executionStatus` answer in any form: a bare value (`RUNNING`, with whitespace or
 * quotes), a JSON string, an object with `executionStatus` (or a full JobStatus), or text holding
 * JSON of those. Returned as the server sent it (case kept), trimmed and unquoted; null otherwise.
 */
export function extractExecutionStatus(body: unknown): string | null {
	try {
		return extract(body, 0);
	} catch {
		// Getters or proxies on exotic bodies may throw; a status read must not.
		return null;
	}
}
