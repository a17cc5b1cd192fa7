import { NodeOperationError, sleep } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
} from 'n8n-workflow';

import { secretForms } from '../redaction';
import { settle } from '../settle';
import type { Failure } from './errors';
import { classifyFailure, toNodeApiError } from './errors';
import type { ApiCall, Connection, CredentialType } from './requestBuilders';
import { buildRequest, credentialProblem, normalizeServiceUrl, RELAY_CREDENTIAL } from './requestBuilders';

export * from './requestBuilders';

export type ApiContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

/** A connection plus every form of its secrets (see secretForms), none of which may appear in an error. */
export interface ResolvedConnection extends Connection {
	secrets: string[];
}

export interface ApiResponse {
	statusCode: number;
	body: unknown;
}

const SECRET_FIELDS = ['token', 'password', 'headerSecret', 'apiKey', 'userApiKey'];

/**
 * Time limits of every call, in wall-clock time whatever the service does (drips, silence, headers only).
 * Tests shorten them through this object; the nodes never change them.
 */
export const transportTiming = {
	/** Delays between attempts of a read; a submit is never repeated. */
	retryDelaysMs: [250, 1000, 2500],
	/** One attempt ends within this. */
	attemptMs: 20_000,
	/** A whole call, retries included, ends within this; so does one poll of the trigger. */
	callMs: 60_000,
};

export async function getConnection(
	this: ApiContext,
	credentialType: CredentialType,
	itemIndex = 0,
): Promise<ResolvedConnection> {
	const credentials = await this.getCredentials(credentialType, itemIndex);
	const values = SECRET_FIELDS.map((field) => credentials[field]).filter(
		(value): value is string => typeof value === 'string' && value !== '',
	);
	const basic =
		credentials.authType === 'basicAuth' && typeof credentials.password === 'string'
			? { user: String(credentials.user ?? ''), password: credentials.password }
			: undefined;
	const secrets = secretForms(values, basic);
	const raw = credentialType === RELAY_CREDENTIAL ? credentials.relayUrl : credentials.baseUrl;
	const normalized = normalizeServiceUrl(raw, credentialType);
	const problem = normalized.problem ?? credentialProblem(credentials, credentialType);
	if (problem !== null) throw new NodeOperationError(this.getNode(), problem, { itemIndex });
	return { credentialType, baseUrl: normalized.url as string, secrets };
}

/**
 * Tolerant body reading: JSON when it parses, the bare text otherwise, null when empty. A body that claims to be
 * JSON (by its content type, or by starting with { or [) and does not parse is malformed: undefined.
 */
export function parseBody(raw: unknown, contentType = ''): unknown {
	if (raw === undefined || raw === null) return null;
	if (typeof raw !== 'string') return raw;
	const text = raw.trim();
	if (text === '') return null;
	try {
		return JSON.parse(text);
	} catch {
		const claimsJson = /\bjson\b/i.test(contentType) || text.startsWith('{') || text.startsWith('[');
		return claimsJson ? undefined : raw;
	}
}

function headerValue(headers: IN8nHttpFullResponse['headers'] | undefined, name: string): string {
	const value = headers?.[name] ?? headers?.[name.toLowerCase()];
	return Array.isArray(value) ? String(value[0] ?? '') : String(value ?? '');
}

function networkFailure(error: unknown): Failure {
	const candidates: unknown[] = [];
	let current: unknown = error;
	for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
		candidates.push(current);
		current = (current as { cause?: unknown }).cause;
	}
	for (const candidate of candidates) {
		const code = (candidate as { code?: unknown }).code;
		if (typeof code === 'string' && /^[A-Z_]{3,}$/.test(code) && code !== 'ERR_BAD_RESPONSE') {
			return { kind: 'network', code: code === 'ERR_CANCELED' ? 'ABORTED' : code, detail: '' };
		}
	}
	const message = error instanceof Error ? error.message : '';
	if (/timeout/i.test(message)) return { kind: 'network', code: 'ETIMEDOUT', detail: '' };
	if (/socket hang up/i.test(message)) return { kind: 'network', code: 'ECONNRESET', detail: '' };
	return { kind: 'network', code: 'EREQUEST', detail: '' };
}

function cancelled(context: ApiContext): boolean {
	return 'getExecutionCancelSignal' in context && context.getExecutionCancelSignal()?.aborted === true;
}

type Attempt = { response: ApiResponse; failure?: undefined } | { response?: undefined; failure: Failure };

/** One exchange, never past `limitMs`: the request races n8n's sleep and is abandoned (and aborted) when late. */
async function attemptOnce(context: ApiContext, connection: ResolvedConnection, call: ApiCall, limitMs: number): Promise<Attempt> {
	const stop = new AbortController();
	const request: IHttpRequestOptions = {
		...buildRequest(connection, call),
		encoding: 'text',
		json: false,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// Keys stay with the service: a redirect is an answer to report, never a hop to take.
		disableFollowRedirect: true,
		// Idle timeout of the helper; the wall-clock bound is the race below. Polls keep this signal, so a late
		// request is also aborted there; executions replace it with their cancel signal, and it is abandoned.
		timeout: limitMs,
		abortSignal: stop.signal,
	};
	const exchange = settle(
		context.helpers.httpRequestWithAuthentication.call(context, connection.credentialType, request) as Promise<IN8nHttpFullResponse>,
	);
	const timer = sleep(limitMs, stop.signal).then(
		() => 'late' as const,
		() => 'stopped' as const,
	);
	const first = await Promise.race([exchange, timer]);
	stop.abort();
	if (first === 'late' || first === 'stopped') return { failure: { kind: 'deadline', seconds: 0 } };
	if (!first.ok) return { failure: networkFailure(first.error) };
	return readResponse(first.value);
}

function readResponse(response: IN8nHttpFullResponse): Attempt {
	const { statusCode } = response;
	if (statusCode >= 300 && statusCode < 400) {
		return { failure: { kind: 'redirect', statusCode, location: headerValue(response.headers, 'location') } };
	}
	const success = statusCode >= 200 && statusCode < 300;
	const body = parseBody(response.body, headerValue(response.headers, 'content-type'));
	if (success && body !== undefined) return { response: { statusCode, body } };
	return {
		failure: success
			? { kind: 'unreadable', statusCode, problem: 'is not valid JSON' }
			: { kind: 'status', statusCode, body: body ?? response.body, retryAfter: headerValue(response.headers, 'retry-after') },
	};
}

/** Seconds for messages: whole above 10 s, one decimal below. */
function seconds(ms: number): number {
	return ms >= 10_000 ? Math.round(ms / 1000) : Math.round(ms / 100) / 10;
}

/**
 * The one door to the service, for every operation, the trigger and the wait loop. A call ends by `deadline`
 * (epoch ms; at most transportTiming.callMs from now) whatever the service does; `startedAt` is when that bound
 * began, for the message. Whether a failure is retried (with bounded backoff, inside the deadline) is decided by
 * classifyFailure from the call's intent.
 */
export async function apiRequest(
	this: ApiContext,
	connection: ResolvedConnection,
	call: ApiCall,
	options: { itemIndex?: number; deadline?: number; startedAt?: number } = {},
): Promise<ApiResponse> {
	const started = options.startedAt ?? Date.now();
	const deadline = Math.min(options.deadline ?? Infinity, Date.now() + transportTiming.callMs);
	for (let attempt = 0; ; attempt++) {
		const left = deadline - Date.now();
		const outcome: Attempt =
			left > 0
				? await attemptOnce(this, connection, call, Math.min(left, transportTiming.attemptMs))
				: { failure: { kind: 'deadline', seconds: 0 } };
		if (outcome.response) return outcome.response;
		// A deadline failure reports the time spent since the bound began (this call, or the poll it is part of).
		const failure: Failure =
			outcome.failure.kind === 'deadline' ? { kind: 'deadline', seconds: seconds(Date.now() - started) } : outcome.failure;
		const delay = transportTiming.retryDelaysMs[attempt];
		const retry = classifyFailure(failure, call.intent).retry && delay !== undefined && Date.now() + delay < deadline;
		if (!retry || cancelled(this)) {
			throw toNodeApiError(this.getNode(), failure, call, connection, connection.secrets, options.itemIndex);
		}
		await sleep(delay);
	}
}
