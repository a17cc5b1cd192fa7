// The redaction as it was before issue 33 (main 0616b91), kept only so that figure 11 measures before and after in one run.
/**
 * Secrets in every form they travel in, hidden without touching anything else. The strings to hide are the keys as
 * the user typed them and, for Basic, `user:password` and its base64 (the Authorization value). The redactor finds
 * them in what a server that echoes a request usually makes of a header: the text as it is, any case; decoded from
 * URL, form, every-byte percent, JSON (\uXXXX too) and HTML escapes, up to two layers; base64 and URL-safe base64 at
 * each of the three alignments, whole or wrapped over lines (MIME, PEM); hex.
 * A key itself matches only as a token (not inside a longer run of letters and digits), and a key shorter than
 * MIN_SECRET_LENGTH is not searched as itself at all: it would blank years, parts of ids and times. The credentials'
 * Test refuses such keys (shortSecretProblem). Pure: the transport derives the list once per connection.
 */

/** Shortest key searched as itself: shorter ones match ordinary data (a year, a group of a job id, part of a time). */
export const MIN_SECRET_LENGTH = 8;

/** Base64 and hex forms shorter than this are left out: they could match by chance. */
const MIN_ENCODED_LENGTH = 8;

/** Why a key cannot be hidden in the service's answers, or null: the credentials' Test says it. */
export function shortSecretProblem(label: string, value: string): string | null {
	if (value === '' || value.length >= MIN_SECRET_LENGTH) return null;
	return (
		`The ${label} is shorter than ${MIN_SECRET_LENGTH} characters: the nodes cannot hide so short a key in the service's ` +
		`answers without blanking ordinary data (years, parts of job IDs and times), so an answer echoing it would show it. Use a longer one.`
	);
}

/**
 * The strings to hide for these keys; `basic` adds `user:password` and its base64 as in a Basic header. Keys shorter
 * than MIN_SECRET_LENGTH are left out (see above); redactor() searches the rest in every form.
 */
export function secretForms(secrets: readonly string[], basic?: { user: string; password: string }): string[] {
	const forms = new Set<string>();
	for (const secret of secrets) if (secret.length >= MIN_SECRET_LENGTH) forms.add(secret);
	if (basic && basic.password !== '') {
		const pair = `${basic.user}:${basic.password}`;
		for (const form of [pair, Buffer.from(pair, 'utf8').toString('base64').replace(/=+$/, '')]) {
			if (form.length >= MIN_SECRET_LENGTH) forms.add(form);
		}
	}
	return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * The part of base64 that is the same whatever text surrounds the secret: one core per alignment of the secret in
 * the encoded text (its offset modulo 3), standard and URL-safe, so `Bearer <token>`, `user:<password>` or a whole
 * echoed header line all show one of them.
 */
function base64Cores(secret: string): string[] {
	const length = Buffer.byteLength(secret, 'utf8');
	const cores: string[] = [];
	for (let offset = 0; offset < 3; offset++) {
		const encoded = Buffer.from('\0'.repeat(offset) + secret, 'utf8').toString('base64');
		const core = encoded.slice(offset > 0 ? 4 : 0, Math.floor((offset + length) / 3) * 4);
		if (core.length >= MIN_ENCODED_LENGTH) cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
	}
	return cores;
}

/** Forms that sit inside longer runs by nature (base64 of a longer text, a hex dump): matched anywhere. */
function embeddedForms(secret: string): string[] {
	const hex = Buffer.from(secret, 'utf8').toString('hex');
	return [...base64Cores(secret), ...(hex.length >= MIN_ENCODED_LENGTH ? [hex] : [])];
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const ALPHANUMERIC = /[A-Za-z0-9]/;

/** A key as a token: no letter or digit right before or after it (where its own edge is one). */
function tokenSource(form: string): string {
	const before = ALPHANUMERIC.test(form[0]) ? '(?<![A-Za-z0-9])' : '';
	const after = ALPHANUMERIC.test(form[form.length - 1]) ? '(?![A-Za-z0-9])' : '';
	return `${before}${escapeRegExp(form)}${after}`;
}

const NON_ASCII = /[\u0080-\uffff]/;

/** One search: a pattern over forms (longest first, so a form containing another is replaced whole), and its prescan. */
interface Search {
	pattern: RegExp;
	shortest: number;
	/** Upper-cased forms when all are ASCII (see holdsNone), else undefined. */
	upper?: string[];
}

function search(tokens: readonly string[], embedded: readonly string[]): Search | undefined {
	const all = [...tokens.map((form) => ({ form, source: tokenSource(form) })), ...embedded.map((form) => ({ form, source: escapeRegExp(form) }))];
	if (all.length === 0) return undefined;
	all.sort((a, b) => b.form.length - a.form.length);
	const forms = all.map(({ form }) => form);
	return {
		pattern: new RegExp(all.map(({ source }) => source).join('|'), 'gi'),
		shortest: Math.min(...forms.map((form) => form.length)),
		upper: forms.every((form) => !NON_ASCII.test(form)) ? [...new Set(forms.map((form) => form.toUpperCase()))] : undefined,
	};
}

/** From this length on, a text is first searched form by form (indexOf skips ahead), which is cheaper than the pattern. */
const PRESCAN_FROM_CHARS = 1024;

/**
 * Whether the upper-cased text holds none of the upper-cased forms. Used only when every form is ASCII: then the
 * pattern (flag i without u) can match nothing but ASCII case variants of a form, which upper-case to the form's
 * upper case, so "none here" means the pattern matches nothing and the text can be returned as it is.
 */
function holdsNone(text: string, upperForms: readonly string[]): boolean {
	const upper = text.toUpperCase();
	for (const form of upperForms) if (upper.includes(form)) return false;
	return true;
}

/** A decoded copy of a text, and the way back from its positions to the text's own. */
interface View {
	text: string;
	/** Where the character at `at` of the view starts in the text. */
	start(at: number): number;
	/** Where the character at `at` of the view ends in the text (exclusive). */
	end(at: number): number;
}

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
function hexDigit(c: number): number {
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
	if (end === from || end - from > (hex ? 6 : 7)) return -1;
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
	const found = text.slice(at + 2, at + 11).indexOf(';');
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

/** How a view is made: escapes decoded, or line breaks dropped (base64 and hex wrapped over lines). */
type Decoding = { plusIsSpace: boolean } | 'unwrap';

function stepAt(text: string, at: number, decoding: Decoding): Escape | undefined {
	if (decoding !== 'unwrap') return escapeAt(text, at, decoding.plusIsSpace);
	const c = text.charCodeAt(at);
	return c === CR || c === LF ? { length: 1, decoded: '' } : undefined;
}

const UNWRAP_STARTERS = ['\r', '\n'];
const ESCAPE_STARTERS = ['%', '\\', '&'];
const FORM_STARTERS = ['%', '\\', '&', '+'];

/** The characters that may start a step. */
function starters(decoding: Decoding): readonly string[] {
	if (decoding === 'unwrap') return UNWRAP_STARTERS;
	return decoding.plusIsSpace ? FORM_STARTERS : ESCAPE_STARTERS;
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
function decodePass(text: string, decoding: Decoding, replaced?: Replaced): string {
	const chars = starters(decoding);
	const next = chars.map(() => -2);
	const parts: string[] = [];
	let viewLength = 0;
	let last = 0;
	for (let at = nextStart(text, 0, chars, next); at !== -1; at = nextStart(text, at, chars, next)) {
		const escape = stepAt(text, at, decoding);
		if (escape === undefined) {
			at++;
			continue;
		}
		if (at > last) parts.push(text.slice(last, at));
		viewLength += at - last;
		replaced?.from.push(at);
		replaced?.viewFrom.push(viewLength);
		if (escape.decoded !== '') parts.push(escape.decoded);
		viewLength += escape.decoded.length;
		last = at + escape.length;
		replaced?.to.push(last);
		replaced?.viewTo.push(viewLength);
		at = last;
	}
	if (last === 0) return text;
	parts.push(text.slice(last));
	return parts.join('');
}

/** The decoded view of a text, or undefined when nothing in it decodes; the way back is worked out on first use. */
function viewOf(text: string, decoding: Decoding): View | undefined {
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
function through(outer: View, inner: View): View {
	return { text: outer.text, start: (at) => inner.start(outer.start(at)), end: (at) => inner.end(outer.end(at) - 1) };
}

/**
 * The views of a text worth searching besides the text itself: decoded once and twice (an escaped text inside an
 * escaped text), each as it is (every form) and without its line breaks (base64 and hex only: wrapped lines).
 */
function viewsOf(text: string, plusIsSpace: boolean): Array<{ view: View; wrapped: boolean }> {
	const decoded: View[] = [];
	const once = viewOf(text, { plusIsSpace });
	if (once) {
		decoded.push(once);
		const twice = viewOf(once.text, { plusIsSpace });
		if (twice) decoded.push(through(twice, once));
	}
	const views = decoded.map((view) => ({ view, wrapped: false }));
	const identity: View = { text, start: (at) => at, end: (at) => at + 1 };
	for (const base of [identity, ...decoded.slice(-1)]) {
		const unwrapped = viewOf(base.text, 'unwrap');
		if (unwrapped) views.push({ view: base === identity ? unwrapped : through(unwrapped, base), wrapped: true });
	}
	return views;
}

type Range = [number, number];

/** The ranges of the text (through the view, when given) where the search finds a form. */
function rangesIn(text: string, found: Search, view?: View): Range[] {
	if (text.length < found.shortest) return [];
	if (found.upper && text.length >= PRESCAN_FROM_CHARS && holdsNone(text, found.upper)) return [];
	const ranges: Range[] = [];
	found.pattern.lastIndex = 0;
	for (let match = found.pattern.exec(text); match !== null; match = found.pattern.exec(text)) {
		const end = match.index + match[0].length;
		ranges.push(view ? [view.start(match.index), view.end(end - 1)] : [match.index, end]);
	}
	return ranges;
}

/** The text with each range (merged where they overlap) replaced by ***. */
function replaceRanges(text: string, ranges: Range[]): string {
	ranges.sort((a, b) => a[0] - b[0]);
	const parts: string[] = [];
	let last = 0;
	for (let index = 0; index < ranges.length; index++) {
		const from = ranges[index][0];
		let to = ranges[index][1];
		while (index + 1 < ranges.length && ranges[index + 1][0] <= to) to = Math.max(to, ranges[++index][1]);
		parts.push(text.slice(last, Math.max(last, from)), '***');
		last = Math.max(last, to);
	}
	parts.push(text.slice(last));
	return parts.join('');
}

/** One compiled redactor per list of forms (a connection derives its list once), so redacting many strings is cheap. */
const compiled = new WeakMap<readonly string[], (text: string) => string>();

/**
 * A function replacing every form (any case, any encoding above) by ***. Each search is an alternation of literal
 * strings, over the text and a bounded number of decoded views of it, each built in one pass: linear in the text
 * whatever it holds. Texts with no escape and no line break are searched once; long texts holding no form (the
 * usual case) are told apart by a cheaper search first.
 */
export function redactor(forms: readonly string[], options: { prescan?: boolean } = {}): (text: string) => string {
	const known = options.prescan === false ? undefined : compiled.get(forms);
	if (known) return known;
	// A key holding text that looks like an escape (`%9f`, `&lt;`) shows in a decoded view decoded: look for that too.
	const plusIsSpace = forms.some((form) => form.includes(' '));
	const tokens = [...new Set(forms.flatMap((form) => [form, decodePass(form, { plusIsSpace }), decodePass(decodePass(form, { plusIsSpace }), { plusIsSpace })]))];
	const every = search(tokens, forms.flatMap(embeddedForms));
	const wrapped = search([], forms.flatMap(embeddedForms));
	// Without the prescan (tests compare against it), every text goes through the patterns.
	if (options.prescan === false) for (const each of [every, wrapped]) if (each) each.upper = undefined;
	const clean = (text: string): string => {
		if (every === undefined || text.length < every.shortest) return text;
		const ranges = rangesIn(text, every);
		for (const { view, wrapped: unwrapped } of viewsOf(text, plusIsSpace)) {
			const used = unwrapped ? wrapped : every;
			if (used) ranges.push(...rangesIn(view.text, used, view));
		}
		return ranges.length === 0 ? text : replaceRanges(text, ranges);
	};
	if (options.prescan !== false) compiled.set(forms, clean);
	return clean;
}

/** Id fields whose value, when redaction changed it, is kept as the service sent it (for reading that job again). */
const ID_FIELDS = new Set(['jobId', 'id']);
const MAX_KEPT_ID_CHARS = 1024;
const sentIds = new WeakMap<object, Map<string, string>>();

/**
 * Remembers the value of an id field as the service sent it, when redaction changed it: what the workflow shows stays
 * redacted, but the job is read again under the id it really has. Other fields and long values are not kept.
 */
export function keepSentId(record: object, field: string, sent: string): void {
	if (!ID_FIELDS.has(field) || sent.length > MAX_KEPT_ID_CHARS) return;
	const kept = sentIds.get(record) ?? new Map<string, string>();
	kept.set(field, sent);
	sentIds.set(record, kept);
}

/** The id field's value as the service sent it, when redaction changed it; undefined otherwise. */
export function sentId(record: unknown, field: string): string | undefined {
	return typeof record === 'object' && record !== null ? sentIds.get(record)?.get(field) : undefined;
}

/** Replaces every form (any case, any encoding) by ***: the final guard on whatever a server or library echoed. */
export function redact(text: string, forms: readonly string[]): string {
	if (forms.length === 0 || text === '') return text;
	return redactor(forms)(text);
}
