import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { jobIdProblem } from '../jobVocabulary';

export { hasControlCharacter, isUuid, jobIdProblem } from '../jobVocabulary';

/**
 * Pure request builders: one native call, two ways to send it. Nothing here does I/O, so the exact bytes that
 * leave the node are unit-testable and both interfaces share one description of every operation.
 */

export const NATIVE_CREDENTIAL = 'jobExecutionApi';
export const RELAY_CREDENTIAL = 'jobExecutionRelayApi';
export type CredentialType = typeof NATIVE_CREDENTIAL | typeof RELAY_CREDENTIAL;

export const API_PREFIX = '/api/v1';

/**
 * What a call is for. Retries and the "may have accepted the job" advice hang off the intent, never off the verb:
 * `submit` creates a job (sent once), `readJob` reads one job, `list` reads a job list.
 */
export type CallIntent = 'submit' | 'readJob' | 'list';

/** A native call: its intent, verb, path under /api/v1, query and JSON body. */
export interface ApiCall {
	intent: CallIntent;
	method: 'GET' | 'POST';
	path: string;
	query?: Record<string, string | undefined>;
	body?: IDataObject;
}

export interface Connection {
	credentialType: CredentialType;
	/** Normalised service URL: scheme + host (+ path prefix), no trailing slash, no /api/v1 or /call suffix. */
	baseUrl: string;
}

/** Query encoding lives here and only here. */
export function encodeQuery(query: ApiCall['query']): string {
	if (!query) return '';
	const pairs = Object.entries(query).filter(
		(pair): pair is [string, string] => pair[1] !== undefined && pair[1] !== '',
	);
	if (pairs.length === 0) return '';
	return '?' + pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
}

/** `/jobs` or `/jobs/<id>` with the id as one encoded path segment: it can never reach another endpoint. */
export function jobsPath(jobId?: string): string {
	if (jobId === undefined) return '/jobs';
	const problem = jobIdProblem(jobId);
	if (problem) throw new Error(`Job ID ${problem}`);
	return `/jobs/${encodeURIComponent(jobId)}`;
}

/** Submits a job. */
export function submitCall(body: IDataObject): ApiCall {
	return { intent: 'submit', method: 'POST', path: jobsPath(), body };
}

/** Reads one job, or only its status. Throws when the id cannot name one job (check it with jobIdProblem first). */
export function readJobCall(jobId: string, statusOnly = false): ApiCall {
	return { intent: 'readJob', method: 'GET', path: jobsPath(jobId), query: { filter: statusOnly ? 'executionStatus' : undefined } };
}

/** Lists jobs: all, or the active or finished ones. */
export function listCall(filter?: 'active' | 'history'): ApiCall {
	return { intent: 'list', method: 'GET', path: jobsPath(), query: { filter } };
}

/** The native path with its query, as the relay's `endpoint` header carries it. */
export function nativeEndpoint(call: ApiCall): string {
	return `${API_PREFIX}${call.path}${encodeQuery(call.query)}`;
}

export function buildNativeRequest(baseUrl: string, call: ApiCall): IHttpRequestOptions {
	const request: IHttpRequestOptions = {
		method: call.method,
		url: `${baseUrl}${nativeEndpoint(call)}`,
		headers: { Accept: 'application/json, text/plain, */*' },
	};
	if (call.body !== undefined) {
		request.body = call.body;
		request.headers = { ...request.headers, 'Content-Type': 'application/json' };
	}
	return request;
}

export function buildRelayRequest(relayUrl: string, call: ApiCall): IHttpRequestOptions {
	const request: IHttpRequestOptions = {
		method: call.method,
		url: `${relayUrl}/call/${call.method === 'POST' ? 'execute' : 'status'}`,
		headers: {
			Accept: 'application/json, text/plain, */*',
			'Content-Type': 'application/json',
			endpoint: nativeEndpoint(call),
			method: call.method,
		},
	};
	if (call.body !== undefined) request.body = call.body;
	return request;
}

export function buildRequest(connection: Connection, call: ApiCall): IHttpRequestOptions {
	return connection.credentialType === RELAY_CREDENTIAL
		? buildRelayRequest(connection.baseUrl, call)
		: buildNativeRequest(connection.baseUrl, call);
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
	const field = credentialType === RELAY_CREDENTIAL ? 'Relay URL' : 'Base URL';
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

/** The browser URL of a flow (native only: the relay has no navigation endpoint). */
export function flowNavigationUrl(
	baseUrl: string,
	flow: { flowFileName: string; runProfile: string; nodeId?: string },
): string {
	return `${baseUrl}${API_PREFIX}/flows${encodeQuery({
		flowFileName: flow.flowFileName,
		runProfile: flow.runProfile,
		nodeId: flow.nodeId,
	})}`;
}

/** Host (and port) for messages: never the path, never a user-info part. */
export function displayHost(baseUrl: string): string {
	try {
		return new URL(baseUrl).host;
	} catch {
		return 'the configured URL';
	}
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
		const value = credentials[field];
		if (typeof value !== 'string' || value === '') return `The credential's ${label} is empty`;
		if (!HEADER_VALUE.test(value)) {
			return `The credential's ${label} contains characters that cannot be sent in an HTTP header (line breaks, control or non-ASCII characters)`;
		}
	}
	return null;
}
