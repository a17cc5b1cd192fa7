import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { jobIdProblem } from '../jobVocabulary';
import type { CredentialType } from './serviceCredentials';
import { RELAY_CREDENTIAL } from './serviceCredentials';

/**
 * Pure request builders: one native call, two ways to send it. Nothing here does I/O, so the exact bytes that
 * leave the node are unit-testable and both interfaces share one description of every operation.
 */

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
