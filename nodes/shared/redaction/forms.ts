/**
 * The forms of the model (index.ts) derived from the strings to hide (keys.ts): each key as a token, with its own
 * readings (a key holding `%41` or a line break shows read); base64 (standard and URL-safe) of the key, of its URL-
 * and of its form-encoded form at each alignment, with their readings, anywhere; and the key's hex, anywhere.
 */
import { Kind } from './automaton';
import type { Form } from './automaton';
import { MIN_ENCODED_LENGTH } from './keys';
import { Decode, readThrough, Unwrap } from './readings';

/**
 * The part of base64 that is the same whatever text surrounds the key: one core per alignment of the key in the
 * encoded text (its offset modulo 3), standard and URL-safe, so `Bearer <token>`, `user:<password>` or a whole
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

/** A form and what one and two readings make of it (a form holding text that reads as an escape shows read). */
function withReadings(form: string, plusIsSpace: boolean): string[] {
	const read = (text: string) => readThrough(text, [new Unwrap(), new Decode(plusIsSpace)]);
	const once = read(form);
	return [...new Set([form, once, read(once)])].filter((text, index) => index === 0 || text.length >= MIN_ENCODED_LENGTH);
}

/** The forms compiled for the search, and what the search needs to know of them. */
export interface ModelForms {
	forms: Form[];
	/** `+` reads as a space (form encoding) only when a key holds one. */
	plusIsSpace: boolean;
	/** Digits-only keys: a number whose value they write is one of them. */
	numbers: number[];
}

/** Every form of the strings to hide (see the top of this file). */
export function modelForms(secrets: readonly string[]): ModelForms {
	const plusIsSpace = secrets.some((secret) => secret.includes(' '));
	const forms: Form[] = [];
	for (const secret of secrets) {
		// The key, and as it travels in a URL or a form body (read back, unless it holds what escapes do not decode).
		for (const token of [secret, ...urlEncodings(secret)]) for (const text of withReadings(token, plusIsSpace)) forms.push({ text, kind: Kind.Token });
		for (const core of [secret, ...urlEncodings(secret)].flatMap(base64Cores)) {
			for (const text of withReadings(core, plusIsSpace)) forms.push({ text, kind: Kind.Anywhere });
		}
		const hex = Buffer.from(secret, 'utf8').toString('hex');
		if (hex.length >= MIN_ENCODED_LENGTH) forms.push({ text: hex, kind: Kind.Hex });
	}
	const numbers = secrets.filter((secret) => /^[1-9][0-9]*$/.test(secret)).map(Number);
	return { forms, plusIsSpace, numbers };
}
