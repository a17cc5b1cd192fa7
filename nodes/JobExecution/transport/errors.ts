import { NodeApiError } from 'n8n-workflow';
import type { INode, JsonObject } from 'n8n-workflow';

import type { ApiCall, Connection } from './requestBuilders';
import { RELAY_CREDENTIAL, displayHost } from './requestBuilders';

/** What went wrong with one HTTP exchange, before it becomes a NodeApiError. */
export type Failure =
	| { kind: 'status'; statusCode: number; body: unknown }
	| { kind: 'network'; code: string; detail: string }
	/** A success status whose answer cannot be used: `problem` completes "The service's answer …". */
	| { kind: 'unreadable'; statusCode: number; problem: string };

/** What a submit's error says whenever the job's fate is unknown. */
export const MAY_HAVE_ACCEPTED = 'The service may have accepted the job: check the job list before resubmitting.';

/** Failures that no retry can fix: certificates, and requests that cannot be built (bad header characters, URL). */
const PERMANENT_CODES = new Set([
	'CERT_HAS_EXPIRED',
	'DEPTH_ZERO_SELF_SIGNED_CERT',
	'SELF_SIGNED_CERT_IN_CHAIN',
	'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
	'ERR_TLS_CERT_ALTNAME_INVALID',
	'ERR_INVALID_CHAR',
	'ERR_INVALID_HTTP_TOKEN',
	'ERR_INVALID_URL',
]);

/** Failures that happen before any byte of the request leaves: no connection, or no valid request. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', ...PERMANENT_CODES]);

/** Reads (GET) may be repeated safely on these; a submit never is. */
export function isTransient(failure: Failure): boolean {
	if (failure.kind === 'network') return !PERMANENT_CODES.has(failure.code);
	if (failure.kind === 'unreadable') return true;
	return failure.statusCode === 429 || failure.statusCode >= 500;
}

/** True when the request cannot have reached the service (so a submit certainly created no job). */
export function certainlyNotSent(failure: Failure): boolean {
	return failure.kind === 'network' && NOT_SENT_CODES.has(failure.code);
}

/** The service's own message, when its body has one (JSON `{message}` / `{error}` or short text). */
export function serviceMessage(body: unknown): string | undefined {
	if (typeof body === 'string') {
		const text = body.trim();
		if (text === '' || text.startsWith('<')) return undefined;
		return text.length > 300 ? `${text.slice(0, 300)}…` : text;
	}
	if (body && typeof body === 'object' && !Array.isArray(body)) {
		const record = body as Record<string, unknown>;
		for (const key of ['message', 'error', 'detail', 'title']) {
			if (typeof record[key] === 'string' && record[key] !== '') return serviceMessage(record[key]);
		}
	}
	return undefined;
}

function describeCall(call: ApiCall): 'submit' | 'readJob' | 'list' | 'other' {
	if (call.method === 'POST') return 'submit';
	if (call.path.startsWith('/jobs/')) return 'readJob';
	if (call.path === '/jobs') return 'list';
	return 'other';
}

function statusText(failure: Extract<Failure, { kind: 'status' }>, call: ApiCall, connection: Connection) {
	const relay = connection.credentialType === RELAY_CREDENTIAL;
	const fromService = serviceMessage(failure.body);
	const what = describeCall(call);
	const code = failure.statusCode;
	if (code === 401 || code === 403) {
		return {
			message: `The service refused the credentials (HTTP ${code})`,
			description: relay
				? 'Check the Relay API Key and the User API Key of the Job Execution Relay API credential.'
				: 'Check the authentication settings of the Job Execution API credential.',
		};
	}
	if (code === 400) {
		const hint = {
			submit: relay
				? 'The service refused the job: check the flow ID, the run profile and the parameters.'
				: 'The service refused the job: check the flow path, the run profile and the parameters.',
			readJob: 'The service could not answer for this job: check the job ID (jobs may also be removed after a while).',
			list: 'The service refused the job list request.',
			other: 'The service refused the request.',
		}[what];
		if (fromService) return { message: `Bad request: ${fromService}`, description: hint };
		if (what === 'submit') {
			// The spec's 400 also stands for "server error": without a detail, the job may exist.
			return {
				message: 'The service answered the submission with HTTP 400 and no detail',
				description: `${hint.replace('The service refused the job: check', 'Check')} The service also answers 400 for its own errors. ${MAY_HAVE_ACCEPTED}`,
			};
		}
		return { message: hint, description: 'The service answered 400 without any detail (it also uses 400 for its own errors).' };
	}
	if (code === 404) {
		return {
			message: fromService ? `Not found: ${fromService}` : 'The service has no such endpoint (HTTP 404)',
			description: relay
				? 'Check the Relay URL of the credential: it should be the relay address, without /call.'
				: 'Check the Base URL of the credential: it should be the service address, without /api/v1.',
		};
	}
	if (code === 413) return { message: 'The request is too large for the service (HTTP 413)', description: 'Send fewer or shorter parameters.' };
	if (code === 429) {
		return {
			message: 'The service is rate limiting requests (HTTP 429)',
			description: what === 'submit' ? 'The service turned the request away, so no job was submitted: retry later.' : 'Retry later or poll less often.',
		};
	}
	if (code >= 500) {
		return {
			message: `The service failed (HTTP ${code})${fromService ? `: ${fromService}` : ''}`,
			description:
				what === 'submit' ? MAY_HAVE_ACCEPTED : 'The service had an internal error; the request was retried where it was safe to.',
		};
	}
	return { message: `Unexpected answer from the service (HTTP ${code})${fromService ? `: ${fromService}` : ''}`, description: undefined };
}

function networkText(failure: Extract<Failure, { kind: 'network' }>, call: ApiCall, connection: Connection) {
	const host = displayHost(connection.baseUrl);
	const submit = call.method === 'POST';
	const notSent = certainlyNotSent(failure);
	let description = `${failure.code}: check that the service runs and that the URL of the credential is right.`;
	if (submit) {
		description = notSent
			? 'The request never reached the service, so no job was submitted.'
			: `The connection failed after the request was sent. ${MAY_HAVE_ACCEPTED}`;
	}
	return { message: `The Job Execution service cannot be reached at ${host} (${failure.code})`, description };
}

function unreadableText(failure: Extract<Failure, { kind: 'unreadable' }>, call: ApiCall) {
	return {
		message: `The service's answer ${failure.problem} (HTTP ${failure.statusCode})`,
		description:
			call.method === 'POST' ? MAY_HAVE_ACCEPTED : 'The answer could not be used; the request was retried where it was safe to.',
	};
}

/** Removes every secret value from a text: the final guard, whatever a server or library echoed. */
export function redact(text: string, secrets: string[]): string {
	let result = text;
	for (const secret of secrets) {
		if (secret.length >= 3) result = result.split(secret).join('***');
	}
	return result;
}

/** The one place where a failed exchange becomes the error users see. */
export function toNodeApiError(
	node: INode,
	failure: Failure,
	call: ApiCall,
	connection: Connection,
	secrets: string[],
	itemIndex?: number,
): NodeApiError {
	const text =
		failure.kind === 'status'
			? statusText(failure, call, connection)
			: failure.kind === 'network'
				? networkText(failure, call, connection)
				: unreadableText(failure, call);
	const message = redact(text.message, secrets);
	const description = text.description === undefined ? undefined : redact(text.description, secrets);
	const httpCode = failure.kind === 'network' ? failure.code : String(failure.statusCode);
	// The error response carries only what was built above: never the request, its headers or the raw library error.
	const response: JsonObject = { message, httpCode };
	if (description) response.description = description;
	const error = new NodeApiError(node, response, { message, description, httpCode, itemIndex });
	// NodeApiError swaps messages of well-known network codes for generic ones; ours name the host and the job's fate.
	error.message = message;
	return error;
}

/** For loops that keep polling (the wait): is this thrown error worth another try later? */
export function isTransientApiError(error: unknown): boolean {
	if (!(error instanceof NodeApiError)) return false;
	const code = error.httpCode ?? '';
	if (/^\d+$/.test(code)) {
		const status = Number(code);
		// A 2xx here is an answer that could not be read (malformed JSON): worth another read.
		return status === 429 || status >= 500 || (status >= 200 && status < 300);
	}
	return code !== '' && code !== 'ABORTED' && !PERMANENT_CODES.has(code);
}
