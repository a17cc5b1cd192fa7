import { sleep } from 'n8n-workflow';

import { keepSentId, redactionWork, runAll } from '../redaction';
import type { RedactionWork } from '../redaction';
import type { StopNotice } from './deadlineClock';
import { Turns } from './turns';

/**
 * Everything a service sends is bounded before it is believed: bytes after decoding (read as a stream and dropped at
 * the cap, so a compression bomb is never inflated), then the shape of the JSON (nesting, number of values) before
 * JSON.parse builds it, then every string (keys too) redacted and cut. Each bound is an exported constant; the
 * figures keep one JSON.parse of a capped answer well under 100 ms (bench/figures/perItemOverhead.ts measures it),
 * and the checks after it yield to the event loop, so no answer blocks n8n for long.
 */

const MiB = 1024 * 1024;

/** Decoded bytes of one job's answer (a read, a status, a submit): a whole job with its log fits many times. */
export const MAX_JOB_ANSWER_BYTES = 4 * MiB;
/** Bytes of an error answer that are read for its message; the rest is dropped (the status says enough). */
export const MAX_ERROR_ANSWER_BYTES = 64 * 1024;
/**
 * Nesting of a JSON answer. A JobStatus is flat; an answer nested deeper is refused whole, before it is parsed
 * (refusing, rather than cutting the field, means a deep answer is never built in memory at all).
 */
export const MAX_ANSWER_DEPTH = 32;
/** JSON values in one answer (counted as `{ [ , :` outside strings): bounds what JSON.parse builds, whatever the bytes. */
export const MAX_ANSWER_VALUES = 100_000;
/**
 * Characters of one string (a value or a key) that goes into output or state. A longer one is cut, not refused:
 * the job's other fields stay usable, and the cut is said at the end of the text.
 */
export const MAX_STRING_CHARS = 2 * MiB;
/** Jobs taken from one list by Get Many, the list search and the trigger; the service promises at most 100. */
export const MAX_JOBS_PER_LIST = 500;

export function cutMarker(dropped: number): string {
	return ` … [cut by the node: ${dropped} more characters]`;
}

/** "4 MiB", "64 KiB": caps for messages. */
export function sizeInWords(bytes: number): string {
	return bytes >= MiB ? `${Math.round((bytes / MiB) * 10) / 10} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

interface ByteStream {
	[Symbol.asyncIterator](): AsyncIterator<unknown>;
	destroy(error?: Error): unknown;
}

/** A Node stream (what n8n's helper returns): read through its events, cheaper than its async iterator. */
interface EventByteStream extends ByteStream {
	on(event: string, listener: (value?: unknown) => void): unknown;
	removeListener(event: string, listener: (value?: unknown) => void): unknown;
}

export function isByteStream(value: unknown): value is ByteStream {
	return (
		typeof value === 'object' &&
		value !== null &&
		typeof (value as Partial<ByteStream>)[Symbol.asyncIterator] === 'function' &&
		typeof (value as Partial<ByteStream>).destroy === 'function'
	);
}

function hasEvents(stream: ByteStream): stream is EventByteStream {
	return typeof (stream as Partial<EventByteStream>).on === 'function' && typeof (stream as Partial<EventByteStream>).removeListener === 'function';
}

function asBytes(chunk: unknown): Uint8Array {
	if (chunk instanceof Uint8Array) return chunk;
	return Buffer.from(typeof chunk === 'string' ? chunk : String(chunk), 'utf8');
}

export type ReadOutcome = { text: string; tooLarge?: undefined } | { text?: undefined; tooLarge: true };

/** A byte-order mark at the start of a text, which a decoder drops (as TextDecoder does by default). */
const BOM = 0xfeff;

/**
 * Collects the chunks and decodes them once, at the end (a character split between two chunks is kept whole, and one
 * decode of the whole costs less than one per chunk); `add` returns false past the cap, before the chunk is kept.
 */
function textCollector(maxBytes: number): { add(chunk: unknown): boolean; text(): string } {
	const parts: Uint8Array[] = [];
	let bytes = 0;
	return {
		add(chunk) {
			const data = asBytes(chunk);
			bytes += data.byteLength;
			if (bytes > maxBytes) return false;
			parts.push(data);
			return true;
		},
		text() {
			return utf8Text(parts.length === 1 ? parts[0] : Buffer.concat(parts, bytes));
		},
	};
}

/** Bytes as text: UTF-8, a leading BOM dropped, what is not UTF-8 replaced as a standard decoder replaces it. */
function utf8Text(bytes: Uint8Array): string {
	const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
	return text.charCodeAt(0) === BOM ? text.slice(1) : text;
}

function prematureClose(): Error {
	return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

/** Reads an event stream to its end; the first of end, error, early close, cap or `stop` settles and detaches. */
function readEvents(stream: EventByteStream, maxBytes: number, stop: StopNotice): Promise<ReadOutcome> {
	const collector = textCollector(maxBytes);
	return new Promise<ReadOutcome>((resolve, reject) => {
		const data = (chunk?: unknown) => {
			if (!collector.add(chunk)) settleWith(() => resolve({ tooLarge: true }));
		};
		const end = () => settleWith(() => resolve({ text: collector.text() }));
		const error = (failure?: unknown) => settleWith(() => reject(failure instanceof Error ? failure : new Error(String(failure))));
		const close = () => settleWith(() => reject(prematureClose()));
		function settleWith(settle: () => void): void {
			stream.removeListener('data', data);
			stream.removeListener('end', end);
			stream.removeListener('error', error);
			stream.removeListener('close', close);
			stop.listen(undefined);
			// A late error of the dropped stream must not go unhandled.
			stream.on('error', ignore);
			stream.destroy();
			settle();
		}
		stop.listen(() => settleWith(() => reject(new Error('ABORTED'))));
		stream.on('data', data);
		stream.on('end', end);
		stream.on('error', error);
		stream.on('close', close);
	});
}

function ignore(): void {}

/** Any other async iterable of chunks. */
async function readIterator(stream: ByteStream, maxBytes: number, stop: StopNotice): Promise<ReadOutcome> {
	stop.listen(() => stream.destroy(new Error('ABORTED')));
	const collector = textCollector(maxBytes);
	try {
		for await (const chunk of stream) if (!collector.add(chunk)) return { tooLarge: true };
	} finally {
		stop.listen(undefined);
		stream.destroy();
	}
	return { text: collector.text() };
}

/**
 * The body as text, reading at most `maxBytes` decoded bytes: the stream is destroyed (and decompression stops) as
 * soon as one byte more arrives, or when `stop` aborts. Read errors (a reset, corrupt compression) are thrown.
 */
export async function readCapped(body: unknown, maxBytes: number, stop: StopNotice): Promise<ReadOutcome> {
	if (!isByteStream(body)) return readWhole(body, maxBytes);
	// A request that answered after its attempt was given up: drop the body unread.
	if (stop.stopped) {
		body.destroy();
		throw new Error('ABORTED');
	}
	return hasEvents(body) ? await readEvents(body, maxBytes, stop) : await readIterator(body, maxBytes, stop);
}

/** A body some host already read whole (a string, a Buffer, parsed JSON): the same cap, counted on its bytes. */
function readWhole(body: unknown, maxBytes: number): ReadOutcome {
	if (body === undefined || body === null) return { text: '' };
	const text = typeof body === 'string' ? body : body instanceof Uint8Array ? utf8Text(body) : JSON.stringify(body);
	return Buffer.byteLength(text, 'utf8') > maxBytes ? { tooLarge: true } : { text };
}

const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;
const QUOTE = 34;
const BACKSLASH = 92;

/** Index of the quote closing the string whose opening quote is at `open` (indexOf, then escapes counted), or -1. */
function stringEnd(text: string, open: number): number {
	for (let quote = text.indexOf('"', open + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
		let slashes = 0;
		for (let i = quote - 1; i > open && text.charCodeAt(i) === BACKSLASH; i--) slashes++;
		if (slashes % 2 === 0) return quote;
	}
	return -1;
}

/** How many times `char` occurs in the text, counted up to `over` (a count past it stops the search). */
function countUpTo(text: string, char: string, over: number): number {
	let count = 0;
	for (let at = text.indexOf(char); at !== -1 && count <= over; at = text.indexOf(char, at + 1)) count++;
	return count;
}

/**
 * Whether a text is within the shape bounds whatever it holds: each value counted is one character of it (`{ [ , :`),
 * so a text of at most MAX_ANSWER_VALUES characters holds no more values; and nesting cannot go deeper than the text
 * has `{` and `[` (those inside strings counted too). The usual answer, a flat JobStatus, is told by two native searches.
 */
function plainlyWithinShape(text: string): boolean {
	if (text.length > MAX_ANSWER_VALUES) return false;
	const braces = countUpTo(text, '{', MAX_ANSWER_DEPTH);
	return braces + countUpTo(text, '[', MAX_ANSWER_DEPTH - braces) <= MAX_ANSWER_DEPTH;
}

/**
 * Why a JSON text is beyond the bounds (too deep, too many values), or null. One pass, no recursion, jumping over
 * strings with indexOf: it runs before JSON.parse, so a 200,000-deep or million-value answer is never built.
 */
export function jsonShapeProblem(text: string): string | null {
	if (plainlyWithinShape(text)) return null;
	let depth = 0;
	let values = 0;
	// The regex engine skips what is between two structural characters (blanks, numbers, literals) natively.
	const structural = /["{}[\],:]/g;
	for (let found = structural.exec(text); found !== null; found = structural.exec(text)) {
		const c = text.charCodeAt(found.index);
		if (c === QUOTE) {
			const end = stringEnd(text, found.index);
			if (end === -1) return null; // Unclosed: JSON.parse refuses it.
			structural.lastIndex = end + 1;
		} else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
			if (++depth > MAX_ANSWER_DEPTH) return `is nested deeper than ${MAX_ANSWER_DEPTH} levels`;
			values++;
		} else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
		else values++;
		if (values > MAX_ANSWER_VALUES) return `holds more than ${MAX_ANSWER_VALUES.toLocaleString('en-US')} values`;
	}
	return null;
}

/** One string as it may go out, step by step: cut to MAX_STRING_CHARS first, then only what is kept redacted (see redactionWork), and the cut said. */
function* cleanSteps(text: string, work: RedactionWork): Generator<number, string, void> {
	const kept = yield* work.steps(text, MAX_STRING_CHARS);
	return text.length <= MAX_STRING_CHARS ? kept : kept + cutMarker(text.length - MAX_STRING_CHARS);
}

/** Sets an own property, even `__proto__` (as JSON.parse made it), without touching any prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
	Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

type Container = Record<string, unknown> | unknown[];

/** One string cleaned (see cleanSteps): at once when it is one slice long, else slice by slice; yields where a turn is due. */
function* cleanString(text: string, work: RedactionWork, pace: Turns): Generator<void, string, void> {
	if (!isLong(text, work)) return cleanShort(text, work, pace);
	const steps = cleanSteps(text, work);
	for (;;) {
		const next = steps.next();
		if (next.done === true) return next.value;
		pace.add(next.value);
		if (pace.due()) yield;
	}
}

/** A short string cleaned at once (no promise), its work counted. */
function cleanShort(text: string, work: RedactionWork, pace: Turns): string {
	const cleaned = work.now(text);
	pace.add(cleaned.work);
	return cleaned.text;
}

/** Sets a value cleaned, keeping an id as the service sent it. */
function putValue(record: Record<string, unknown>, key: string, sent: string, cleaned: string): void {
	if (cleaned === sent) return;
	setOwn(record, key, cleaned);
	keepSentId(record, key, sent);
}

function renameKey(record: Record<string, unknown>, key: string, cleanKey: string): void {
	if (cleanKey === key) return;
	const kept = record[key];
	delete record[key];
	setOwn(record, cleanKey, kept);
}

/** Whether a string is too long to clean at once: longer than a slice, or than what is kept of it. */
function isLong(text: string, work: RedactionWork): boolean {
	return text.length > Math.min(work.sliceChars, MAX_STRING_CHARS);
}

/** Whether an entry holds a string (value or key) too long to clean at once. */
function holdsLong(record: Record<string, unknown>, key: string, work: RedactionWork): boolean {
	const value = record[key];
	return isLong(key, work) || (typeof value === 'string' && isLong(value, work));
}

/**
 * Cleans the entries of a container from `at` on, in place (values and keys; a number writing a key becomes its
 * redacted text; containers inside go on the stack), until an entry holds a long string or the event loop is due a
 * turn; returns where it stopped. Synchronous: a hundred thousand short strings cost no promise each.
 */
function cleanEntries(container: Container, keys: string[], at: number, work: RedactionWork, pace: Turns, stack: Container[]): number {
	const record = container as Record<string, unknown>;
	const isList = Array.isArray(container);
	for (; at < keys.length; at++) {
		const key = keys[at];
		if (holdsLong(record, key, work)) return at;
		cleanValue(record, key, work, pace, stack);
		if (!isList) renameKey(record, key, cleanShort(key, work, pace));
		if (pace.owed()) return at + 1;
	}
	return at;
}

/** A value cleaned at once: a string, a number that writes a key (becomes its redacted text); a container is stacked. */
function cleanValue(record: Record<string, unknown>, key: string, work: RedactionWork, pace: Turns, stack: Container[]): void {
	const value = record[key];
	if (typeof value === 'string') putValue(record, key, value, cleanShort(value, work, pace));
	else if (typeof value === 'number') {
		const shown = work.number(value);
		if (shown !== undefined) setOwn(record, key, shown);
	} else if (typeof value === 'object' && value !== null) stack.push(value as Container);
}

/** An entry holding a long string (its value or its key), cleaned slice by slice (see cleanString). */
function* cleanLongEntry(container: Container, key: string, work: RedactionWork, pace: Turns, stack: Container[]): Generator<void, void, void> {
	const record = container as Record<string, unknown>;
	const value = record[key];
	if (typeof value === 'string') putValue(record, key, value, yield* cleanString(value, work, pace));
	else cleanValue(record, key, work, pace, stack);
	if (!Array.isArray(container)) renameKey(record, key, yield* cleanString(key, work, pace));
}

/**
 * Every string of a parsed answer (values and keys) cut and redacted, in place, with an explicit stack (depth is
 * already bounded, but nothing here recurses either); a number that writes a key is replaced by its redacted text.
 * The work is counted as it is done (characters searched, over every view built) and the steps yield where a turn is
 * due (turns.ts): cleanParsed gives the event loop a turn there, so no answer within the bounds holds n8n for long,
 * whatever its strings hold.
 */
function* cleaning(value: unknown, secrets: readonly string[]): Generator<void, unknown, void> {
	const work = redactionWork(secrets);
	const pace = new Turns();
	if (typeof value === 'string') return yield* cleanString(value, work, pace);
	if (typeof value === 'number') return work.number(value) ?? value;
	if (typeof value !== 'object' || value === null) return value;
	const stack: Container[] = [value as Container];
	while (stack.length > 0) {
		const container = stack.pop() as Container;
		const keys = Object.keys(container);
		for (let at = 0; at < keys.length; ) {
			at = cleanEntries(container, keys, at, work, pace, stack);
			if (at < keys.length && holdsLong(container as Record<string, unknown>, keys[at], work)) yield* cleanLongEntry(container, keys[at++], work, pace, stack);
			if (pace.due()) yield;
		}
	}
	return value;
}

/** The answer cleaned (see cleaning), with a turn of the event loop at each point where one is due. */
export async function cleanParsed(value: unknown, secrets: readonly string[]): Promise<unknown> {
	const steps = cleaning(value, secrets);
	for (;;) {
		const next = steps.next();
		if (next.done === true) return next.value;
		await sleep(0);
	}
}

/**
 * Characters of an answer cleaned at once, with no promise: its work (every view of every string, keys too) is at
 * most 16 units a character, one turn's WORK_PER_TURN (turns.ts), and a usual job answer's far less.
 */
export const CLEAN_AT_ONCE_CHARS = 16 * 1024;

/** The parse of an answer of at most CLEAN_AT_ONCE_CHARS characters cleaned as cleanParsed does, synchronously. */
export function cleanSmallParsed(value: unknown, secrets: readonly string[]): unknown {
	return runAll(cleaning(value, secrets));
}
