/**
 * The readings of the model (index.ts): unwrap (drop a lone line break), decode (one layer of escapes) and hex (a dump
 * read as its bytes). Each is a stage that reads a stretch of characters and writes another, each character written
 * with where it starts and ends in the text, so readings compose (a reading of a reading maps back to the text) and
 * run piece by piece: a stage keeps the few characters whose reading depends on what follows (an escape or a run of
 * line breaks cut by the end of a piece) for the next piece, so pieces read as the whole text would.
 */

/** Below this many characters, a copy goes one by one. */
const SHORT_COPY = 32;
/** The arrays' first size: they are made on the first write, since most stretches of a reader are never written. */
const FIRST_SIZE = 64;
const NO_CODES = new Uint16Array(0);
const NO_OFFSETS = new Int32Array(0);

/** Characters of a reading, each with where it starts and ends (exclusive) in the text. */
export class Chars {
	codes = NO_CODES;
	starts = NO_OFFSETS;
	ends = NO_OFFSETS;
	length = 0;
	/** The text these are the own characters of (no reading yet), from `offset` on; else undefined. */
	plain: string | undefined;
	offset = 0;
	/** The text's own characters whose arrays are not filled yet (see materialize). */
	lazy = false;

	reset(): void {
		this.length = 0;
		this.plain = undefined;
		this.lazy = false;
	}

	push(code: number, start: number, end: number): void {
		if (this.length === this.codes.length) this.grow();
		this.codes[this.length] = code;
		this.starts[this.length] = start;
		this.ends[this.length++] = end;
	}

	/** Appends characters [from, to) of another stretch. */
	append(other: Chars, from: number, to: number): void {
		while (this.length + (to - from) > this.codes.length) this.grow();
		if (to - from < SHORT_COPY) {
			// A few characters (between two escapes): copied one by one, cheaper than three views of the arrays.
			for (let at = from, into = this.length; at < to; at++, into++) {
				this.codes[into] = other.codes[at];
				this.starts[into] = other.starts[at];
				this.ends[into] = other.ends[at];
			}
		} else {
			this.codes.set(other.codes.subarray(from, to), this.length);
			this.starts.set(other.starts.subarray(from, to), this.length);
			this.ends.set(other.ends.subarray(from, to), this.length);
		}
		this.length += to - from;
	}

	/** The text's own characters [from, to), their arrays filled only when something reads them (materialize). */
	fill(text: string, from: number, to: number): void {
		this.reset();
		this.plain = text;
		this.offset = from;
		this.length = to - from;
		this.lazy = true;
	}

	/** The arrays filled, for the text's own characters (fill); other stretches have theirs. */
	materialize(): void {
		if (!this.lazy || this.plain === undefined) return;
		const { plain, offset, length } = this;
		while (length > this.codes.length) this.grow();
		for (let at = 0; at < length; at++) {
			this.codes[at] = plain.charCodeAt(offset + at);
			this.starts[at] = offset + at;
			this.ends[at] = offset + at + 1;
		}
		this.lazy = false;
	}

	private grow(): void {
		const size = Math.max(FIRST_SIZE, this.codes.length * 2);
		const codes = new Uint16Array(size);
		const starts = new Int32Array(size);
		const ends = new Int32Array(size);
		codes.set(this.codes);
		starts.set(this.starts);
		ends.set(this.ends);
		this.codes = codes;
		this.starts = starts;
		this.ends = ends;
	}
}

/** A reading, piece by piece: `read` returns its reading of what it was given so far (the last piece: `final`). */
export abstract class Stage {
	protected readonly out = new Chars();
	protected readonly carry = new Chars();
	private readonly joined = new Chars();

	/** Where the earliest character kept for the next piece starts in the text, or Infinity. */
	openFrom(): number {
		return this.carry.length > 0 ? this.carry.starts[0] : Infinity;
	}

	reset(): void {
		this.carry.reset();
	}

	read(input: Chars, final: boolean): Chars {
		input.materialize();
		let source = input;
		if (this.carry.length > 0) {
			this.joined.reset();
			this.joined.append(this.carry, 0, this.carry.length);
			this.joined.append(input, 0, input.length);
			source = this.joined;
		}
		this.out.reset();
		const kept = this.readPiece(source, final);
		this.carry.reset();
		if (kept < source.length) this.carry.append(source, kept, source.length);
		return this.out;
	}

	/** Writes the reading of `source` into `out`, up to where the rest must wait for more; returns that point. */
	protected abstract readPiece(source: Chars, final: boolean): number;
}

const CR = 13;
const LF = 10;

function isBreak(code: number): boolean {
	return code === CR || code === LF;
}

/**
 * Unwrap: a lone line break (LF, CR or CRLF) is dropped; a run of more (a blank line) is kept whole, so unwrapping
 * twice is unwrapping once. A dropped break leaves a gap between its neighbours' positions: a token boundary.
 */
export class Unwrap extends Stage {
	protected readPiece(source: Chars, final: boolean): number {
		const { codes, length } = source;
		let at = 0;
		while (at < length) {
			let plain = at;
			while (plain < length && !isBreak(codes[plain])) plain++;
			this.out.append(source, at, plain);
			if (plain === length) break;
			let end = plain;
			while (end < length && isBreak(codes[end])) end++;
			if (end === length && !final) return plain;
			const lone = end - plain === 1 || (end - plain === 2 && codes[plain] === CR && codes[plain + 1] === LF);
			if (!lone) this.out.append(source, plain, end);
			at = end;
		}
		return length;
	}
}

/** Longest escape, in characters (`&#x0041;`, `&#00065;`): a character reference holds up to 4 hex or 5 decimal digits. */
export const LONGEST_ESCAPE = 8;

const PERCENT = 37;
const AMPERSAND = 38;
const PLUS = 43;
const BACKSLASH = 92;
const SEMICOLON = 59;
const HASH = 35;
const SPACE = 32;

const HTML_NAMED: Record<string, number> = { amp: 38, lt: 60, gt: 62, quot: 34, apos: 39, nbsp: 0xa0 };
/** `\` and the character after it: JSON's and C's short escapes. */
const SHORT_ESCAPES: Record<number, number> = { 92: 92, 34: 34, 47: 47, 39: 39, 98: 8, 102: 12, 110: 10, 114: 13, 116: 9 };

/** The value of one hex digit, or -1. */
export function hexDigit(c: number): number {
	if (c >= 48 && c <= 57) return c - 48;
	const lower = c | 32;
	return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/** The number written by `digits` hex digits at `at`, or -1 (also past the end). */
function hexAt(codes: Uint16Array, length: number, at: number, digits: number): number {
	if (at + digits > length) return -1;
	let value = 0;
	for (let index = at; index < at + digits; index++) {
		const digit = hexDigit(codes[index]);
		if (digit < 0) return -1;
		value = value * 16 + digit;
	}
	return value;
}

function isAscii(code: number): boolean {
	return code >= 0 && code < 0x80;
}

/** One UTF-16 unit: what `\u0041`, `%u0041`, `\xe9` and a character reference write (a Basic password may be non-ASCII). */
function isUnit(code: number): boolean {
	return code >= 0 && code <= 0xffff;
}

/** The number of `&#65;` or `&#x41;` between `from` (after `#`) and `end` (the `;`), or -1: up to 4 hex or 5 decimal digits. */
function characterReference(codes: Uint16Array, from: number, end: number): number {
	const hex = (codes[from] | 32) === 120;
	const first = hex ? from + 1 : from;
	if (end === first || end - first > (hex ? 4 : 5)) return -1;
	if (hex) return hexAt(codes, end, first, end - first);
	let value = 0;
	for (let index = first; index < end; index++) {
		const digit = codes[index] - 48;
		if (digit < 0 || digit > 9) return -1;
		value = value * 10 + digit;
	}
	return value;
}

/** An escape read: the character it writes, and how many characters it takes (0: none here). */
interface Escape {
	code: number;
	length: number;
}

const NONE: Escape = { code: 0, length: 0 };

/** `&#65;`, `&#x41;`, `&amp;` at `at`. */
function htmlEscapeAt(codes: Uint16Array, length: number, at: number): Escape {
	let semicolon = -1;
	for (let index = at + 2; index <= Math.min(at + LONGEST_ESCAPE - 1, length - 1); index++) {
		if (codes[index] === SEMICOLON) {
			semicolon = index;
			break;
		}
	}
	if (semicolon === -1) return NONE;
	if (codes[at + 1] === HASH) {
		const code = characterReference(codes, at + 2, semicolon);
		return isUnit(code) ? { code, length: semicolon - at + 1 } : NONE;
	}
	const named = HTML_NAMED[String.fromCharCode(...codes.subarray(at + 1, semicolon)).toLowerCase()];
	return named === undefined ? NONE : { code: named, length: semicolon - at + 1 };
}

/** `%41`, `%u0041`; `\u0041`, `\x41`, `\n`, `\"`; HTML; `+` for a space (form encoding) when a key holds one. */
function escapeAt(codes: Uint16Array, length: number, at: number, plusIsSpace: boolean): Escape {
	const c = codes[at];
	const next = at + 1 < length ? codes[at + 1] : -1;
	if (c === PERCENT) {
		const unicode = next === 117 || next === 85 ? hexAt(codes, length, at + 2, 4) : -1;
		if (isUnit(unicode)) return { code: unicode, length: 6 };
		// A byte past ASCII is part of a UTF-8 sequence: the URL-encoded key is a form of its own (forms.ts).
		const byte = hexAt(codes, length, at + 1, 2);
		return isAscii(byte) ? { code: byte, length: 3 } : NONE;
	}
	if (c === BACKSLASH) {
		// `\u0041` and `\x41`, in either case (an echo may upper-case a whole text).
		const unicode = (next | 32) === 117;
		const code = unicode ? hexAt(codes, length, at + 2, 4) : (next | 32) === 120 ? hexAt(codes, length, at + 2, 2) : -1;
		if (isUnit(code)) return { code, length: unicode ? 6 : 4 };
		const short = SHORT_ESCAPES[next];
		return short === undefined ? NONE : { code: short, length: 2 };
	}
	if (c === AMPERSAND) return htmlEscapeAt(codes, length, at);
	return c === PLUS && plusIsSpace ? { code: SPACE, length: 1 } : NONE;
}

/** Whether a character may start an escape. */
export function startsEscape(code: number, plusIsSpace: boolean): boolean {
	return code === PERCENT || code === BACKSLASH || code === AMPERSAND || (plusIsSpace && code === PLUS);
}

/** Decode: one layer of escapes (URL, form, every-byte percent, JSON, C, HTML), each written as the character it stands for. */
export class Decode extends Stage {
	constructor(private readonly plusIsSpace: boolean) {
		super();
	}

	protected readPiece(source: Chars, final: boolean): number {
		const { codes, starts, ends, length } = source;
		const plusIsSpace = this.plusIsSpace;
		for (let at = 0; at < length; ) {
			let plain = at;
			while (plain < length && !startsEscape(codes[plain], plusIsSpace)) plain++;
			this.out.append(source, at, plain);
			at = plain;
			if (at === length) break;
			if (!final && at + LONGEST_ESCAPE > length) return at;
			const escape = escapeAt(codes, length, at, plusIsSpace);
			if (escape.length === 0) {
				this.out.push(codes[at], starts[at], ends[at]);
				at++;
			} else {
				this.out.push(escape.code, starts[at], ends[at + escape.length - 1]);
				at += escape.length;
			}
		}
		return length;
	}
}

/**
 * What a hex dump holds besides its bytes, dropped by the hex reading: an ASCII column (the rest of its line, up to 18
 * characters: a 16-byte line's, between `|`; shorter than any key's joined hex), a line break with the next line's
 * indentation and offset (`xxd`'s `00000010:`, hexdump -C's `00000010  `), an offset whose line break a reading
 * dropped, and each separator between bytes (space, colon, dash, dot).
 */
/** A dump line's offset (`xxd`'s `00000010: `, `hexdump -C`'s `00000010  ` before a byte). */
const OFFSET = '[0-9A-Fa-f]{8}(?:: | {2}(?=[0-9A-Fa-f]{2} ))';

const HEX_DROPPED = new RegExp(
	[
		// An ASCII column: after a byte, two spaces or more (all of them), not before a byte or an offset; the rest of
		// its line (up to a line break, the text's end or the next line's offset, whose break a reading dropped).
		`(?<=[0-9A-Fa-f]) {2,64}(?![0-9A-Fa-f]{2}[ \\r\\n]|[0-9A-Fa-f]{4,16}(?::| {2}[0-9A-Fa-f])| )(?:(?!${OFFSET})[^\\r\\n]){0,18}(?=[\\r\\n]|$|[ \\t]*${OFFSET})`,
		// A line break with the next line's indentation and offset.
		'\\r?\\n(?:[ \\t]{0,64}[0-9A-Fa-f]{4,16}(?::| {2}(?=[0-9A-Fa-f])))?',
		// An offset whose line break a reading dropped (`xxd`'s, `hexdump -C`'s).
		OFFSET,
		'\\r',
		'[ :.-]',
	].join('|'),
	'g',
);
/** Characters past a piece's end one dropped stretch may need (its longest match and what it looks at after). */
const HEX_LOOKAHEAD = 256;
/** Two hex digits joined to more by a separator or across a line break: a text worth the hex reading. */
export const HEX_JOINT = /[0-9A-Fa-f]{2}(?:[ :.-]{1,2}[0-9A-Fa-f]{2}|\r?\n)/;

/** Characters of an ASCII column after its spaces (HEX_DROPPED). */
const COLUMN_CHARS = 18;

function isSeparator(code: number): boolean {
	return code === 32 || code === 9 || code === 13 || code === 10 || code === 58 || code === 46 || code === 45;
}

/**
 * Whether the hex reading of the text, or of its unwrap reading, may hold a run of `length` hex digits: false only
 * when none can be there. One pass that drops more than either reading drops (every white space, line break, colon,
 * dot and dash; any character within 18 others past two white spaces, where an ASCII column may be), so each run
 * those readings make lies in one it counts, no shorter.
 */
export function mayHoldHexRun(text: string, length: number): boolean {
	let run = 0;
	let spaces = 0;
	let column = 0;
	for (let at = 0; at < text.length; at++) {
		const code = text.charCodeAt(at);
		if (code === 32 || code === 9 || code === 13 || code === 10) {
			// White space is never counted in a column: it may be a line break the unwrap reading drops.
			if (++spaces >= 2) column = COLUMN_CHARS;
			continue;
		}
		spaces = 0;
		if (hexDigit(code) >= 0) {
			if (++run >= length) return true;
		} else if (column === 0 && !isSeparator(code)) run = 0;
		if (column > 0) column--;
	}
	return false;
}

/** Whether this machine stores a UTF-16 unit low byte first, as Buffer's utf16le reads it. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Characters [from, to) of a stretch as a string: its units copied as they are (lone surrogates too). */
export function stringOf(chars: Chars, from: number, to: number): string {
	if (chars.plain !== undefined) return chars.plain.slice(chars.offset + from, chars.offset + to);
	const codes = chars.codes;
	if (LITTLE_ENDIAN) return Buffer.from(codes.buffer, codes.byteOffset + from * 2, (to - from) * 2).toString('utf16le');
	let text = '';
	for (let at = from; at < to; at++) text += String.fromCharCode(codes[at]);
	return text;
}

/** Hex: the text without what a dump holds besides its bytes (HEX_DROPPED), lower case: a dump read as one run of hex digits. */
export class HexDump extends Stage {
	private readonly dropped = new RegExp(HEX_DROPPED.source, 'g');

	/** The character before this piece (an ASCII column follows a byte: the rule looks one character back). */
	private before = ' ';

	reset(): void {
		super.reset();
		this.before = ' ';
	}

	protected readPiece(source: Chars, final: boolean): number {
		const limit = final ? source.length : source.length - HEX_LOOKAHEAD;
		if (limit <= 0) return 0;
		// One character of the text before the piece, so the piece reads as the whole text would.
		const text = this.before + stringOf(source, 0, source.length);
		const dropped = this.dropped;
		dropped.lastIndex = 1;
		let last = 0;
		for (let found = dropped.exec(text); found !== null && found.index - 1 < limit; found = dropped.exec(text)) {
			this.keep(source, last, found.index - 1);
			last = found.index - 1 + found[0].length;
		}
		const end = Math.max(last, limit);
		this.keep(source, last, end);
		this.before = text[end];
		return end;
	}

	/** Characters [from, to) kept, in lower case (hex forms are lower case). */
	private keep(source: Chars, from: number, to: number): void {
		const first = this.out.length;
		this.out.append(source, from, to);
		const codes = this.out.codes;
		for (let at = first; at < this.out.length; at++) if (codes[at] >= 65 && codes[at] <= 90) codes[at] += 32;
	}
}

/** A short text read once through a chain of stages (a key's own readings, see forms.ts). */
export function readThrough(text: string, stages: readonly Stage[]): string {
	let chars = new Chars();
	chars.fill(text, 0, text.length);
	chars.materialize();
	for (const stage of stages) {
		stage.reset();
		chars = stage.read(chars, true);
	}
	return stringOf(chars, 0, chars.length);
}
