/** The secrets check shared by the node tests: no key, token or Authorization value in anything a run leaves. */
import type { IDataObject } from 'n8n-workflow';

import type { CredentialsMap, RunNodeResult } from './engine';

/** Every form a secret of these credentials can take on the wire (the key, the Authorization value). */
function secretForms(credentials: CredentialsMap): string[] {
	const forms = new Set<string>();
	for (const credential of Object.values(credentials)) {
		for (const field of ['token', 'password', 'headerSecret', 'apiKey', 'userApiKey']) {
			const value = credential[field];
			if (typeof value === 'string') forms.add(value.trim() || value);
		}
		if (typeof credential.token === 'string') forms.add(`Bearer ${credential.token}`);
		if (typeof credential.password === 'string') {
			forms.add(Buffer.from(`${String(credential.user)}:${credential.password}`).toString('base64'));
		}
	}
	return [...forms].filter((form) => form.length >= 3);
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
	].join('\n');
	for (const secret of secretForms(credentials)) expect(serialized).not.toContain(secret);
}
