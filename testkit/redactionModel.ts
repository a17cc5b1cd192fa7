/**
 * Texts drawn from the redaction model's own words (docs/guarantees.md, "What redaction hides: the model"), not from
 * the redactor's code: a key from the stated alphabet and lengths, one of its forms (the key, its header line, URL-
 * or form-encoded; base64 of the key, of its URL- or form-encoded form, at an alignment, either alphabet; hex, plain
 * or as a dump), then up to two readings undone (each: one layer of an escape kind written, then lone line breaks
 * written into it, anywhere, inside an escape too), neighbours, and a place in a long answer. Used by
 * test/unit/redactionModel.property.test.ts (a fixed budget) and test/soak/redactionModel.soak.test.ts (longer).
 */
import fc from 'fast-check';

import { redactionWork, runAll, secretForms, STEP_CHARS } from '../nodes/shared/redaction';
import { secretSearch } from './secrets';

/** The alphabet keys are drawn from: letters, digits and `& < > " ' + / % - _ . ~ ?` (a key is at least 8 long). */
export const KEY_ALPHABET = `0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz&<>"'+/%-_.~?`;

/** Text of the alphabet that reads as an escape: a key may hold it (the model searches it as the readings make it). */
const ESCAPE_LIKE = ['%41', '%2B', '%25', '&lt;', '&amp;', '&#65;', '%u0041'];

export function keyArbitrary(maxLength = 40): fc.Arbitrary<string> {
	const unit = fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...KEY_ALPHABET) }, { weight: 1, arbitrary: fc.constantFrom(...ESCAPE_LIKE) });
	return fc
		.array(unit, { minLength: 8, maxLength })
		.map((units) => units.join(''))
		.filter((key) => key.length >= 8 && key.length <= maxLength + 6);
}

/** The escape kinds the model decodes, each as an encoder of one character. */
export const ESCAPE_KINDS = ['percent', 'percentUnicode', 'jsonUnicode', 'cHex', 'jsonShort', 'htmlNamed', 'htmlDecimal', 'htmlHex'] as const;
export type EscapeKind = (typeof ESCAPE_KINDS)[number];

const hex = (code: number, digits: number) => code.toString(16).padStart(digits, '0');
const HTML_NAMES: Record<string, string> = { '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' };
const JSON_SHORT: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', '\n': 'n', '\r': 'r', '\t': 't' };
/** Characters each kind's encoder always escapes (its own escape character, as a real one does); others it may leave. */
const ALWAYS_ESCAPED: Record<EscapeKind, RegExp> = {
	percent: /%/,
	percentUnicode: /%/,
	jsonUnicode: /[\\"]/,
	cHex: /\\/,
	jsonShort: /[\\"]/,
	htmlNamed: /[&<>"]/,
	htmlDecimal: /[&<>"]/,
	htmlHex: /[&<>"]/,
};

/** One character written as an escape of this kind (a kind with no escape for it writes another kind's), `upper`: hex digits in upper case. */
export function escapeChar(c: string, kind: EscapeKind, upper: boolean, zeros: number): string {
	const code = c.charCodeAt(0);
	const digits = (text: string) => (upper ? text.toUpperCase() : text);
	switch (kind) {
		case 'percent':
			return `%${digits(hex(code, 2))}`;
		case 'percentUnicode':
			return `%u${digits(hex(code, 4))}`;
		case 'jsonUnicode':
			return `\\${upper ? 'U' : 'u'}${digits(hex(code, 4))}`;
		case 'cHex':
			return `\\${upper ? 'X' : 'x'}${digits(hex(code, 2))}`;
		case 'jsonShort':
			return JSON_SHORT[c] === undefined ? `\\u${hex(code, 4)}` : `\\${JSON_SHORT[c]}`;
		case 'htmlNamed':
			return HTML_NAMES[c] === undefined ? `&#${code};` : `&${upper ? HTML_NAMES[c].toUpperCase() : HTML_NAMES[c]};`;
		case 'htmlDecimal':
			// Up to five digits, leading zeros included.
			return `&#${String(code).padStart(Math.min(5, String(code).length + zeros), '0')};`;
		case 'htmlHex':
			return `&#${upper ? 'X' : 'x'}${digits(hex(code, Math.min(4, hex(code, 1).length + zeros)))};`;
	}
}

/** One layer of escapes: each character chosen (and every one the kind's encoder must escape) written as `kind`. */
export interface EscapeLayer {
	kind: EscapeKind;
	/** Per character, whether it is escaped (cycled). */
	chosen: boolean[];
	upper: boolean;
	zeros: number;
}

export function escapeLayer(text: string, layer: EscapeLayer): string {
	return [...text]
		.map((c, at) => (ALWAYS_ESCAPED[layer.kind].test(c) || layer.chosen[at % layer.chosen.length] ? escapeChar(c, layer.kind, layer.upper, layer.zeros) : c))
		.join('');
}

/** Lone line breaks written into a text: at each place (a fraction of its length), LF, CR or CRLF; never two together. */
export interface Wrap {
	at: number[];
	lineBreak: '\n' | '\r' | '\r\n';
}

export function wrapText(text: string, wrap: Wrap): string {
	const places = [...new Set(wrap.at.map((fraction) => 1 + Math.floor(fraction * Math.max(0, text.length - 1))))].sort((a, b) => a - b);
	let out = '';
	let last = 0;
	for (const place of places) {
		if (place <= last || place >= text.length) continue;
		// Not next to a line break already there: that would be a blank line, which the model keeps.
		if (/[\r\n]/.test(text[place - 1]) || /[\r\n]/.test(text[place])) continue;
		out += text.slice(last, place) + wrap.lineBreak;
		last = place;
	}
	return out + text.slice(last);
}

/** One reading undone: an escape layer written (or none), then line breaks written into it (or none). */
export interface Unreading {
	escape?: EscapeLayer;
	wrap?: Wrap;
}

export function unread(text: string, unreading: Unreading): string {
	const escaped = unreading.escape ? escapeLayer(text, unreading.escape) : text;
	return unreading.wrap ? wrapText(escaped, unreading.wrap) : escaped;
}

/** What the key becomes before any reading: a form of the model. */
export type Form =
	| { kind: 'key' }
	| { kind: 'headerLine'; name: string }
	| { kind: 'urlEncoded' }
	| { kind: 'formEncoded' }
	| { kind: 'base64'; of: 'key' | 'urlEncoded' | 'formEncoded'; offset: number; urlSafe: boolean }
	| { kind: 'hex'; style: 'plain' | 'xxd' | 'hexdumpC' | ' ' | ':' | '-' | '.'; upper: boolean; indent: number };

/** Whether a form is matched as a token (its neighbours must not be letters or digits touching it). */
export function isToken(form: Form): boolean {
	return form.kind === 'key' || form.kind === 'headerLine' || form.kind === 'urlEncoded' || form.kind === 'formEncoded';
}

function base64(text: string, offset: number, urlSafe: boolean): string {
	const encoded = Buffer.from(`${'#'.repeat(offset)}${text}`).toString('base64');
	return urlSafe ? encoded.replace(/\+/g, '-').replace(/\//g, '_') : encoded;
}

const printable = (byte: number) => (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : '.');

function dump(bytes: Buffer, style: 'xxd' | 'hexdumpC', upper: boolean, indent: number): string {
	const lines: string[] = [];
	for (let at = 0; at < bytes.length; at += 16) {
		const row = bytes.subarray(at, at + 16);
		const digits = upper ? row.toString('hex').toUpperCase() : row.toString('hex');
		const ascii = [...row].map(printable).join('');
		const line =
			style === 'xxd'
				? `${hex(at, 8)}: ${digits.replace(/(.{4})(?=.)/g, '$1 ').padEnd(39)}  ${ascii}`
				: `${hex(at, 8)}  ${digits.replace(/(..)(?=.)/g, '$1 ').padEnd(47)}  |${ascii}|`;
		lines.push(`${' '.repeat(indent)}${line}`);
	}
	return lines.join('\n');
}

/** The form of the key (`around`: what the form's line holds before and after the key, for base64 and dumps). */
export function formOf(key: string, form: Form): string {
	switch (form.kind) {
		case 'key':
			return key;
		case 'headerLine':
			return `${form.name}: ${key}`;
		case 'urlEncoded':
			return encodeURIComponent(key);
		case 'formEncoded':
			return new URLSearchParams({ k: key }).toString().slice(2);
		case 'base64': {
			const text = form.of === 'key' ? key : form.of === 'urlEncoded' ? encodeURIComponent(key) : new URLSearchParams({ k: key }).toString().slice(2);
			return base64(`${text} ;`, form.offset, form.urlSafe);
		}
		case 'hex': {
			const bytes = Buffer.from(`${key}; `);
			if (form.style === 'xxd' || form.style === 'hexdumpC') return dump(bytes, form.style, form.upper, form.indent);
			const digits = form.upper ? bytes.toString('hex').toUpperCase() : bytes.toString('hex');
			return form.style === 'plain' ? digits : (digits.match(/../g) ?? []).join(form.style);
		}
	}
}

export function formArbitrary(): fc.Arbitrary<Form> {
	return fc.oneof(
		{ weight: 2, arbitrary: fc.constant<Form>({ kind: 'key' }) },
		{ weight: 2, arbitrary: fc.constantFrom('Authorization: Bearer', 'X-Api-Secret', 'apiKey', 'user-api-key').map((name): Form => ({ kind: 'headerLine', name })) },
		{ weight: 1, arbitrary: fc.constant<Form>({ kind: 'urlEncoded' }) },
		{ weight: 1, arbitrary: fc.constant<Form>({ kind: 'formEncoded' }) },
		{
			weight: 3,
			arbitrary: fc
				.record({ of: fc.constantFrom('key' as const, 'urlEncoded' as const, 'formEncoded' as const), offset: fc.integer({ min: 0, max: 2 }), urlSafe: fc.boolean() })
				.map((base): Form => ({ kind: 'base64', ...base })),
		},
		{
			weight: 3,
			arbitrary: fc
				.record({ style: fc.constantFrom('plain' as const, 'xxd' as const, 'hexdumpC' as const, ' ' as const, ':' as const, '-' as const, '.' as const), upper: fc.boolean(), indent: fc.constantFrom(0, 0, 2, 4, 9) })
				.map((dumped): Form => ({ kind: 'hex', ...dumped })),
		},
	);
}

export function escapeArbitrary(): fc.Arbitrary<EscapeLayer> {
	return fc.record({
		kind: fc.constantFrom(...ESCAPE_KINDS),
		chosen: fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }),
		upper: fc.boolean(),
		zeros: fc.integer({ min: 0, max: 3 }),
	});
}

export function wrapArbitrary(): fc.Arbitrary<Wrap> {
	return fc.record({ at: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 3 }), lineBreak: fc.constantFrom('\n' as const, '\r' as const, '\r\n' as const) });
}

/** Up to two readings undone, innermost first. */
export function unreadingsArbitrary(): fc.Arbitrary<Unreading[]> {
	return fc.array(fc.record({ escape: fc.option(escapeArbitrary(), { nil: undefined }), wrap: fc.option(wrapArbitrary(), { nil: undefined }) }), { maxLength: 2 });
}

/**
 * What may sit right before and after a form. Next to a token: no letter or digit touching it (a line break may,
 * then anything); next to base64 or hex: anything (letters and digits too).
 */
export function neighbourArbitrary(token: boolean, side: 'before' | 'after'): fc.Arbitrary<string> {
	// An escape's own character, escaped (`%25`, `%5C`, `&amp;`): read once it starts an escape with the key's first characters.
	// Nothing at all too: the text is then exactly the key, or exactly its form.
	const apart = fc.constantFrom('', ' ', '"', ';', '(', ')', ',', '\t', '=', '[', ']', '%20', '\\n', '&amp;', '&lt;', ...(side === 'before' ? ['%25', '%5C'] : []));
	const broken = fc.tuple(fc.constantFrom('\n', '\r\n'), fc.constantFrom('X-Next: 1', 'a', '7', 'accept: */*', ''));
	const touching = fc.constantFrom('a', 'Z', '7', 'x9', 'ab');
	const nextLine = broken.map(([lineBreak, text]) => (side === 'before' ? `${text}${lineBreak}` : `${lineBreak}${text}`));
	return token ? fc.oneof(apart, nextLine) : fc.oneof(apart, touching, nextLine);
}

/** A case drawn whole: a key (and a second one beside it), its form, the readings undone, neighbours and a place. */
export interface ModelCase {
	key: string;
	other: string;
	form: Form;
	unreadings: Unreading[];
	before: string;
	after: string;
	/** Where the form sits in a long answer: nowhere (a short text), across a step's edge, or across the cut. */
	place: { kind: 'short' } | { kind: 'step' | 'cut'; shift: number };
}

/** Layers of escapes a form holds of its own: URL- or form-encoded, and a key holding an escape's text, one each. */
export function ownLayers(key: string, form: Form): number {
	const encoded = form.kind === 'urlEncoded' || form.kind === 'formEncoded' ? 1 : 0;
	return encoded + (isToken(form) && ESCAPE_LIKE.some((text) => key.includes(text)) ? 1 : 0);
}

/** Two layers of escapes in all (the model's depth): a form's own layers count, and escape layers past them are dropped. */
function withinDepth(key: string, form: Form, unreadings: Unreading[]): Unreading[] {
	let left = 2 - ownLayers(key, form);
	return unreadings.map((unreading) => {
		if (unreading.escape === undefined) return unreading;
		if (left-- > 0) return unreading;
		return { wrap: unreading.wrap };
	});
}

/**
 * An escaped escape character before a form (`%25`, `%5C`) is read once as the escape character itself; where the form
 * holds escape readings of its own, the next reading pairs it with the form's first characters (a `%` with two hex
 * digits of a dump, a `\\` with the form's backslash), so the whole key is there only one reading later, past the
 * model's depth (soak tier, seed 4748: paths 6746:142 and 7985:362:1). Those neighbours stand before forms without
 * escape readings, where the model reads them in the text as it came.
 */
function withinDepthNeighbour(before: string, unreadings: Unreading[]): string {
	const escapes = unreadings.some((unreading) => unreading.escape !== undefined);
	return (before === '%5C' || before === '%25') && escapes ? '' : before;
}

export function modelCaseArbitrary(maxKeyLength = 40): fc.Arbitrary<ModelCase> {
	const drawn = fc.record({ key: keyArbitrary(maxKeyLength), other: keyArbitrary(maxKeyLength), form: formArbitrary(), unreadings: unreadingsArbitrary() });
	return drawn.map((item) => ({ ...item, unreadings: withinDepth(item.key, item.form, item.unreadings) })).chain((drawn) =>
		fc.record({
			key: fc.constant(drawn.key),
			other: fc.constant(drawn.other),
			form: fc.constant(drawn.form),
			unreadings: fc.constant(drawn.unreadings),
			before: neighbourArbitrary(isToken(drawn.form), 'before').map((before) => withinDepthNeighbour(before, drawn.unreadings)),
			after: neighbourArbitrary(isToken(drawn.form), 'after'),
			place: fc.oneof(
				{ weight: 2, arbitrary: fc.constant({ kind: 'short' as const }) },
				// Characters of the form before the edge: any of them (an escape or a line break may straddle it).
				fc.record({ kind: fc.constantFrom('step' as const, 'cut' as const), shift: fc.nat({ max: 4095 }) }),
			),
		}),
	);
}

/** The text a case draws: the form with its readings undone, between its neighbours (and the other key, apart). */
export function echoOf(item: ModelCase): string {
	let text = formOf(item.key, item.form);
	for (const unreading of item.unreadings) text = unread(text, unreading);
	return `${item.before}${text}${item.after}`;
}

/** Ordinary data a job answer holds: ids, times, statuses, log lines without keys. */
export function ordinaryArbitrary(): fc.Arbitrary<string> {
	const time = fc.date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2026-12-31T23:59:59Z'), noInvalidDate: true }).map((date) => date.toISOString());
	const status = fc.constantFrom('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED');
	const log = fc
		.tuple(time, fc.constantFrom('INFO', 'WARN', 'ERROR'), fc.constantFrom('step', 'flow', 'row'), fc.nat({ max: 99999 }), fc.uuid())
		.map(([at, level, word, count, id]) => `${at} [main] ${level} ${word} ${count} of job ${id} done in ${count % 977} ms`);
	return fc.oneof(fc.uuid(), time, status, log, fc.nat().map(String));
}

/** The seed the generated tests start from (a failure prints its own seed and path to replay it). */
export const MODEL_SEED = 4747;

/** The credential a case's two keys make: two keys (bearer, header, relay), a Basic pair, or Basic with the key as the user. */
function credentialOf(item: ModelCase, kind: number): { forms: string[]; check: Record<string, string>; key: string } {
	if (kind === 1) return { forms: secretForms([item.other], { user: item.key, password: '' }), check: { authType: 'basicAuth', user: item.key, password: '', token: item.other }, key: item.key };
	return { forms: secretForms([item.key, item.other]), check: { token: item.key, apiKey: item.other }, key: item.key };
}

/**
 * Ordinary filler of a long answer: letters, digits and spaces, no escape, no key. Across a step's edge with line
 * breaks, across the cut without, so that the text needs no reading but those its form brings.
 */
const FILLER = { step: 'lorem ipsum 2026 dolor\n', cut: 'lorem ipsum 2026 dolor ' };

/** The case's text, placed in a long answer when it asks: returns the text and what of it is kept. */
function placed(item: ModelCase): { text: string; keep: number; from: number } {
	const echo = echoOf(item);
	if (item.place.kind === 'short') return { text: echo, keep: echo.length, from: 0 };
	// Across a step's edge, or across the cut (what is kept of a string ends there: MAX_STRING_CHARS in an answer).
	const from = STEP_CHARS - (item.place.shift % (echo.length + 1));
	// A space on each side: the filler's letters may not touch a key drawn with no neighbour.
	const filler = FILLER[item.place.kind];
	const text = `${filler.repeat(Math.ceil(from / filler.length)).slice(0, from - 1)} ${echo} ${filler.repeat(4)}`;
	return { text, keep: item.place.kind === 'cut' ? STEP_CHARS : text.length, from };
}

/** Why a case fails, or undefined: the key shows in the output read back, or the echo is left whole. */
export function modelFailure(item: ModelCase, kind: number): string | undefined {
	const credential = credentialOf(item, kind);
	const { text, keep, from } = placed(item);
	const work = redactionWork(credential.forms);
	const whole = runAll(work.steps(text));
	const echo = echoOf(item);
	const search = secretSearch({ c: credential.check });
	const near = whole.slice(Math.max(0, from - 64));
	const found = search(near);
	if (found !== undefined) return `the key shows in the output as ${found}: ${JSON.stringify(near.slice(0, 400))}`;
	if (whole.includes(echo)) return `the echo is left whole: ${JSON.stringify(echo.slice(0, 400))}`;
	// Cut: only what is kept is read, and a key across the cut is hidden whole, so the cut output begins the whole one.
	const cut = runAll(work.steps(text, keep));
	if (!whole.startsWith(cut)) return `the cut at ${keep} shows what the whole hides: ${JSON.stringify(cut.slice(Math.max(0, from - 64)))}`;
	return undefined;
}
