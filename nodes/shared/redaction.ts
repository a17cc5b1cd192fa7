/**
 * Secrets in every form the model of docs/guarantees.md ("What redaction hides") names, hidden without touching
 * anything else. The strings to hide are the keys as the node sends them and, for Basic, `user:password` and its
 * base64 (the Authorization value). Each is found as it is (any case), URL-, form- and JSON/HTML/C-escaped (up to
 * two layers, redactionViews.ts), base64 (standard and URL-safe) of it, of its URL-encoded and of its form-encoded
 * form at each of the three alignments, and hex; in the text, in its decoded views, in views with line breaks
 * dropped (wrapped), and hex in a view of hex dumps without their separators. A key matches only as a token (no
 * letter or digit right before or after it); a number is compared as its text. A key shorter than MIN_SECRET_LENGTH
 * cannot be hidden (it would blank years, parts of ids and times): the transport refuses to send it at all
 * (shortKeyProblem). Pure; the work is bounded per slice (RedactionWork), so callers can yield between slices.
 */
import { keyAsSent } from './transport/serviceCredentials';
import { decodePass, hexDigit, hexView, identityView, through, VIEW_SPAN, viewOf } from './redactionViews';
import type { View } from './redactionViews';

/** Shortest key searched as itself: shorter ones match ordinary data (a year, a group of a job id, part of a time). */
export const MIN_SECRET_LENGTH = 8;

/** Base64 and hex forms shorter than this are left out: they could match by chance. */
const MIN_ENCODED_LENGTH = 8;

/** Why a key cannot be hidden in the service's answers, or null: refused before anything is sent. */
export function shortSecretProblem(label: string, value: string): string | null {
	if (value === '' || value.length >= MIN_SECRET_LENGTH) return null;
	return (
		`The ${label} is shorter than ${MIN_SECRET_LENGTH} characters: the nodes cannot hide so short a key in the service's ` +
		`answers without blanking ordinary data (years, parts of job IDs and times), so an answer echoing it would show it. Use a longer one.`
	);
}

/**
 * The keys a credential sends, by their field labels (the credential types of credentials/): header keys as sent
 * (trimmed, keyAsSent); Basic's password as typed, or, when it is empty, the user (then the key, as Stripe-style
 * APIs take it).
 */
function keysSent(relay: boolean, data: Record<string, unknown>): Array<[string, string]> {
	if (relay) return [['Relay API Key', keyAsSent(data.apiKey)], ['User API Key', keyAsSent(data.userApiKey)]];
	switch (data.authType) {
		case 'bearerToken':
			return [['Token', keyAsSent(data.token)]];
		case 'basicAuth':
			return data.password === '' || data.password === undefined ? [['User', String(data.user ?? '')]] : [['Password', String(data.password)]];
		case 'headerAuth':
			return [['Header Value', keyAsSent(data.headerSecret)]];
		default:
			return [];
	}
}

/**
 * Why a key of the credential is too short to be hidden, or null: the one policy of the credential Test and of every
 * run (the transport's getConnection), checked before anything is sent.
 */
export function shortKeyProblem(relay: boolean, data: Record<string, unknown>): string | null {
	for (const [label, value] of keysSent(relay, data)) {
		const problem = shortSecretProblem(label, value);
		if (problem !== null) return problem;
	}
	return null;
}
/**
 * The strings to hide for these keys, each as given and trimmed (a header key is sent trimmed: keyAsSent); `basic`
 * adds `user:password` and its base64 as in a Basic header, and with an empty password the user (then the key),
 * `user:` and its base64. Keys shorter than MIN_SECRET_LENGTH are left out (see above); redactor() searches the rest
 * in every form.
 */
export function secretForms(secrets: readonly string[], basic?: { user: string; password: string }): string[] {
	const forms = new Set<string>();
	const keys = basic && basic.password === '' ? [...secrets, basic.user] : secrets;
	for (const secret of keys) for (const key of [secret, secret.trim()]) if (key.length >= MIN_SECRET_LENGTH) forms.add(key);
	if (basic && (basic.password !== '' || basic.user !== '')) {
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

/** The key as it travels inside a URL or a form body, when that differs from the key (`+`, `/`, `%`, spaces...). */
function urlEncodings(secret: string): string[] {
	const url = encodeURIComponent(secret);
	const form = new URLSearchParams({ k: secret }).toString().slice(2);
	return [...new Set([url, url.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()), form])].filter((encoded) => encoded !== secret);
}

/** Hex of a form, lower case (the hex view is lower case; the text is searched in any case). */
function hexOf(secret: string): string {
	return Buffer.from(secret, 'utf8').toString('hex');
}

/**
 * Forms that sit inside longer runs by nature, matched anywhere: base64 of the key, of its URL-encoded and of its
 * form-encoded form (the encoded header line a service may base64). Hex has its own search (the text and its hex view).
 */
function embeddedForms(secret: string): string[] {
	return [secret, ...urlEncodings(secret)].flatMap(base64Cores);
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
	longest: number;
	/** Upper-cased forms when all are ASCII (see holdsNone), else undefined. */
	upper?: string[];
}

function search(tokens: readonly string[], embedded: readonly string[], prescan: boolean): Search | undefined {
	const all = [...tokens.map((form) => ({ form, source: tokenSource(form) })), ...embedded.map((form) => ({ form, source: escapeRegExp(form) }))];
	if (all.length === 0) return undefined;
	all.sort((a, b) => b.form.length - a.form.length);
	const forms = all.map(({ form }) => form);
	return {
		pattern: new RegExp(all.map(({ source }) => source).join('|'), 'gi'),
		shortest: Math.min(...forms.map((form) => form.length)),
		longest: Math.max(...forms.map((form) => form.length)),
		upper: prescan && forms.every((form) => !NON_ASCII.test(form)) ? [...new Set(forms.map((form) => form.toUpperCase()))] : undefined,
	};
}

/** From this length on, a text is first searched form by form (indexOf skips ahead), which is cheaper than the pattern. */
const PRESCAN_FROM_CHARS = 1024;

/**
 * Whether the upper-cased text holds none of the upper-cased forms. Used only when every form is ASCII: then the
 * pattern (flag i without u) can match nothing but ASCII case variants of a form, which upper-case to the form's
 * upper case, so "none here" means the pattern matches nothing and the text can be returned as it is.
 */
function holdsNone(upper: string, upperForms: readonly string[]): boolean {
	for (const form of upperForms) if (upper.includes(form)) return false;
	return true;
}

type Range = [number, number];

/** The ranges of the view's text, mapped back (and shifted by `offset`), where the search finds a form. */
function rangesIn(view: View, found: Search, offset: number, ranges: Range[], upper?: string): void {
	const text = view.text;
	if (text.length < found.shortest) return;
	if (found.upper && text.length >= PRESCAN_FROM_CHARS && holdsNone(upper ?? text.toUpperCase(), found.upper)) return;
	found.pattern.lastIndex = 0;
	for (let match = found.pattern.exec(text); match !== null; match = found.pattern.exec(text)) {
		const end = match.index + match[0].length;
		ranges.push([offset + view.start(match.index), offset + view.end(end - 1)]);
	}
}

/**
 * The views of a text worth searching besides the text itself, built only where a step could hide a form (an
 * escape, a line break, a hex joint): decoded once and twice (an escaped text inside an escaped text), the text and
 * the deepest decoded view without their line breaks (wrapped), and the hex view (for hex forms only).
 */
function viewsOf(text: string, plusIsSpace: boolean): View[] {
	const decoded: View[] = [];
	const once = viewOf(text, { plusIsSpace });
	if (once) {
		decoded.push(once);
		const twice = viewOf(once.text, { plusIsSpace });
		if (twice) decoded.push(through(twice, once));
	}
	const views = [...decoded];
	const identity = identityView(text);
	for (const base of [identity, ...decoded.slice(-1)]) {
		const unwrapped = viewOf(base.text, 'unwrap');
		if (unwrapped) views.push(base === identity ? unwrapped : through(unwrapped, base));
	}
	return views;
}

/** A list of forms compiled: its searches, and how far one match can reach in the text. */
interface Compiled {
	every?: Search;
	/** Hex forms, searched in the hex view. */
	hex?: Search;
	plusIsSpace: boolean;
	/**
	 * Per hex form, the hex of its bytes (upper case, those with a letter first): a text lacking one of each form's
	 * cannot hold a dump of it, and gets no hex view. Undefined without the prescan.
	 */
	hexBytes?: string[][];
	/** Digits-only forms: a number whose value they write is one of them. */
	numbers: number[];
	/** Characters of the text one match can span at most, through any view: the overlap between slices. */
	reach: number;
}

function compile(forms: readonly string[], prescan: boolean): Compiled {
	// A key holding text that looks like an escape (`%9f`, `&lt;`) shows in a decoded view decoded: look for that too.
	const plusIsSpace = forms.some((form) => form.includes(' '));
	const decoded = (form: string) => decodePass(form, { plusIsSpace });
	const tokens = [...new Set(forms.flatMap((form) => [form, decoded(form), decoded(decoded(form))]))];
	const every = search(tokens, forms.flatMap(embeddedForms), prescan);
	const hexForms = forms.map(hexOf).filter((form) => form.length >= MIN_ENCODED_LENGTH);
	const hex = search([], hexForms, prescan);
	const hexBytes = prescan ? hexForms.map(bytesOf) : undefined;
	const numbers = forms.filter((form) => /^[1-9][0-9]*$/.test(form)).map(Number);
	return { every, hex, hexBytes, plusIsSpace, numbers, reach: Math.max((every?.longest ?? 0) * VIEW_SPAN, dumpSpan(hex?.longest ?? 0)) + DUMP_LINE_TAIL + 2 };
}

/** The distinct bytes of a hex form, upper case, those holding a letter first (rarer in ordinary text). */
function bytesOf(hex: string): string[] {
	const bytes = [...new Set(hex.toUpperCase().match(/../g) ?? [])];
	return [...bytes.filter((byte) => /[A-F]/.test(byte)), ...bytes.filter((byte) => !/[A-F]/.test(byte))];
}

/** Whether the upper-cased text holds every byte of some hex form, so that a dump of it may be there. */
function mayHoldDump(upper: string, hexBytes: readonly string[][] | undefined): boolean {
	return hexBytes === undefined || hexBytes.some((bytes) => bytes.every((byte) => upper.includes(byte)));
}

/** Bytes on one line of a hex dump (xxd, hexdump -C). */
const DUMP_LINE_BYTES = 16;
/** Characters between two lines' bytes: an ASCII column with its padding, a line break, the next line's offset. */
const DUMP_LINE_JOINT = 180;

/** Characters of the text a hex form of `digits` digits spans in a dump: two separators at most per byte, and its line joints. */
function dumpSpan(digits: number): number {
	return digits * 2 + (Math.ceil(digits / (2 * DUMP_LINE_BYTES)) + 1) * DUMP_LINE_JOINT;
}

/** Characters searched in one slice at least (more when a form's reach needs it). */
const SLICE_CHARS = 64 * 1024;
/** Characters before a slice searched with it, so that an escape or a token edge just before it reads the same. */
const SLICE_CONTEXT = 64;

/**
 * The slices' length for these forms: as long as the overlap at least, so the overlap at most doubles the work,
 * and a step grows only with the longest form (keys of a few hundred characters, such as JWTs, stay well in bounds).
 */
function sliceChars(compiled: Compiled): number {
	return Math.max(SLICE_CHARS, compiled.reach);
}

/** Characters after a key's hex up to the end of its line hidden with it: a dump's ASCII column shows the same bytes. */
const DUMP_LINE_TAIL = 80;

/** The end of the line holding `at` when it is near (a dump's ASCII column), else `at`. */
function lineEnd(text: string, at: number): number {
	const end = text.slice(at, at + DUMP_LINE_TAIL + 1).search(/[\r\n]/);
	if (end !== -1) return at + end;
	return text.length - at <= DUMP_LINE_TAIL ? text.length : at;
}

/**
 * The ranges of `text` starting in [from, to) where a form is found, searching text[from - context, to + reach)
 * (never past `limit`) and its views; and the work it took (characters searched, over every view built).
 */
function slice(text: string, limit: number, compiled: Compiled, from: number, to: number): { ranges: Range[]; work: number } {
	const start = Math.max(0, from - SLICE_CONTEXT);
	const piece = text.slice(start, Math.min(limit, to + compiled.reach));
	const found: Range[] = [];
	const every = compiled.every;
	const upper = piece.length >= PRESCAN_FROM_CHARS ? piece.toUpperCase() : undefined;
	let work = piece.length;
	if (every) {
		for (const view of [identityView(piece), ...viewsOf(piece, compiled.plusIsSpace)]) {
			if (view.text !== piece) work += view.text.length;
			rangesIn(view, every, start, found, view.text === piece ? upper : undefined);
		}
	}
	// Hex: in the hex view of a dump, or in the text itself (plain hex, no separator), where every byte of a key is.
	const hex = compiled.hex && mayHoldDump(upper ?? piece.toUpperCase(), compiled.hexBytes) ? (hexView(piece) ?? identityView(piece)) : undefined;
	if (hex && compiled.hex) {
		if (hex.text !== piece) work += hex.text.length;
		const dumped: Range[] = [];
		rangesIn(hex, compiled.hex, start, dumped);
		for (const range of dumped) found.push([range[0], lineEnd(piece, range[1] - start) + start]);
	}
	return { ranges: found.filter(([at]) => at >= from && at < to), work };
}

/** The first `keep` characters of the text with each range (merged where they overlap) replaced by ***. */
function replaceRanges(text: string, ranges: Range[], keep: number): string {
	if (ranges.length === 0) return keep >= text.length ? text : text.slice(0, keep);
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
	if (last < keep) parts.push(text.slice(last, keep));
	return parts.join('');
}

/**
 * Redaction of one text, slice by slice: each step yields the work it did (characters searched over every view
 * built), so that a caller can give the event loop a turn; the result is the text's first `keep` characters, each
 * form replaced by ***. Only what is kept is searched, with a margin past the cut as long as a match can reach, so a
 * key cut at the edge is hidden whole.
 */
function* redactSteps(compiled: Compiled, text: string, keep: number): Generator<number, string, void> {
	const shortest = Math.min(compiled.every?.shortest ?? Infinity, compiled.hex?.shortest ?? Infinity);
	const kept = Math.min(keep, text.length);
	if (text.length < shortest) return kept === text.length ? text : text.slice(0, kept);
	const limit = Math.min(text.length, kept + compiled.reach + 1);
	const step = sliceChars(compiled);
	const ranges: Range[] = [];
	for (let from = 0; from < kept; from += step) {
		const found = slice(text, limit, compiled, from, Math.min(kept, from + step));
		for (const range of found.ranges) ranges.push(range);
		yield found.work;
	}
	return replaceRanges(text, ranges, kept);
}

/** Characters that may start an escape or a line break: where a view other than the text itself could differ. */
const VIEW_STARTERS = /[%\\&+\r\n]/;

/** Hex digits in a text (a short one). */
function hexDigits(text: string): number {
	let count = 0;
	for (let index = 0; index < text.length; index++) if (hexDigit(text.charCodeAt(index)) >= 0) count++;
	return count;
}

/**
 * Whether a short text has no view but itself: no escape or line break could hide a form in it, and it holds too
 * few hex digits for a hex form (an id, a status, a time). The usual string of an answer: searched once.
 */
function plainShort(text: string, compiled: Compiled): boolean {
	if (text.length >= PRESCAN_FROM_CHARS || VIEW_STARTERS.test(text)) return false;
	return compiled.hex === undefined || hexDigits(text) < compiled.hex.shortest;
}

/** The ranges of the text itself where a form is found. */
function rangesOfText(text: string, compiled: Compiled): Range[] {
	const ranges: Range[] = [];
	if (compiled.every) rangesIn(identityView(text), compiled.every, 0, ranges);
	return ranges;
}

/** What one redaction costs the caller: the text's steps, to run at once or with a turn of the event loop between. */
export interface RedactionWork {
	/** Steps (each yields the work it did) ending with the first `keep` characters of the text, redacted. */
	steps(text: string, keep?: number): Generator<number, string, void>;
	/** The whole text redacted at once, and the work it took (for texts of one slice: see sliceChars). */
	now(text: string): { text: string; work: number };
	/** The value to output in place of a number that writes a key (compared as its text), or undefined. */
	number(value: number): string | undefined;
	/** Characters one slice searches: a text up to this long is one step. */
	sliceChars: number;
}

/** One compiled redaction per list of forms (a connection derives its list once), so redacting many strings is cheap. */
const compiledWork = new WeakMap<readonly string[], RedactionWork>();

/** The redaction of these forms, step by step (see RedactionWork). */
export function redactionWork(forms: readonly string[], options: { prescan?: boolean } = {}): RedactionWork {
	const known = options.prescan === false ? undefined : compiledWork.get(forms);
	if (known) return known;
	const compiled = compile(forms, options.prescan !== false);
	const shortest = Math.min(compiled.every?.shortest ?? Infinity, compiled.hex?.shortest ?? Infinity);
	const work: RedactionWork = {
		steps: (text, keep = text.length) => redactSteps(compiled, text, keep),
		now: (text) => {
			if (text.length < shortest) return { text, work: 1 };
			if (plainShort(text, compiled)) return { text: replaceRanges(text, rangesOfText(text, compiled), text.length), work: text.length };
			const steps = redactSteps(compiled, text, text.length);
			let done = 0;
			for (let next = steps.next(); ; next = steps.next()) {
				if (next.done === true) return { text: next.value, work: done };
				done += next.value;
			}
		},
		number: (value) => {
			const text = String(value);
			const redacted = text.length < shortest ? text : runAll(redactSteps(compiled, text, text.length));
			if (redacted !== text) return redacted;
			// A key of more digits than a double holds comes back from JSON.parse rounded: the same double is the key.
			return compiled.numbers.includes(value) ? '***' : undefined;
		},
		sliceChars: sliceChars(compiled),
	};
	if (options.prescan !== false) compiledWork.set(forms, work);
	return work;
}

/** Runs steps to their end at once. */
export function runAll<T>(steps: Generator<unknown, T, void>): T {
	for (;;) {
		const next = steps.next();
		if (next.done === true) return next.value;
	}
}

const compiled = new WeakMap<readonly string[], (text: string) => string>();

/**
 * A function replacing every form (any case, any encoding above) by ***, at once: for texts already bounded small
 * (errors, messages). Each search is an alternation of literal strings over the text and a bounded number of views
 * of it, each built in one pass, slice by slice: linear in the text whatever it holds. Long texts holding no form
 * (the usual case) are told apart by a cheaper search first.
 */
export function redactor(forms: readonly string[], options: { prescan?: boolean } = {}): (text: string) => string {
	const known = options.prescan === false ? undefined : compiled.get(forms);
	if (known) return known;
	const work = redactionWork(forms, options);
	const clean = (text: string): string => runAll(work.steps(text));
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
