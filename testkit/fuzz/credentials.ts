/** The fuzz runs' credentials, every variant, and every form of their keys that must never leave home. */
import type { IDataObject } from 'n8n-workflow';

import { secretForms as redactionForms } from '../../nodes/shared/redaction';
import type { CredentialsMap } from '../engine';
import { secretForms as testForms } from '../secrets';
import type { Variant } from './scenario';

/** Credentials of every variant: a secret of any of them is checked everywhere. */
export function credentialsFor(url: string): Record<Variant, CredentialsMap> {
	const native = (extra: IDataObject) => ({ jobExecutionApi: { baseUrl: url, ...extra } }) as CredentialsMap;
	return {
		bearer: native({ authType: 'bearerToken', token: 'fuzz-token-7e1d9a4c' }),
		basic: native({ authType: 'basicAuth', user: 'alice', password: 'fuzz-pass-3c5b8f2e' }),
		header: native({ authType: 'headerAuth', headerName: 'X-Api-Secret', headerSecret: 'fuzz-header-9f2e4c1b' }),
		relay: { jobExecutionRelayApi: { relayUrl: url, apiKey: 'fuzz-relay-5a7c1e3d', userApiKey: 'fuzz-user-2b8d6f0a' } },
	};
}

/** Every form of every key, lower case: the test kit's list and the nodes' own redaction list together. */
export function allSecretForms(url: string): string[] {
	const all = credentialsFor(url);
	const forms = new Set(testForms({ ...all.bearer, ...all.basic, ...all.header, ...all.relay }));
	for (const credential of Object.values(all).flatMap((map) => Object.values(map))) {
		const values = ['token', 'password', 'headerSecret', 'apiKey', 'userApiKey'].map((field) => credential[field]).filter((value): value is string => typeof value === 'string');
		const basic = typeof credential.password === 'string' ? { user: String(credential.user), password: credential.password } : undefined;
		for (const form of redactionForms(values, basic)) if (form.length >= 6) forms.add(form.toLowerCase());
	}
	return [...forms];
}
