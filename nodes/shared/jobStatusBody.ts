/**
 * The `?filter=executionStatus` answer read in any form the service may send it (Get's Status Only). Tolerant and
 * bounded: never throws, nesting read at most MAX_DEPTH deep.
 */

import { isPlainObject } from './jobVocabulary';

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

	if (isPlainObject(body)) {
		if ('executionStatus' in body) return extract(body.executionStatus, depth + 1);
		// Some HTTP helpers hand back `{ body, headers, statusCode }` (returnFullResponse).
		if ('body' in body && 'statusCode' in body) return extract(body.body, depth + 1);
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
