import { NodeApiError } from 'n8n-workflow';
import type { INode, JsonObject } from 'n8n-workflow';

import { redact } from '../redaction';
import { isPlainObject } from '../jobVocabulary';
import type { ApiCall, CallIntent, Connection } from './requestBuilders';
import { displayHost, RELAY_CREDENTIAL, urlFieldLabel } from './serviceCredentials';

/** What went wrong with one HTTP exchange, before it becomes a NodeApiError. */
export type Failure =
	/**
	 * `retryAfterMs`: what a 429/503 `Retry-After` asked for (clamped to MAX_RETRY_AFTER_MS). `notSent`: the request
	 * met a pause that answer asked for, longer than the call could wait, and was never sent (adaptiveLimit.ts).
	 * `withdrawn`: a 429/503 without Retry-After to a request the in-flight limit has since cut back below (its retry
	 * waits for a slot under the lower limit, not a retry delay).
	 */
	| { kind: 'status'; statusCode: number; body: unknown; retryAfterMs?: number; notSent?: boolean; withdrawn?: boolean }
	/** `answered`: the status of an answer whose body broke off (the service answered: never "cannot be reached"). */
	| { kind: 'network'; code: string; detail: string; answered?: number }
	/** A 3xx: never followed, so no key went to `location`. */
	| { kind: 'redirect'; statusCode: number; location: string }
	/** No complete answer within the call's wall-clock deadline (drip, silence, headers only). */
	| { kind: 'deadline'; seconds: number }
	/** A success status whose answer cannot be used: `problem` completes "The service's answer …". */
	| { kind: 'unreadable'; statusCode: number; problem: string }
	/**
	 * A success answer beyond the node's bounds (bytes, nesting, values): `problem` completes "The service's answer …".
	 * The service did answer, so this is never "cannot be reached"; the same request would get the same answer, so it
	 * is never retried.
	 */
	| { kind: 'oversized'; statusCode: number; problem: string };

/** The longest `Retry-After` believed: a service asking for more is taken as asking for a day. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** A `Retry-After` value (delay-seconds or an HTTP date) in ms from `now`, clamped to [0, MAX_RETRY_AFTER_MS]. */
export function parseRetryAfter(value: string, now = Date.now()): number | undefined {
	const text = value.trim();
	if (text === '') return undefined;
	// Digits only, at most 12 of them: a linear check, and no number too large for a Date.
	if (/^\d{1,12}$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
	if (text.length > 64) return undefined;
	const at = Date.parse(text);
	if (!Number.isFinite(at)) return undefined;
	return Math.min(Math.max(at - now, 0), MAX_RETRY_AFTER_MS);
}

/** What a submit's error says whenever the job's fate is unknown. */
export const MAY_HAVE_ACCEPTED = 'The service may have accepted the job: check the job list before resubmitting.';

/** How a certificate problem is fixed: trust its issuer, renew it, or address the service by a name it holds. */
type CertificateFix = 'trust' | 'renew' | 'name';

/** Node's codes for a certificate n8n does not accept, in words, with their fix. */
const CERTIFICATE_PROBLEMS: Record<string, { what: string; fix: CertificateFix }> = {
	DEPTH_ZERO_SELF_SIGNED_CERT: { what: 'self-signed certificate', fix: 'trust' },
	SELF_SIGNED_CERT_IN_CHAIN: { what: 'self-signed certificate in its chain', fix: 'trust' },
	UNABLE_TO_VERIFY_LEAF_SIGNATURE: { what: 'certificate signed by an authority n8n does not know', fix: 'trust' },
	UNABLE_TO_GET_ISSUER_CERT_LOCALLY: { what: 'certificate signed by an authority n8n does not know', fix: 'trust' },
	UNABLE_TO_GET_ISSUER_CERT: { what: 'certificate signed by an authority n8n does not know', fix: 'trust' },
	CERT_UNTRUSTED: { what: 'certificate not trusted', fix: 'trust' },
	CERT_SIGNATURE_FAILURE: { what: 'certificate with an invalid signature', fix: 'trust' },
	CERT_HAS_EXPIRED: { what: 'expired certificate', fix: 'renew' },
	CERT_NOT_YET_VALID: { what: 'certificate not valid yet', fix: 'renew' },
	ERR_TLS_CERT_ALTNAME_INVALID: { what: 'certificate issued for another host name', fix: 'name' },
};

/** The credential's field that accepts any certificate, as the editor shows it. */
export const IGNORE_SSL_FIELD = 'Ignore SSL Issues (Insecure)';

/** A TLS handshake that failed for another reason than the certificate (an https URL on an http service, mostly). */
const HANDSHAKE_CODES = new Set(['EPROTO', 'ERR_SSL_WRONG_VERSION_NUMBER']);

/**
 * A TLS handshake that failed, so no request byte left; no retry fixes it. The same codes after the service answered
 * are a connection broken mid-answer, and stay what they were.
 */
function failedHandshake(failure: Failure): boolean {
	return failure.kind === 'network' && failure.answered === undefined && HANDSHAKE_CODES.has(failure.code);
}

/** Whether a network code is a certificate n8n refused, or a failed TLS handshake. */
export function isTlsFailureCode(code: string): boolean {
	return Object.prototype.hasOwnProperty.call(CERTIFICATE_PROBLEMS, code) || HANDSHAKE_CODES.has(code);
}

/** Failures that no retry can fix: certificates, and requests that cannot be built (bad header characters, URL). */
const PERMANENT_CODES = new Set([
	...Object.keys(CERTIFICATE_PROBLEMS),
	'ERR_INVALID_CHAR',
	'ERR_INVALID_HTTP_TOKEN',
	'ERR_INVALID_URL',
]);

/** Failures that happen before any byte of the request leaves: no connection, or no valid request. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', ...PERMANENT_CODES]);

/** What a failure means for a call of a given intent: the one classifier of retries and of a job's fate. */
export interface FailureClass {
	/** Worth another try of the same call (a submit never is: it could create a second job). */
	retry: boolean;
	/** For a submit: the service may have created the job, so the user must check before resubmitting. */
	mayHaveAccepted: boolean;
}

export function classifyFailure(failure: Failure, intent: CallIntent): FailureClass {
	// Kept from being sent by a pause longer than the call can use: nothing was sent, and the call ends now, saying when.
	if (failure.kind === 'status' && failure.notSent === true) return { retry: false, mayHaveAccepted: false };
	const submit = intent === 'submit';
	const temporary = isTemporary(failure);
	let mayHaveAccepted = false;
	if (submit) {
		if (failure.kind === 'network') mayHaveAccepted = !NOT_SENT_CODES.has(failure.code) && !failedHandshake(failure);
		else if (failure.kind === 'status') mayHaveAccepted = failure.statusCode >= 500 || (failure.statusCode === 400 && !serviceMessage(failure.body));
		else mayHaveAccepted = true;
	}
	return { retry: temporary && (!submit || notAccepted(failure)), mayHaveAccepted };
}

/**
 * A submission the service says it did not process, so sending it again cannot double a job: a 429 (RFC 6585 §4:
 * the client sent too many requests; the request is refused, not processed). A 503, a 5xx
 * or a dropped connection is not one: a proxy may answer 503 after the service took the job (RFC 9110 §15.6.4 says
 * the server is unable to handle the request, not that none before it did), and the spec names no status for "not
 * taken".
 */
export function notAccepted(failure: Failure): boolean {
	return failure.kind === 'status' && failure.statusCode === 429;
}

/** Failures a later identical read may not meet again. Redirects, certificates and refused credentials stay. */
function isTemporary(failure: Failure): boolean {
	switch (failure.kind) {
		case 'network':
			return failure.code !== 'ABORTED' && !PERMANENT_CODES.has(failure.code) && !failedHandshake(failure);
		case 'unreadable':
		case 'deadline':
			return true;
		case 'redirect':
		case 'oversized':
			return false;
		default:
			return failure.statusCode === 429 || failure.statusCode >= 500;
	}
}

/** The service's own message, when its body has one (JSON `{message}` / `{error}` or short text). */
export function serviceMessage(body: unknown): string | undefined {
	if (typeof body === 'string') {
		const text = body.trim();
		if (text === '' || text.startsWith('<')) return undefined;
		return text.length > 300 ? `${text.slice(0, 300)}…` : text;
	}
	if (isPlainObject(body)) {
		for (const key of ['message', 'error', 'detail', 'title']) {
			if (typeof body[key] === 'string' && body[key] !== '') return serviceMessage(body[key]);
		}
	}
	return undefined;
}

/** What the call was about, for messages: "job <id>", "the active job list", "the submission". */
export function callSubject(call: ApiCall): string {
	if (call.intent === 'submit') return 'the submission';
	if (call.intent === 'list') {
		const filter = call.query?.filter;
		return filter === 'active' ? 'the active job list' : filter === 'history' ? 'the finished job list' : 'the job list';
	}
	return `job ${decodeURIComponent(call.path.slice('/jobs/'.length))}`;
}

function statusText(failure: Extract<Failure, { kind: 'status' }>, call: ApiCall, connection: Connection) {
	const relay = connection.credentialType === RELAY_CREDENTIAL;
	const fromService = serviceMessage(failure.body);
	const what = call.intent;
	const code = failure.statusCode;
	// The classifier alone decides whether a submit's job may exist; the words below only say it.
	const mayExist = classifyFailure(failure, what).mayHaveAccepted;
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
		}[what];
		if (fromService) return { message: `Bad request: ${fromService}`, description: mayExist ? `${hint} ${MAY_HAVE_ACCEPTED}` : hint };
		if (what === 'submit') {
			// The spec's 400 also stands for "server error": without a detail, the job may exist.
			return {
				message: 'The service answered the submission with HTTP 400 and no detail',
				description: `${hint.replace('The service refused the job: check', 'Check')} The service also answers 400 for its own errors.${mayExist ? ` ${MAY_HAVE_ACCEPTED}` : ''}`,
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
	const later = retryAfterText(failure.retryAfterMs);
	if (code === 429) {
		return {
			message: 'The service is rate limiting requests (HTTP 429)',
			description:
				(what !== 'submit' ? 'Retry later or poll less often.' : mayExist ? MAY_HAVE_ACCEPTED : 'The service turned the request away, so no job was submitted: retry later.') + later,
		};
	}
	if (code >= 500) {
		return {
			message: `The service failed (HTTP ${code})${fromService ? `: ${fromService}` : ''}`,
			description:
				(what !== 'submit' ? 'The service had an internal error; the request was retried where it was safe to.' : mayExist ? MAY_HAVE_ACCEPTED : 'The service turned the job away, so no job was submitted.') + later,
		};
	}
	return { message: `Unexpected answer from the service (HTTP ${code})${fromService ? `: ${fromService}` : ''}`, description: mayExist ? MAY_HAVE_ACCEPTED : undefined };
}

/** The fix of a certificate problem, said in the message (short) and the description (how). */
function certificateFix(fix: CertificateFix, connection: Connection): { short: string; how: string } {
	const ignore = `turn on ${IGNORE_SSL_FIELD} in the credential`;
	const ignoreHow = 'That setting accepts any certificate for this credential, so the connection is no longer protected against impostors.';
	if (fix === 'renew') return { short: `renew the service's certificate, or ${ignore}`, how: ignoreHow };
	if (fix === 'name') {
		return { short: `set the credential's ${urlFieldLabel(connection.credentialType)} to a host name the certificate holds, or ${ignore}`, how: ignoreHow };
	}
	return {
		short: `${ignore}, or make n8n trust your CA with NODE_EXTRA_CA_CERTS`,
		how: `${ignoreHow} To trust a private certificate authority instead, start n8n with NODE_EXTRA_CA_CERTS set to the path of its certificate (a PEM file).`,
	};
}

/** A certificate n8n refused, or a failed handshake: what the service presented and how to get past it. */
function tlsText(failure: Extract<Failure, { kind: 'network' }>, call: ApiCall, connection: Connection) {
	const host = displayHost(connection.baseUrl);
	const notSent = call.intent === 'submit' ? ' The request never reached the service, so no job was submitted.' : '';
	const problem = Object.prototype.hasOwnProperty.call(CERTIFICATE_PROBLEMS, failure.code) ? CERTIFICATE_PROBLEMS[failure.code] : undefined;
	if (!problem) {
		return {
			message: `The https connection to the Job Execution service at ${host} failed before any request was sent (${failure.code})`,
			description: `Check that the service serves https at this address: if it serves plain http, the credential's ${urlFieldLabel(connection.credentialType)} must start with http://.${notSent}`,
		};
	}
	const fix = certificateFix(problem.fix, connection);
	return {
		message: `The Job Execution service at ${host} presented a certificate n8n does not trust (${problem.what}): ${fix.short}`,
		description: `${fix.how}${notSent} (${failure.code})`,
	};
}

function networkText(failure: Extract<Failure, { kind: 'network' }>, call: ApiCall, connection: Connection) {
	const host = displayHost(connection.baseUrl);
	if (failure.answered === undefined && isTlsFailureCode(failure.code)) return tlsText(failure, call, connection);
	if (failure.answered !== undefined) {
		return {
			message: `The service at ${host} answered ${callSubject(call)} (HTTP ${failure.answered}), but the connection broke before its answer ended (${failure.code})`,
			description:
				call.intent === 'submit'
					? `The request reached the service. ${MAY_HAVE_ACCEPTED}`
					: 'The service or a proxy closed the connection while the answer was read; the request was retried where it was safe to.',
		};
	}
	let description = `${failure.code}: check that the service runs and that the URL of the credential is right.`;
	if (call.intent === 'submit') {
		description = classifyFailure(failure, call.intent).mayHaveAccepted
			? `The connection failed after the request was sent. ${MAY_HAVE_ACCEPTED}`
			: 'The request never reached the service, so no job was submitted.';
	}
	return { message: `The Job Execution service cannot be reached at ${host} (${failure.code})`, description };
}

function unreadableText(failure: Extract<Failure, { kind: 'unreadable' }>, call: ApiCall) {
	return {
		message: `The service's answer ${failure.problem} (HTTP ${failure.statusCode})`,
		description:
			call.intent === 'submit' ? MAY_HAVE_ACCEPTED : 'The answer could not be used; the request was retried where it was safe to.',
	};
}

function redirectText(failure: Extract<Failure, { kind: 'redirect' }>, call: ApiCall, connection: Connection) {
	const target = redirectHost(failure.location, connection.baseUrl);
	const field = urlFieldLabel(connection.credentialType);
	const fix = `Set the credential's ${field} to the address the service really answers on (redirects are never followed, so that keys stay with the service).`;
	return {
		message: `The service answered ${callSubject(call)} with a redirect (HTTP ${failure.statusCode}) to ${target}: not followed, the keys were not sent there`,
		description: call.intent === 'submit' ? `${fix} ${MAY_HAVE_ACCEPTED}` : fix,
	};
}

/** The host a Location header points at, for messages: never its path or query. */
function redirectHost(location: string, baseUrl: string): string {
	if (location.trim() === '') return 'no address';
	try {
		return new URL(location, baseUrl).host || 'an address without a host';
	} catch {
		return 'an unreadable address';
	}
}

function oversizedText(failure: Extract<Failure, { kind: 'oversized' }>, call: ApiCall) {
	return {
		message: `The service's answer ${failure.problem} (HTTP ${failure.statusCode}): not read further`,
		description:
			call.intent === 'submit'
				? `The service answered the submission with a success status, so the job probably exists, but its answer is beyond what the node reads. ${MAY_HAVE_ACCEPTED}`
				: `The service answered ${callSubject(call)}, but with more than the node reads (a bound that keeps n8n safe). It was not retried: the same request would get the same answer. Check the service, or a proxy in front of it.`,
	};
}

/** When a rate-limited call may be tried again, for messages: "in 100000 s (at 2026-…Z)". */
function retryAfterText(ms: number | undefined): string {
	if (ms === undefined) return '';
	const seconds = Math.ceil(ms / 1000);
	return ` The service asked to retry in ${seconds} s (at ${new Date(Date.now() + ms).toISOString()}).`;
}

function deadlineText(failure: Extract<Failure, { kind: 'deadline' }>, call: ApiCall, connection: Connection) {
	return {
		message: `No complete answer from the service at ${displayHost(connection.baseUrl)} for ${callSubject(call)} within ${failure.seconds} s`,
		description:
			call.intent === 'submit'
				? `The request was sent and the answer never finished. ${MAY_HAVE_ACCEPTED}`
				: 'The service answered too slowly, or not at all; the node stopped waiting for it.',
	};
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
	// The body is cleaned before any of it is cut for a message: a secret cut in half would escape redaction.
	const text = failureText(failure.kind === 'status' ? { ...failure, body: redactBody(failure.body, secrets) } : failure, call, connection);
	const message = redact(text.message, secrets);
	const description = text.description === undefined ? undefined : redact(text.description, secrets);
	const httpCode = failure.kind === 'network' ? failure.code : failure.kind === 'deadline' ? 'DEADLINE' : String(failure.statusCode);
	// The error response carries only what was built above: never the request, its headers or the raw library error.
	const response: JsonObject = { message, httpCode };
	if (description) response.description = description;
	const error = new NodeApiError(node, response, { message, description, httpCode, itemIndex });
	// NodeApiError swaps messages of well-known network codes for generic ones; ours name the host and the job's fate.
	error.message = message;
	failures.set(error, { failure, intent: call.intent });
	return error;
}

function redactBody(body: unknown, secrets: string[]): unknown {
	if (typeof body === 'string') return redact(body, secrets);
	if (body === null || typeof body !== 'object') return body;
	const text = redact(JSON.stringify(body), secrets);
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}

function failureText(failure: Failure, call: ApiCall, connection: Connection): { message: string; description?: string } {
	switch (failure.kind) {
		case 'status':
			return statusText(failure, call, connection);
		case 'network':
			return networkText(failure, call, connection);
		case 'redirect':
			return redirectText(failure, call, connection);
		case 'deadline':
			return deadlineText(failure, call, connection);
		case 'oversized':
			return oversizedText(failure, call);
		default:
			return unreadableText(failure, call);
	}
}

/** The failure behind each error the transport threw, so loops that keep polling use the same classifier. */
const failures = new WeakMap<object, { failure: Failure; intent: CallIntent }>();

/** What the transport recorded of a thrown error; nothing for an error it did not throw (or a value that is no object). */
function recorded(error: unknown): { failure: Failure; intent: CallIntent } | undefined {
	return typeof error === 'object' && error !== null ? failures.get(error) : undefined;
}

/** For loops that keep polling (the wait): is this thrown error worth another try later? */
export function isRetryableError(error: unknown): boolean {
	const known = recorded(error);
	return known !== undefined && classifyFailure(known.failure, known.intent).retry;
}

/**
 * For an error apiRequest threw on a submit: may the service have created the job? The classifier's answer, the
 * same one that wrote the error's words (never read back from them).
 */
export function mayHaveAcceptedJob(error: unknown): boolean {
	const known = recorded(error);
	return known !== undefined && classifyFailure(known.failure, known.intent).mayHaveAccepted;
}

/**
 * The delay in ms a failed call's answer asked for: a 429/503 `Retry-After` (seconds or HTTP date, clamped to at
 * most 24 h), read from an error thrown by apiRequest; undefined when it asked for none.
 */
export function retryAfterMs(error: unknown): number | undefined {
	const failure = recorded(error)?.failure;
	return failure?.kind === 'status' ? failure.retryAfterMs : undefined;
}

/** A thrown transport error in plain words, without codes (n8n would swap a message holding one for its own). */
export function failureInWords(error: unknown): string {
	const failure = recorded(error)?.failure;
	switch (failure?.kind) {
		case 'network':
			if (failure.answered !== undefined) return 'the connection broke while the answer was read';
			if (Object.prototype.hasOwnProperty.call(CERTIFICATE_PROBLEMS, failure.code)) return `the service's certificate is not trusted (${CERTIFICATE_PROBLEMS[failure.code].what})`;
			return HANDSHAKE_CODES.has(failure.code) ? 'the https handshake with the service failed' : 'the service could not be reached';
		case 'deadline':
			return 'the service did not answer in time';
		case 'status':
			return `the service answered HTTP ${failure.statusCode}`;
		case 'unreadable':
			return 'the answer could not be read';
		case 'oversized':
			return `the answer ${failure.problem}`;
		default:
			return 'the request failed';
	}
}
