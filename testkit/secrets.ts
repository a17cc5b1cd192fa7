/**
 * The secrets check shared by the node tests and the fuzzer: no key, token or Authorization value in anything a run
 * leaves, in any form the redactor claims to catch. Written apart from nodes/shared/redaction/ (decoding one
 * escape kind at a time, where the redactor decodes them all in one pass), so that a form it drops shows here.
 */
import type { IDataObject } from 'n8n-workflow';

import type { CredentialsMap, RunNodeResult } from './engine';

const SECRET_FIELDS = ['token', 'password', 'headerSecret', 'apiKey', 'userApiKey'];

/** Base64 (standard and URL-safe) of `text` inside any surrounding text, at each of the three alignments. */
function base64Middles(text: string): string[] {
	return [0, 1, 2].flatMap((offset) => {
		const encoded = Buffer.from('#'.repeat(offset) + text).toString('base64');
		const middle = encoded.slice(offset > 0 ? 4 : 0, Math.floor((offset + Buffer.byteLength(text)) / 3) * 4);
		return [middle, middle.replace(/\+/g, '-').replace(/\//g, '_')];
	});
}

/**
 * What a credential sends that must never show: each key (as typed and trimmed: header keys are sent trimmed),
 * `Bearer <token>`, `user:password` and its base64; with Basic and an empty password, the user is the key.
 */
function plainSecrets(credentials: CredentialsMap): string[] {
	const plain: string[] = [];
	for (const credential of Object.values(credentials)) {
		for (const field of SECRET_FIELDS) {
			const value = credential[field];
			if (typeof value === 'string' && value.trim() !== '') plain.push(value, value.trim());
		}
		if (typeof credential.token === 'string') plain.push(`Bearer ${credential.token.trim()}`);
		const emptyPassword = credential.authType === 'basicAuth' && (credential.password === '' || credential.password === undefined);
		if (emptyPassword && typeof credential.user === 'string' && credential.user !== '') plain.push(credential.user);
		if ((typeof credential.password === 'string' && credential.password !== '') || (emptyPassword && credential.user)) {
			const pair = `${String(credential.user)}:${String(credential.password ?? '')}`;
			plain.push(pair, Buffer.from(pair).toString('base64').replace(/=+$/, ''));
		}
	}
	return plain.filter((secret) => secret.trim() !== '');
}

/**
 * Every literal form a secret of these credentials can take on the wire or in an echo: the key, the Authorization
 * value, base64 of either (wherever it sits in an encoded text, both alphabets), hex, URL-encoded, JSON- or
 * HTML-escaped. Lower case; forms shorter than 6 characters are left out. `secretShown` also decodes the text.
 */
export function secretForms(credentials: CredentialsMap): string[] {
	const forms = new Set<string>();
	// A key holding text that looks like an escape (`%7e`) shows in a decoded reading decoded: those are forms too.
	const plain = plainSecrets(credentials).flatMap((raw) => [raw, decodeLayer(raw), decodeLayer(decodeLayer(raw))]);
	for (const raw of new Set(plain)) {
		const html = raw.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
		for (const form of [raw, encodeURIComponent(raw), JSON.stringify(raw).slice(1, -1), html, Buffer.from(raw).toString('hex')]) forms.add(form);
		// Base64 of the key as it travels in a URL or a form body too (a service that base64s an encoded header line).
		const encoded = [raw, encodeURIComponent(raw), new URLSearchParams({ k: raw }).toString().slice(2)];
		for (const middle of encoded.flatMap(base64Middles)) forms.add(middle);
	}
	return [...forms].filter((form) => form.length >= 6).map((form) => form.toLowerCase());
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const SHORT: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };

/** One layer of each escape kind, one kind after the other. */
function decodeLayer(text: string): string {
	return text
		.replace(/%u([0-9a-f]{4})/gi, (_all, hex: string) => String.fromCharCode(parseInt(hex, 16)))
		.replace(/%([0-9a-f]{2})/gi, (_all, hex: string) => String.fromCharCode(parseInt(hex, 16)))
		.replace(/\\u([0-9a-f]{4})/gi, (_all, hex: string) => String.fromCharCode(parseInt(hex, 16)))
		.replace(/\\x([0-9a-f]{2})/gi, (_all, hex: string) => String.fromCharCode(parseInt(hex, 16)))
		.replace(/\\(["\\/'bfnrt])/g, (_all, c: string) => SHORT[c] ?? c)
		.replace(/&#x([0-9a-f]{1,6});/gi, (all, hex: string) => (parseInt(hex, 16) <= 0x10ffff ? String.fromCodePoint(parseInt(hex, 16)) : all))
		.replace(/&#(\d{1,7});/g, (all, dec: string) => (Number(dec) <= 0x10ffff ? String.fromCodePoint(Number(dec)) : all))
		.replace(/&(amp|lt|gt|quot|apos|nbsp);/gi, (all, name: string) => NAMED[name.toLowerCase()] ?? all);
}

/**
 * Hex dumps read back as hex: each `xxd` or `hexdump -C` line (indented or not) reduced to its bytes (offset and ASCII column
 * dropped), lines joined, and every separator between bytes (space, colon, dash, dot) dropped.
 */
function dumpReading(text: string): string {
	const lines = text.split(/\r?\n/).map((line) => {
		// A dump may be indented (a log quoting it).
		const xxd = /^[ \t]*[0-9a-f]{8}: ((?:[0-9a-f]{2,4} ?)+)/i.exec(line);
		if (xxd) return xxd[1];
		const hexdump = /^[ \t]*[0-9a-f]{8} {2}((?:[0-9a-f]{2} {1,2})+)/i.exec(line);
		return hexdump ? hexdump[1] : line;
	});
	return lines.join('').replace(/[ :.-]/g, '');
}

/**
 * The text as it is and read up to three times, each time decoded one layer, with and without its line breaks
 * dropped first (a wrap inside an escape), and when a key holds a space with `+` read as a space (form encoding);
 * each reading also as a hex dump's bytes. Lower case.
 */
function readings(text: string, spaced: boolean): string[] {
	const unwrap = (layer: string) => layer.replace(/[\r\n]/g, '');
	let layers = new Set<string>([text]);
	const all = new Set<string>([text]);
	for (let round = 0; round < 3; round++) {
		const next = new Set<string>();
		for (const layer of layers) {
			for (const read of /[\r\n]/.test(layer) ? [decodeLayer(layer), decodeLayer(unwrap(layer))] : [decodeLayer(layer)]) if (!all.has(read)) next.add(read);
		}
		for (const read of next) all.add(read);
		layers = next;
		if (next.size === 0) break;
	}
	const found = new Set<string>();
	for (const layer of all) {
		for (const reading of [layer, unwrap(layer), dumpReading(layer)]) found.add(reading.toLowerCase());
		if (spaced && layer.includes('+')) found.add(layer.replace(/\+/g, ' ').toLowerCase());
	}
	return [...found];
}

/**
 * A search of texts for any secret of these credentials, in any form and any encoding the redactor claims to catch:
 * the form found (lower case), or undefined.
 */
export function secretSearch(credentials: CredentialsMap): (text: string) => string | undefined {
	const forms = secretForms(credentials);
	const spaced = Object.values(credentials).some((credential) => SECRET_FIELDS.some((field) => String(credential[field] ?? '').includes(' ')));
	return (text) => {
		for (const reading of readings(text, spaced)) {
			const found = forms.find((form) => reading.includes(form));
			if (found !== undefined) return found;
		}
		return undefined;
	};
}

/**
 * Fails when a run's data, output or error (message, description, stack, cause) holds any form of a secret of the
 * given credentials: pass those the node could use.
 */
export function expectNoSecrets(result: RunNodeResult, credentials: CredentialsMap): void {
	const error = result.error as (Error & IDataObject) | undefined;
	// The run holds the output items (result.json is their json, the same objects): each is searched once.
	const serialized = [
		JSON.stringify(result.run),
		error ? JSON.stringify(error, Object.getOwnPropertyNames(error)) : '',
		String(error?.stack ?? ''),
		JSON.stringify(error?.cause ?? null),
	].join('\n');
	const found = secretSearch(credentials)(serialized);
	expect(found === undefined ? 'no secret shows' : `a form of a secret shows in the run: ${found}`).toBe('no secret shows');
}
