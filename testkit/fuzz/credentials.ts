/** The fuzz runs' credentials, every variant, and the search for their keys, which must never leave home. */
import type { IDataObject } from 'n8n-workflow';

import type { CredentialsMap } from '../engine';
import { secretForms, secretSearch } from '../secrets';
import type { Variant } from './scenario';

/**
 * Keys with every character an escape changes (`& < > " ' + / %`), so that each escaped echo differs from the raw
 * key; `>>>` and `???` put a `+` and a `/` into their base64 at every alignment (Basic's `alice:` prefix included).
 */
const SYMBOLS = `>>>???&<"'+/%`;

/**
 * The relay's user key is digits only: a service echoing it as a JSON number (echoLog) shows it in a value that is
 * no string (issue 33). Fifteen digits, so the number reads back as the key and the secrets check can see it.
 */
const DIGITS_KEY = '739140526182736';

/** Credentials of every variant: a secret of any of them is checked everywhere. */
export function credentialsFor(url: string): Record<Variant, CredentialsMap> {
	const native = (extra: IDataObject) => ({ jobExecutionApi: { baseUrl: url, ...extra } }) as CredentialsMap;
	return {
		// Keys as users paste them (issue 47): white space around a header key, sent and hidden trimmed.
		bearer: native({ authType: 'bearerToken', token: ` fz-token${SYMBOLS}7e1d9a4c\t` }),
		basic: native({ authType: 'basicAuth', user: 'alice', password: `fz-pass${SYMBOLS}3c5b8f2e` }),
		header: native({ authType: 'headerAuth', headerName: 'X-Api-Secret', headerSecret: `fz-header${SYMBOLS}9f2e4c1b  ` }),
		relay: { jobExecutionRelayApi: { relayUrl: url, apiKey: `fz-relay${SYMBOLS}5a7c1e3d`, userApiKey: DIGITS_KEY } },
	};
}

/**
 * Every variant's credential under its own name: the three native ones share a credential type, so merging the
 * maps by type would keep only the last, and the search would look for its keys alone.
 */
function everyCredential(url: string): CredentialsMap {
	const all = credentialsFor(url);
	return Object.fromEntries(Object.entries(all).map(([variant, map]) => [variant, Object.values(map)[0]]));
}

/** Every literal form of every key, lower case (for reports that hide them). */
export function allSecretForms(url: string): string[] {
	return secretForms(everyCredential(url));
}

/** Whether a text holds any key in any form the redactor claims to catch, decoded as testkit/secrets.ts does. */
export function anySecretShown(url: string): (text: string) => boolean {
	const search = secretSearch(everyCredential(url));
	return (text) => search(text) !== undefined;
}
