/**
 * The views redaction searches besides the text itself (nodes/shared/redaction.ts says which forms go where): the
 * text decoded from URL, form, JSON, C and HTML escapes (one layer per view), the text with its line breaks dropped
 * (a key or an encoding wrapped over lines), and the hex digits of hex dumps with their separators, offsets and
 * ASCII columns dropped. Each is built in one pass and maps its positions back to the text's. Every character of a
 * view stands for a bounded stretch of the text (VIEW_SPAN), which is what lets the redactor work in slices.
 */

/** A copy of a text, and the way back from its positions to the text's own. */
export interface View {
	text: string;
	/** Where the character at `at` of the view starts in the text. */
	start(at: number): number;
	/** Where the character at `at` of the view ends in the text (exclusive). */
	end(at: number): number;
}

/**
 * Longest stretch of text one escape takes (`&#x0041;`, `&#00065;`): escapes decode to ASCII only, so a character
 * reference holds at most four hex or five decimal digits (leading zeros included).
 */
const LONGEST_ESCAPE = 8;
/** Line-break characters one step of the unwrapped view drops (CRLF). */
const LONGEST_BREAK = 2;
/**
 * Characters of the text one character of any view stands for, at most: two layers of escapes, then an unwrapped
 * line break after it (itself possibly escaped twice).
 */
export const VIEW_SPAN = LONGEST_ESCAPE * LONGEST_ESCAPE * (1 + LONGEST_BREAK);

/** Index of the last element of an ascending list not above `value`, or -1. */
function lastNotAbove(list: readonly number[], value: number): number {
	let low = 0;
	let high = list.length - 1;
	let found = -1;
	while (low <= high) {
		const middle = (low + high) >> 1;
		if (list[middle] <= value) {
			found = middle;
			low = middle + 1;
		} else high = middle - 1;
	}
	return found;
}

/** Escapes replaced in a view: where each sits in the text and what it became in the view (ascending, disjoint). */
interface Replaced {
	from: number[];
	to: number[];
	viewFrom: number[];
	viewTo: number[];
}

function positionsBack(replaced: Replaced, at: number, edge: 'start' | 'end'): number {
	const inside = lastNotAbove(replaced.viewFrom, at);
	if (inside !== -1 && at < replaced.viewTo[inside]) return edge === 'start' ? replaced.from[inside] : replaced.to[inside];
	const before = lastNotAbove(replaced.viewTo, at);
	const position = before === -1 ? at : replaced.to[before] + (at - replaced.viewTo[before]);
	return edge === 'start' ? position : position + 1;
}

const HTML_NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const JSON_SHORT: Record<string, string> = { '\\': '\\', '"': '"', '/': '/', "'": "'", b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

const PERCENT = 37;
const AMPERSAND = 38;
const PLUS = 43;
const BACKSLASH = 92;
const CR = 13;
const LF = 10;

/** What one escape decodes to, and how many characters of the text it takes. */
interface Escape {
	length: number;
	decoded: string;
}

/** The value of one hex digit, or -1. */
export function hexDigit(c: number): number {
	if (c >= 48 && c <= 57) return c - 48;
	const lower = c | 32;
	return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/** The number written by `digits` hex digits at `at`, or -1. */
function hexAt(text: string, at: number, digits: number): number {
	let value = 0;
	for (let index = at; index < at + digits; index++) {
		const digit = hexDigit(text.charCodeAt(index));
		if (digit < 0) return -1;
		value = value * 16 + digit;
	}
	return value;
}

/** The number written in decimal (`#65`) or hex (`#x41`) from `at` up to `end`, or -1. */
function characterReference(text: string, at: number, end: number): number {
	const hex = (text.charCodeAt(at) | 32) === 120;
	const from = hex ? at + 1 : at;
	if (end === from || end - from > (hex ? 4 : 5)) return -1;
	if (hex) return hexAt(text, from, end - from);
	let value = 0;
	for (let index = from; index < end; index++) {
		const digit = text.charCodeAt(index) - 48;
		if (digit < 0 || digit > 9) return -1;
		value = value * 10 + digit;
	}
	return value;
}

/** `&#65;`, `&#x41;`, `&amp;` at `at`, or undefined. */
function htmlEscapeAt(text: string, at: number): Escape | undefined {
	// Looked for within the longest reference only: searching on would make a text of lone '&' quadratic.
	const found = text.slice(at + 2, at + LONGEST_ESCAPE + 1).indexOf(';');
	if (found === -1) return undefined;
	const semicolon = at + 2 + found;
	if (text.charCodeAt(at + 1) === 35) {
		const code = characterReference(text, at + 2, semicolon);
		return isAscii(code) ? { length: semicolon - at + 1, decoded: String.fromCharCode(code) } : undefined;
	}
	const named = HTML_NAMED[text.slice(at + 1, semicolon).toLowerCase()];
	return named === undefined ? undefined : { length: semicolon - at + 1, decoded: named };
}

/**
 * Escapes decode to ASCII only: keys are ASCII (they travel in headers), and a key holding `%9f` or `&#233;` as text
 * then looks in a decoded view as its decoded form (see redactor), which stays ASCII, so the fast prescan holds.
 */
function isAscii(code: number): boolean {
	return code >= 0 && code < 0x80;
}

/**
 * The escape starting at `at`, or undefined: percent (`%41`, `%u0041`), JSON and C (`\u0041`, `\x41`, `\n`, `\"`),
 * HTML, and `+` for a space when a key holds one (form encoding).
 */
function escapeAt(text: string, at: number, plusIsSpace: boolean): Escape | undefined {
	const c = text.charCodeAt(at);
	const next = text[at + 1];
	if (c === PERCENT) {
		const unicode = next === 'u' || next === 'U' ? hexAt(text, at + 2, 4) : -1;
		if (isAscii(unicode)) return { length: 6, decoded: String.fromCharCode(unicode) };
		const byte = hexAt(text, at + 1, 2);
		return isAscii(byte) ? { length: 3, decoded: String.fromCharCode(byte) } : undefined;
	}
	if (c === BACKSLASH) {
		const code = next === 'u' ? hexAt(text, at + 2, 4) : next === 'x' ? hexAt(text, at + 2, 2) : -1;
		if (isAscii(code)) return { length: next === 'u' ? 6 : 4, decoded: String.fromCharCode(code) };
		const short = next === undefined ? undefined : JSON_SHORT[next];
		return short === undefined ? undefined : { length: 2, decoded: short };
	}
	if (c === AMPERSAND) return htmlEscapeAt(text, at);
	return c === PLUS && plusIsSpace ? { length: 1, decoded: ' ' } : undefined;
}

const DROPPED_BREAK: Escape = { length: 1, decoded: '' };
const DROPPED_CRLF: Escape = { length: 2, decoded: '' };

/**
 * One line break (CR, LF or CRLF) dropped; one right after another is kept, so a character of the view never
 * stands for more than LONGEST_BREAK line-break characters.
 */
function lineBreakAt(text: string, at: number): Escape | undefined {
	const c = text.charCodeAt(at);
	if (c !== CR && c !== LF) return undefined;
	const before = text.charCodeAt(at - 1);
	if (before === CR || before === LF) return undefined;
	return c === CR && text.charCodeAt(at + 1) === LF ? DROPPED_CRLF : DROPPED_BREAK;
}

/** How a view is made: escapes decoded, or line breaks dropped (a key or an encoding wrapped over lines). */
export type Decoding = { plusIsSpace: boolean } | 'unwrap';

function stepAt(text: string, at: number, decoding: Decoding): Escape | undefined {
	return decoding === 'unwrap' ? lineBreakAt(text, at) : escapeAt(text, at, decoding.plusIsSpace);
}

const UNWRAP_STARTERS = ['\r', '\n'];
const ESCAPE_STARTERS = ['%', '\\', '&'];
const FORM_STARTERS = ['%', '\\', '&', '+'];

/** The characters that may start a step. */
function starters(decoding: Decoding): readonly string[] {
	if (decoding === 'unwrap') return UNWRAP_STARTERS;
	return decoding.plusIsSpace ? FORM_STARTERS : ESCAPE_STARTERS;
}

/** Whether a text holds any character that starts a step of this decoding: if not, its view is the text itself. */
export function mayDecode(text: string, decoding: Decoding): boolean {
	for (const starter of starters(decoding)) if (text.includes(starter)) return true;
	return false;
}

/**
 * Where the next step may start, at or after `at`: the engine's indexOf per starter, each remembered until passed,
 * so a text with few escapes is skipped at native speed.
 */
function nextStart(text: string, at: number, chars: readonly string[], next: number[]): number {
	let nearest = -1;
	for (let index = 0; index < chars.length; index++) {
		if (next[index] !== -1 && next[index] < at) next[index] = text.indexOf(chars[index], at);
		if (next[index] !== -1 && (nearest === -1 || next[index] < nearest)) nearest = next[index];
	}
	return nearest;
}

/**
 * The text decoded in one pass (no callback per escape), with, when `replaced` is given, where each escape sat. The
 * same loop makes the view and, only for a view holding a form, the way back.
 */
export function decodePass(text: string, decoding: Decoding, replaced?: Replaced): string {
	const chars = starters(decoding);
	const next = chars.map(() => -2);
	let view: ViewWriter | undefined;
	let last = 0;
	for (let at = nextStart(text, 0, chars, next); at !== -1; at = nextStart(text, at, chars, next)) {
		const escape = stepAt(text, at, decoding);
		if (escape === undefined) {
			at++;
			continue;
		}
		view ??= new ViewWriter(text);
		view.copy(last, at);
		replaced?.from.push(at);
		replaced?.viewFrom.push(view.length);
		view.add(escape.decoded);
		last = at + escape.length;
		replaced?.to.push(last);
		replaced?.viewTo.push(view.length);
		at = last;
	}
	if (view === undefined) return text;
	view.copy(last, text.length);
	return view.text();
}

/** Below this, a stretch of plain text is copied character by character; from it on, as one slice. */
const SHORT_STRETCH = 16;

/**
 * The one buffer every ViewWriter fills: a view is written in one synchronous pass (decodePass) and never inside
 * another, and one 8 KiB typed array per view cost an allocation outside the heap for each string with an escape.
 */
const SCRATCH = new Uint16Array(4096);

/**
 * A view written piece by piece: escapes and short stretches into a buffer, long stretches as slices. Escape-dense
 * text would otherwise make millions of one-character parts; plain text would be copied character by character.
 */
class ViewWriter {
	length = 0;
	private readonly parts: string[] = [];
	private readonly buffer = SCRATCH;
	private buffered = 0;

	constructor(private readonly source: string) {}

	copy(from: number, to: number): void {
		if (to - from >= SHORT_STRETCH) {
			this.flush();
			this.parts.push(this.source.slice(from, to));
			this.length += to - from;
		} else for (let index = from; index < to; index++) this.put(this.source.charCodeAt(index));
	}

	add(decoded: string): void {
		if (decoded !== '') this.put(decoded.charCodeAt(0));
	}

	text(): string {
		this.flush();
		return this.parts.join('');
	}

	private put(code: number): void {
		if (this.buffered === this.buffer.length) this.flush();
		this.buffer[this.buffered++] = code;
		this.length++;
	}

	private flush(): void {
		if (this.buffered === 0) return;
		this.parts.push(String.fromCharCode.apply(null, this.buffer.subarray(0, this.buffered) as unknown as number[]));
		this.buffered = 0;
	}
}

/** The decoded view of a text, or undefined when nothing in it decodes; the way back is worked out on first use. */
export function viewOf(text: string, decoding: Decoding): View | undefined {
	if (!mayDecode(text, decoding)) return undefined;
	const viewText = decodePass(text, decoding);
	if (viewText === text) return undefined;
	let replaced: Replaced | undefined;
	const back = (): Replaced => {
		if (replaced === undefined) {
			replaced = { from: [], to: [], viewFrom: [], viewTo: [] };
			decodePass(text, decoding, replaced);
		}
		return replaced;
	};
	return { text: viewText, start: (at) => positionsBack(back(), at, 'start'), end: (at) => positionsBack(back(), at, 'end') };
}

/** A view of a view, mapped back to the first text. */
export function through(outer: View, inner: View): View {
	return { text: outer.text, start: (at) => inner.start(outer.start(at)), end: (at) => inner.end(outer.end(at) - 1) };
}

export function identityView(text: string): View {
	return { text, start: (at) => at, end: (at) => at + 1 };
}

/**
 * What a hex dump holds besides its bytes, dropped in the hex view: an ASCII column (two spaces or more, then up to
 * the line's end, unless a byte follows: hexdump -C's halves), a line break with the next line's offset (`xxd`'s
 * `00000010:`, hexdump -C's `00000010  `), and each separator between bytes (space, colon, dash, dot).
 */
const HEX_DROPPED = / {2,64}(?![0-9A-Fa-f]{2}[ \r\n])[^\r\n]{0,80}|\r?\n(?:[ \t]{0,8}[0-9A-Fa-f]{4,16}(?::| {2}(?=[0-9A-Fa-f])))?|\r|[ :.-]/g;
/** Two hex digits joined to more by a separator or across a line break: a text worth a hex view. */
const HEX_JOINT = /[0-9A-Fa-f]{2}(?:[ :.-]{1,2}[0-9A-Fa-f]{2}|\r?\n)/;

/** Where each piece the hex view drops sits in the text and in the view (ascending). */
function droppedPieces(text: string): Replaced {
	const replaced: Replaced = { from: [], to: [], viewFrom: [], viewTo: [] };
	const dropped = new RegExp(HEX_DROPPED.source, 'g');
	let removed = 0;
	for (let found = dropped.exec(text); found !== null; found = dropped.exec(text)) {
		const at = found.index;
		replaced.from.push(at);
		replaced.to.push(at + found[0].length);
		replaced.viewFrom.push(at - removed);
		replaced.viewTo.push(at - removed);
		removed += found[0].length;
	}
	return replaced;
}

/**
 * The text without what a hex dump holds besides its bytes (HEX_DROPPED), lower case: the bytes of an `xxd`,
 * `hexdump -C`, `41:42:43` or wrapped hex dump then read as one run of hex digits. Built by the regex engine in one
 * pass; the way back is worked out only when a form is found. Undefined when the text holds no joined hex.
 */
export function hexView(text: string): View | undefined {
	if (!HEX_JOINT.test(text)) return undefined;
	const viewText = text.replace(HEX_DROPPED, '').toLowerCase();
	let replaced: Replaced | undefined;
	const back = (): Replaced => (replaced ??= droppedPieces(text));
	return { text: viewText, start: (at) => positionsBack(back(), at, 'start'), end: (at) => positionsBack(back(), at, 'end') };
}
