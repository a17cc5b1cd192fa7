/**
 * The two credential types the transport serves, and the checks of what a credential holds before anything is sent:
 * the service URL (what users paste, normalised) and secrets that can travel in HTTP headers.
 */

export const NATIVE_CREDENTIAL = 'jobExecutionApi';
export const RELAY_CREDENTIAL = 'jobExecutionRelayApi';
export type CredentialType = typeof NATIVE_CREDENTIAL | typeof RELAY_CREDENTIAL;

/** The credential field that holds the service's address, as messages name it. */
export function urlFieldLabel(credentialType: CredentialType): string {
	return credentialType === RELAY_CREDENTIAL ? 'Relay URL' : 'Base URL';
}

/**
 * Accepts what users paste: surrounding spaces, a trailing slash, the /api/v1 (native) or /call (relay) suffix.
 * Returns the normalised URL, or the reason it cannot be used.
 */
export function normalizeServiceUrl(
	raw: unknown,
	credentialType: CredentialType,
): { url: string; problem?: undefined } | { url?: undefined; problem: string } {
	const text = typeof raw === 'string' ? raw.trim() : '';
	const field = urlFieldLabel(credentialType);
	if (text === '') return { problem: `The credential's ${field} is empty` };
	if (!URL.canParse(text)) {
		return { problem: `The credential's ${field} "${text}" is not a valid URL: it must start with http:// or https://` };
	}
	const url = new URL(text);
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		return { problem: `The credential's ${field} must start with http:// or https://` };
	}
	if (url.username || url.password) {
		return { problem: `The credential's ${field} must not contain a user or password: use the authentication fields` };
	}
	if (url.search || url.hash) return { problem: `The credential's ${field} must not contain ? or #` };
	const suffix = credentialType === RELAY_CREDENTIAL ? /\/call$/i : /\/api\/v1$/i;
	const path = url.pathname.replace(/\/+$/, '').replace(suffix, '');
	return { url: `${url.protocol}//${url.host}${path}` };
}

/** Host (and port) for messages: never the path, never a user-info part. */
export function displayHost(baseUrl: string): string {
	try {
		return new URL(baseUrl).host;
	} catch {
		return 'the configured URL';
	}
}

/**
 * A key as it is sent in its header (Token, Header Value, Relay API Key, User API Key): outer white space trimmed,
 * as users paste keys with a space or a line break before or after them and HTTP would drop it anyway. The one
 * reading of those fields: what is signed (credentialAuth.ts), checked (credentialProblem) and searched (redaction).
 */
export function keyAsSent(value: unknown): string {
	return value === undefined || value === null ? '' : String(value).trim();
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\x20-\x7e]*$/;

/**
 * Why a credential's secret fields cannot be sent, or null. Values travel in HTTP headers, so a line break or a
 * character outside printable ASCII would make the request fail (or, worse, split a header). Never quotes a value.
 */
export function credentialProblem(credentials: Record<string, unknown>, credentialType: CredentialType): string | null {
	const headerFields: Array<[string, string]> = [];
	if (credentialType === RELAY_CREDENTIAL) {
		headerFields.push(['apiKey', 'Relay API Key'], ['userApiKey', 'User API Key']);
	} else if (credentials.authType === 'bearerToken') {
		headerFields.push(['token', 'Token']);
	} else if (credentials.authType === 'headerAuth') {
		const name = typeof credentials.headerName === 'string' ? credentials.headerName.trim() : '';
		if (name === '') return "The credential's Header Name is empty";
		if (!HEADER_NAME.test(name)) return "The credential's Header Name is not a valid HTTP header name";
		headerFields.push(['headerSecret', 'Header Value']);
	}
	for (const [field, label] of headerFields) {
		const value = keyAsSent(credentials[field]);
		if (value === '') return `The credential's ${label} is empty`;
		if (!HEADER_VALUE.test(value)) {
			return `The credential's ${label} contains characters that cannot be sent in an HTTP header (line breaks, control or non-ASCII characters)`;
		}
	}
	return null;
}
