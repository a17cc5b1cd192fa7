import { NodeOperationError, sleep } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
} from 'n8n-workflow';

import type { Failure } from './errors';
import { isTransient, toNodeApiError } from './errors';
import type { ApiCall, Connection, CredentialType } from './requestBuilders';
import { buildRequest, credentialProblem, normalizeServiceUrl, RELAY_CREDENTIAL } from './requestBuilders';

export * from './requestBuilders';

export type ApiContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

/** A connection plus the secret values that must never appear in an error. */
export interface ResolvedConnection extends Connection {
	secrets: string[];
}

export interface ApiResponse {
	statusCode: number;
	body: unknown;
}

const SECRET_FIELDS = ['token', 'password', 'headerSecret', 'apiKey', 'userApiKey'];

/** Delays between attempts of a read; a submit is never repeated. */
export const READ_RETRY_DELAYS_MS = [250, 1000, 2500];

const REQUEST_TIMEOUT_MS = 60_000;

export async function getConnection(
	this: ApiContext,
	credentialType: CredentialType,
	itemIndex = 0,
): Promise<ResolvedConnection> {
	const credentials = await this.getCredentials(credentialType, itemIndex);
	const secrets = SECRET_FIELDS.map((field) => credentials[field]).filter(
		(value): value is string => typeof value === 'string' && value !== '',
	);
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

/**
 * The one door to the service, for every operation, the trigger and the wait loop.
 * Reads are retried on network errors, 429 and 5xx with bounded backoff; a submit (POST) is sent exactly once.
 */
export async function apiRequest(
	this: ApiContext,
	connection: ResolvedConnection,
	call: ApiCall,
	options: { itemIndex?: number; retryDelaysMs?: number[] } = {},
): Promise<ApiResponse> {
	const delays = call.method === 'GET' ? (options.retryDelaysMs ?? READ_RETRY_DELAYS_MS) : [];
	let attempt = 0;
	for (;;) {
		const request: IHttpRequestOptions = {
			...buildRequest(connection, call),
			encoding: 'text',
			json: false,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: REQUEST_TIMEOUT_MS,
		};
		let failure: Failure;
		try {
			const response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				connection.credentialType,
				request,
			)) as IN8nHttpFullResponse;
			const success = response.statusCode >= 200 && response.statusCode < 300;
			const body = parseBody(response.body, headerValue(response.headers, 'content-type'));
			if (success && body !== undefined) return { statusCode: response.statusCode, body };
			failure = success
				? { kind: 'unreadable', statusCode: response.statusCode, problem: 'is not valid JSON' }
				: { kind: 'status', statusCode: response.statusCode, body: body ?? response.body };
		} catch (error) {
			failure = networkFailure(error);
		}
		if (attempt >= delays.length || !isTransient(failure) || cancelled(this)) {
			throw toNodeApiError(this.getNode(), failure, call, connection, connection.secrets, options.itemIndex);
		}
		await sleep(delays[attempt]);
		attempt++;
	}
}
