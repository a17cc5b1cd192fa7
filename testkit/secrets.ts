/** The secrets check shared by the node tests: no key, token or Authorization value in anything a run leaves. */
import type { IDataObject } from 'n8n-workflow';

import type { CredentialsMap, RunNodeResult } from './engine';

/** Base64 of `text` inside any surrounding text, at each of the three alignments (the middle that never changes). */
function base64Middles(text: string): string[] {
	return [0, 1, 2].map((offset) => {
		const encoded = Buffer.from('#'.repeat(offset) + text).toString('base64');
		return encoded.slice(offset > 0 ? 4 : 0, Math.floor((offset + Buffer.byteLength(text)) / 3) * 4);
	});
}

/**
 * Every form a secret of these credentials can take on the wire or in an echo: the key, the Authorization value,
 * base64 of either (wherever it sits in an encoded text), URL-encoded, JSON- or HTML-escaped. Compared without case.
 */
export function secretForms(credentials: CredentialsMap): string[] {
	const forms = new Set<string>();
	for (const credential of Object.values(credentials)) {
		for (const field of ['token', 'password', 'headerSecret', 'apiKey', 'userApiKey']) {
			const value = credential[field];
			if (typeof value !== 'string') continue;
			const raw = value.trim() || value;
			for (const form of [raw, encodeURIComponent(raw), JSON.stringify(raw).slice(1, -1), raw.replace(/&/g, '&amp;').replace(/"/g, '&quot;')]) {
				forms.add(form);
			}
			for (const middle of base64Middles(raw)) forms.add(middle);
		}
		if (typeof credential.token === 'string') forms.add(`Bearer ${credential.token}`);
		if (typeof credential.password === 'string') {
			forms.add(Buffer.from(`${String(credential.user)}:${credential.password}`).toString('base64'));
		}
	}
	return [...forms].filter((form) => form.length >= 6).map((form) => form.toLowerCase());
}

/**
 * Fails when a run's data, output or error (message, description, stack, cause) holds any form of a secret of the
 * given credentials: pass those the node could use.
 */
export function expectNoSecrets(result: RunNodeResult, credentials: CredentialsMap): void {
	const error = result.error as (Error & IDataObject) | undefined;
	const serialized = [
		JSON.stringify(result.run),
		JSON.stringify(result.json),
		error ? JSON.stringify(error, Object.getOwnPropertyNames(error)) : '',
		String(error?.stack ?? ''),
		JSON.stringify(error?.cause ?? null),
	]
		.join('\n')
		.toLowerCase();
	for (const secret of secretForms(credentials)) expect(serialized).not.toContain(secret);
}
