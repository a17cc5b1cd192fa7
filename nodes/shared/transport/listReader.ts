import { sleep } from 'n8n-workflow';

import { redactionWork, runAll } from '../redaction';
import type { RedactionWork } from '../redaction';
import { cutMarker, isByteStream, MAX_ANSWER_DEPTH, MAX_ANSWER_VALUES } from './answer';
import type { StopNotice } from './deadlineClock';
import { Turns, WORK_PER_TURN } from './turns';

/**
 * Job lists are read as a stream, because a conforming one is big: 100 jobs whose logs reach 1 MiB each. A list of at
 * most LIST_KEPT_WHOLE_BYTES is kept whole and read as every other answer (answer.ts), so it comes out exactly as it
 * always did. A longer one goes through ListBuilder: a linear, incremental JSON reader that builds the list as its
 * chunks arrive, keeps every string up to MAX_LIST_FIELD_CHARS (longer ones are cut, and their job says so in its
 * LIST_CUT_FIELD), and streams through the rest without keeping it. Nesting and values are bounded as they are read,
 * so nothing past a bound is built; what is kept is bounded by MAX_LIST_KEPT_CHARS, what is streamed by
 * MAX_LIST_ANSWER_BYTES.
 */

const MiB = 1024 * 1024;

/** Decoded bytes a list may stream through (what is kept is far less): a compression bomb stops here. */
export const MAX_LIST_ANSWER_BYTES = 256 * MiB;
/** A list of at most these decoded bytes is kept whole: every field as the service sent it. */
export const LIST_KEPT_WHOLE_BYTES = 8 * MiB;
/** Characters of one string (a log, a key) kept from a list longer than LIST_KEPT_WHOLE_BYTES; the rest is cut. */
export const MAX_LIST_FIELD_CHARS = 64 * 1024;
/** Characters kept in all from a list longer than LIST_KEPT_WHOLE_BYTES (strings after their cut, keys, numbers). */
export const MAX_LIST_KEPT_CHARS = 32 * MiB;
/** Characters of one number or literal (`true`, `null`) in a list longer than LIST_KEPT_WHOLE_BYTES. */
export const MAX_LIST_TOKEN_CHARS = 4096;
/** The field a listed job gets when some of its fields were cut: which ones, and where to read them whole. */
export const LIST_CUT_FIELD = 'cutInList';

// Written once at load: a first toLocaleString (loading the locale's data) took 27 ms of CPU inside a list's last slice.
const LIST_CUT_NOTE =
	`The job list was larger than ${LIST_KEPT_WHOLE_BYTES / MiB} MiB, so the node cut each of this job's fields longer than ` +
	`${MAX_LIST_FIELD_CHARS.toLocaleString('en-US')} characters; read the job by its ID (Get) for them whole.`;

export function listCutNote(): string {
	return LIST_CUT_NOTE;
}

export type ListReading =
	| { text: string; body?: undefined; problem?: undefined }
	| { body: unknown; text?: undefined; problem?: undefined }
	| { problem: string; kind: 'oversized' | 'unreadable'; text?: undefined; body?: undefined };

type Problem = { problem: string; kind: 'oversized' | 'unreadable' };

const enum Expect {
	Value,
	ValueOrClose,
	Key,
	KeyOrClose,
	Colon,
	CommaOrClose,
	Done,
}

/** A string past MAX_LIST_FIELD_CHARS, and the steps of its search for keys (kept text and the reach past the cut). */
interface Cutting {
	open: OpenString;
	steps: Generator<number, string, void>;
}

interface Frame {
	value: Record<string, unknown> | unknown[];
	isArray: boolean;
	/** The key whose value comes next (objects). */
	key?: string;
}

interface OpenString {
	isKey: boolean;
	pieces: string[];
	rawKept: number;
	/** Decoded characters so far (what the whole string would have). */
	length: number;
	/** A backslash escape split between two chunks. */
	escape: string;
}

const BLANKS = /[ \t\n\r]*/y;
const TOKEN = /[-+.0-9A-Za-z_]*/y;
/** What ends a plain run inside a string: a quote, a backslash, or a control character (not allowed there). */
const STRING_STOP = /[^ -!#-[\]-\uffff]/g;
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;
const HEX4 = /^u[0-9a-fA-F]{4}$/;
/** The one-character escapes, each with its raw text (one string for all its uses). */
const SIMPLE_ESCAPES = new Map([...'"\\/bfnrt'].map((c) => [c, `\\${c}`]));
const LITERALS: Record<string, unknown> = { true: true, false: false, null: null };

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
	if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
	else target[key] = value;
}

/** The incremental reader: `write` pieces of text in order, then `finish`. Linear in the text, no recursion. */
export class ListBuilder {
	private readonly stack: Frame[] = [];
	private expect = Expect.Value;
	private root: unknown;
	private values = 0;
	private kept = 0;
	private open: OpenString | null = null;
	private token: string | null = null;
	private readonly cuts = new Map<Record<string, unknown>, string[]>();
	private readonly rawKeep: number;
	private readonly redaction: RedactionWork;
	/** A string cut and not yet searched for keys: `writing` runs its steps before reading on. */
	private cutting: Cutting | null = null;
	problem: Problem | null = null;

	/** `secrets`: every form of the connection's secrets, redacted from a string before it is cut (no half secret stays). */
	constructor(secrets: readonly string[]) {
		this.redaction = redactionWork(secrets);
		const longest = secrets.reduce((max, form) => Math.max(max, form.length), 0);
		// An escape takes up to 6 raw characters for one: one string is kept raw up to 6 times what is decoded of it
		// while it is read (only the open string is raw; what it decodes to is what stays), past the cut by an edge in
		// which a form of a key hidden in escapes (up to 6 characters for each of its own) is still whole.
		this.rawKeep = 6 * (MAX_LIST_FIELD_CHARS + 6 * longest);
	}

	/** Reads one piece of text at once; false once the answer is beyond a bound or not JSON (see `problem`). */
	write(text: string): boolean {
		return runAll(this.writing(text));
	}

	/**
	 * Reads one piece of text in steps, each yielding its work (characters read, or searched at a cut), so the caller
	 * gives the event loop its turns: a string cut here is redacted step by step, never at once (at a cut of an
	 * escape-dense log its search took 80 ms of CPU, past 100 with the rest of a slice). False as `write`.
	 */
	*writing(text: string): Generator<number, boolean, void> {
		let at = 0;
		while (at < text.length && this.problem === null) {
			const from = at;
			while (at < text.length && this.problem === null && this.cutting === null) {
				if (this.open !== null) at = this.stringPart(text, at);
				else if (this.token !== null) at = this.tokenPart(text, at);
				else at = this.structural(text, at);
			}
			yield Math.min(at, text.length) - from;
			if (this.cutting !== null) yield* this.endCut(this.cutting);
		}
		return this.problem === null;
	}

	/** The list read, or why not. */
	finish(): { body: unknown } | Problem {
		if (this.problem === null && this.token !== null) this.endToken();
		if (this.problem !== null) return this.problem;
		if (this.expect !== Expect.Done || this.open !== null) return { problem: 'is not valid JSON', kind: 'unreadable' };
		const note = listCutNote();
		for (const [entry, fields] of this.cuts) setOwn(entry, LIST_CUT_FIELD, { fields, note });
		return { body: this.root };
	}

	private fail(problem: string, kind: Problem['kind'] = 'unreadable'): number {
		if (this.problem === null) this.problem = { problem, kind };
		return Number.MAX_SAFE_INTEGER;
	}

	private structural(text: string, at: number): number {
		BLANKS.lastIndex = at;
		BLANKS.test(text);
		const next = BLANKS.lastIndex;
		if (next >= text.length) return next;
		const c = text[next];
		if (this.expect === Expect.Done) return /\s/.test(c) ? next + 1 : this.fail('is not valid JSON');
		if (c === '{' || c === '[') return this.openContainer(c === '[', next);
		if (c === '}' || c === ']') return this.closeContainer(c === ']', next);
		if (c === ',') return this.comma(next);
		if (c === ':') return this.colon(next);
		if (c === '"') return this.openString(next);
		if (this.expect !== Expect.Value && this.expect !== Expect.ValueOrClose) return this.fail('is not valid JSON');
		this.token = '';
		return next;
	}

	private count(): boolean {
		if (++this.values > MAX_ANSWER_VALUES) {
			this.fail(`holds more than ${MAX_ANSWER_VALUES.toLocaleString('en-US')} values`, 'oversized');
			return false;
		}
		return true;
	}

	private openContainer(isArray: boolean, at: number): number {
		if (this.expect !== Expect.Value && this.expect !== Expect.ValueOrClose) return this.fail('is not valid JSON');
		if (this.stack.length + 1 > MAX_ANSWER_DEPTH) return this.fail(`is nested deeper than ${MAX_ANSWER_DEPTH} levels`, 'oversized');
		if (!this.count()) return at;
		const value: Frame['value'] = isArray ? [] : {};
		this.place(value);
		this.stack.push({ value, isArray });
		this.expect = isArray ? Expect.ValueOrClose : Expect.KeyOrClose;
		return at + 1;
	}

	private closeContainer(isArray: boolean, at: number): number {
		const top = this.stack[this.stack.length - 1];
		const allowed = isArray ? Expect.ValueOrClose : Expect.KeyOrClose;
		if (top === undefined || top.isArray !== isArray || (this.expect !== allowed && this.expect !== Expect.CommaOrClose)) {
			return this.fail('is not valid JSON');
		}
		this.stack.pop();
		this.expect = this.stack.length === 0 ? Expect.Done : Expect.CommaOrClose;
		return at + 1;
	}

	private comma(at: number): number {
		const top = this.stack[this.stack.length - 1];
		if (top === undefined || this.expect !== Expect.CommaOrClose) return this.fail('is not valid JSON');
		if (!this.count()) return at;
		this.expect = top.isArray ? Expect.Value : Expect.Key;
		return at + 1;
	}

	private colon(at: number): number {
		if (this.expect !== Expect.Colon) return this.fail('is not valid JSON');
		if (!this.count()) return at;
		this.expect = Expect.Value;
		return at + 1;
	}

	/** A finished value goes into its container (or is the answer itself). */
	private place(value: unknown): void {
		const top = this.stack[this.stack.length - 1];
		if (top === undefined) this.root = value;
		else if (top.isArray) (top.value as unknown[]).push(value);
		else setOwn(top.value as Record<string, unknown>, top.key as string, value);
		this.expect = this.stack.length === 0 ? Expect.Done : Expect.CommaOrClose;
	}

	private openString(at: number): number {
		const isKey = this.expect === Expect.Key || this.expect === Expect.KeyOrClose;
		if (!isKey && this.expect !== Expect.Value && this.expect !== Expect.ValueOrClose) return this.fail('is not valid JSON');
		this.open = { isKey, pieces: [], rawKept: 0, length: 0, escape: '' };
		return at + 1;
	}

	/**
	 * A plain run of the open string, text[at, end) (no quote, backslash or control character): counted, and kept raw
	 * up to rawKeep. Past it nothing is sliced: a long string's every run would be a string made to be dropped.
	 */
	private keepRun(open: OpenString, text: string, at: number, end: number): void {
		open.length += end - at;
		const room = this.rawKeep - open.rawKept;
		if (room <= 0) return;
		const to = Math.min(end, at + room);
		open.pieces.push(text.slice(at, to));
		open.rawKept += to - at;
	}

	/** One escape, as sent (`\n`, `\u0041`): one character; kept whole or not at all, and nothing after it either, so the kept text always decodes. */
	private keepEscape(open: OpenString, raw: string): void {
		open.length += 1;
		const room = this.rawKeep - open.rawKept;
		if (room <= 0) return;
		if (raw.length > room) open.rawKept = this.rawKeep;
		else {
			open.pieces.push(raw);
			open.rawKept += raw.length;
		}
	}

	private stringPart(text: string, at: number): number {
		const open = this.open as OpenString;
		if (open.escape !== '') return this.escapePart(open, text, at);
		STRING_STOP.lastIndex = at;
		const stop = STRING_STOP.exec(text);
		const end = stop === null ? text.length : stop.index;
		if (end > at) this.keepRun(open, text, at, end);
		if (stop === null) return end;
		const c = text.charCodeAt(end);
		if (c === 34) {
			this.endString(open);
			return end + 1;
		}
		if (c < 0x20) return this.fail('is not valid JSON');
		// The usual escape, whole in this piece, is read at once: no text is built for it unless it is kept.
		const simple = SIMPLE_ESCAPES.get(text.charAt(end + 1));
		if (simple !== undefined) {
			this.keepEscape(open, simple);
			return end + 2;
		}
		open.escape = '\\';
		return end + 1;
	}

	/** A backslash escape, perhaps split between pieces: `\n` (2 characters) or `\u0041` (6). */
	private escapePart(open: OpenString, text: string, at: number): number {
		let pos = at;
		while (pos < text.length) {
			open.escape += text[pos++];
			if (open.escape.length === 2) {
				if (SIMPLE_ESCAPES.has(open.escape[1])) return this.endEscape(open, pos);
				if (open.escape[1] !== 'u') return this.fail('is not valid JSON');
			} else if (open.escape.length === 6) {
				return HEX4.test(open.escape.slice(1)) ? this.endEscape(open, pos) : this.fail('is not valid JSON');
			}
		}
		return pos;
	}

	private endEscape(open: OpenString, at: number): number {
		this.keepEscape(open, open.escape);
		open.escape = '';
		return at;
	}

	private endString(open: OpenString): void {
		this.open = null;
		const value = JSON.parse(`"${open.pieces.join('')}"`) as string;
		// Cut before redacting: only what is kept, and the reach of a key past the cut, is searched (redaction/search.ts).
		if (open.length > MAX_LIST_FIELD_CHARS) this.cutting = { open, steps: this.redaction.steps(value, MAX_LIST_FIELD_CHARS) };
		else this.settle(open, value);
	}

	/** A cut string's search, step by step, then its kept text and marker settled as any string. */
	private *endCut(cutting: Cutting): Generator<number, void, void> {
		const kept = yield* cutting.steps;
		this.cutting = null;
		const value = kept + cutMarker(cutting.open.length - MAX_LIST_FIELD_CHARS);
		this.noteCut(cutting.open.isKey ? value : undefined);
		this.settle(cutting.open, value);
	}

	/** A finished string placed as a value, or set as the key whose value comes next. */
	private settle(open: OpenString, value: string): void {
		if (!this.keepChars(value.length)) return;
		if (!open.isKey) {
			this.place(value);
			return;
		}
		(this.stack[this.stack.length - 1] as Frame).key = value;
		this.expect = Expect.Colon;
	}

	/** The listed job (an object directly in an array) holding the cut string, and its field that holds it. */
	private noteCut(cutKey: string | undefined): void {
		for (let depth = 1; depth < this.stack.length; depth++) {
			const frame = this.stack[depth];
			if (frame.isArray || !this.stack[depth - 1].isArray) continue;
			const field = depth === this.stack.length - 1 && cutKey !== undefined ? cutKey : (frame.key as string);
			const entry = frame.value as Record<string, unknown>;
			const fields = this.cuts.get(entry) ?? [];
			if (!fields.includes(field)) fields.push(field);
			this.cuts.set(entry, fields);
			return;
		}
	}

	private tokenPart(text: string, at: number): number {
		TOKEN.lastIndex = at;
		TOKEN.test(text);
		const end = TOKEN.lastIndex;
		this.token += text.slice(at, end);
		if ((this.token as string).length > MAX_LIST_TOKEN_CHARS) {
			return this.fail(`holds a number or literal longer than ${MAX_LIST_TOKEN_CHARS} characters`, 'oversized');
		}
		if (end < text.length) this.endToken();
		return end;
	}

	private endToken(): void {
		const token = this.token as string;
		this.token = null;
		if (!(token in LITERALS) && !NUMBER.test(token)) this.fail('is not valid JSON');
		// A number or literal is kept as 8 characters (a double's size), counted before it is placed.
		else if (this.keepChars(8)) this.place(token in LITERALS ? LITERALS[token] : Number(token));
	}

	/** Counts what is kept; false (and the answer refused) once it is more than MAX_LIST_KEPT_CHARS. */
	private keepChars(chars: number): boolean {
		this.kept += chars;
		if (this.kept <= MAX_LIST_KEPT_CHARS) return true;
		this.fail(`keeps more than ${MAX_LIST_KEPT_CHARS / MiB} MiB after its long fields are cut`, 'oversized');
		return false;
	}
}

function asBytes(chunk: unknown): Uint8Array {
	if (chunk instanceof Uint8Array) return chunk;
	return Buffer.from(typeof chunk === 'string' ? chunk : String(chunk), 'utf8');
}

/**
 * What the chunks of a list answer come to: the whole text while it stays within LIST_KEPT_WHOLE_BYTES; past it, a
 * JSON text goes on through a ListBuilder (fed what came so far, then each chunk), anything else is refused.
 */
class ListSink {
	private readonly decoder = new TextDecoder('utf-8');
	private parts: string[] = [];
	private bytes = 0;
	private builder: ListBuilder | null = null;
	/** The reading's work since the event loop's last turn. */
	private readonly turns = new Turns();
	problem: Problem | null = null;

	constructor(private readonly secrets: readonly string[]) {}

	/** False when reading should stop: past a bound, or not JSON. */
	async add(chunk: unknown): Promise<boolean> {
		const data = asBytes(chunk);
		this.bytes += data.byteLength;
		if (this.bytes > MAX_LIST_ANSWER_BYTES) return this.refuse({ problem: `is larger than ${MAX_LIST_ANSWER_BYTES / MiB} MiB`, kind: 'oversized' });
		const text = this.decoder.decode(data, { stream: true });
		if (this.builder !== null) return await this.feed(text);
		this.parts.push(text);
		if (this.bytes <= LIST_KEPT_WHOLE_BYTES) return true;
		const whole = this.parts.join('').trimStart();
		this.parts = [];
		if (!whole.startsWith('[') && !whole.startsWith('{')) {
			return this.refuse({ problem: `is larger than ${LIST_KEPT_WHOLE_BYTES / MiB} MiB and is not a JSON list`, kind: 'oversized' });
		}
		this.builder = new ListBuilder(this.secrets);
		return await this.feed(whole);
	}

	private refuse(problem: Problem): false {
		this.problem = problem;
		return false;
	}

	/**
	 * One chunk through the builder, in slices and the steps of their cuts, with a turn of the event loop where one is
	 * due (turns.ts): a slice is the work left before the next turn, so a turn comes at most a cut's step late.
	 */
	private async feed(text: string): Promise<boolean> {
		const builder = this.builder as ListBuilder;
		for (let at = 0, end = 0; at < text.length; at = end) {
			end = at + this.turns.room();
			const writing = builder.writing(text.slice(at, end));
			for (let step = writing.next(); step.done !== true; step = writing.next()) {
				this.turns.add(step.value);
				if (this.turns.due()) await sleep(0);
			}
			if (builder.problem !== null) return this.refuse(builder.problem);
		}
		return true;
	}

	async finish(): Promise<ListReading> {
		if (this.problem !== null) return this.problem;
		const tail = this.decoder.decode();
		if (this.builder === null) return { text: this.parts.join('') + tail };
		if (!(await this.feed(tail))) return this.problem ?? { problem: 'is not valid JSON', kind: 'unreadable' };
		return this.builder.finish();
	}
}

/** Reads chunks until the end, a bound, or `stop`; the stream is destroyed in every case. */
async function readStream(stream: AsyncIterable<unknown> & { destroy(error?: Error): unknown }, sink: ListSink, stop: StopNotice): Promise<void> {
	stop.listen(() => stream.destroy(new Error('ABORTED')));
	try {
		for await (const chunk of stream) if (!(await sink.add(chunk))) return;
	} finally {
		stop.listen(undefined);
		stream.destroy();
	}
}

/**
 * A list answer's body within the list bounds: `text` when it is small enough to be read as any answer, `body` when
 * it was built by the streaming reader (strings not yet redacted past the cut: cleanParsed follows), or a problem.
 * Read errors (a reset, corrupt compression, `stop`) are thrown.
 */
export async function readListAnswer(body: unknown, stop: StopNotice, secrets: readonly string[]): Promise<ListReading> {
	const sink = new ListSink(secrets);
	if (isByteStream(body)) {
		if (stop.stopped) {
			body.destroy();
			throw new Error('ABORTED');
		}
		await readStream(body, sink, stop);
	} else if (body !== undefined && body !== null) {
		// A body some host already read whole: the same bounds, fed in slices.
		const whole = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
		const bytes = typeof whole === 'string' ? Buffer.from(whole, 'utf8') : whole;
		for (let at = 0; at < bytes.byteLength; at += WORK_PER_TURN) {
			if (!(await sink.add(bytes.subarray(at, at + WORK_PER_TURN)))) break;
		}
	}
	return await sink.finish();
}
