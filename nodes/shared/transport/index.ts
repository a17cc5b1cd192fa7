import { NodeOperationError, sleep } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
} from 'n8n-workflow';

import type { AnswerSignal, PaceRefusal, PaceTicket, RequestPace } from '../adaptiveLimit';
import type { AnswerHold } from '../answerBudget';
import { answerReservation } from '../answerBudget';
import { secretForms, shortKeyProblem } from '../redaction';
import { settle } from '../settle';
import {
	CLEAN_AT_ONCE_CHARS,
	cleanParsed,
	cleanSmallParsed,
	isByteStream,
	jsonShapeProblem,
	MAX_ERROR_ANSWER_BYTES,
	MAX_JOB_ANSWER_BYTES,
	readCapped,
	sizeInWords,
} from './answer';
import type { ReadOutcome } from './answer';
import { AttemptStop, DeadlineClock, waitedAtStart as waitedAtStartOf, wallCeilingAt } from './deadlineClock';
import type { StopNotice } from './deadlineClock';
import { readListAnswer } from './listReader';
import type { Failure } from './errors';
import { classifyFailure, parseRetryAfter, toNodeApiError } from './errors';
import type { ApiCall, Connection } from './requestBuilders';
import { buildRequest } from './requestBuilders';
import type { CredentialType } from './serviceCredentials';
import { credentialProblem, normalizeServiceUrl, RELAY_CREDENTIAL } from './serviceCredentials';

export * from './requestBuilders';
export * from './serviceCredentials';
export * from './answer';
export * from './listReader';
export { AttemptStop, DeadlineClock, wallCeiling, wallCeilingAt } from './deadlineClock';
export { failureInWords, isRetryableError, retryAfterMs } from './errors';

export type ApiContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

/** A connection plus every form of its secrets (see secretForms), none of which may appear in an error. */
export interface ResolvedConnection extends Connection {
	secrets: string[];
	/** Version 2's adaptive limit of the execution, told how every attempt went (none: nothing is told). */
	pace?: RequestPace;
	/** The run's one clock for every attempt's deadline (none: each call brings its own). */
	clock?: DeadlineClock;
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
	/** How far past an attempt's limit n8n's helper times its socket out, in wall time (the clock ends the attempt at the limit). */
	helperMarginMs: 1000,
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
	// A key too short to hide is refused here, before anything is sent, on every path (as the credential Test does).
	const problem = normalized.problem ?? credentialProblem(credentials, credentialType) ?? shortKeyProblem(credentialType === RELAY_CREDENTIAL, credentials);
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
		return claimsJson(text, contentType) ? undefined : raw;
	}
}

function claimsJson(text: string, contentType: string): boolean {
	return /\bjson\b/i.test(contentType) || text.startsWith('{') || text.startsWith('[');
}

type Reading = { body: unknown; failure?: undefined } | { body?: undefined; failure: Failure };

/** Answers longer than this give the event loop a turn between their parse and their redaction. */
const YIELD_AFTER_PARSE_CHARS = 1024 * 1024;

/**
 * A success answer's text, believed only within the bounds (see answer.ts): its JSON shape checked before it is
 * parsed, then every string redacted with the connection's secret forms and cut, as errors are. An answer of up to
 * CLEAN_AT_ONCE_CHARS is believed at once, with no promise (the usual job answer); a longer one is cleaned with turns
 * of the event loop (cleanParsed).
 */
export function believe(text: string, contentType: string, statusCode: number, secrets: readonly string[]): Reading | Promise<Reading> {
	const trimmed = text.trim();
	if (trimmed === '') return { body: null };
	const shape = trimmed.startsWith('{') || trimmed.startsWith('[') ? jsonShapeProblem(trimmed) : null;
	if (shape !== null) return { failure: { kind: 'oversized', statusCode, problem: shape } };
	let parsed: unknown;
	try {
		parsed = JSON.parse(trimmed);
	} catch {
		if (claimsJson(trimmed, contentType)) return { failure: { kind: 'unreadable', statusCode, problem: 'is not valid JSON' } };
		parsed = text;
	}
	return trimmed.length <= CLEAN_AT_ONCE_CHARS ? { body: cleanSmallParsed(parsed, secrets) } : cleanedLater(parsed, trimmed.length, secrets);
}

/** A long answer's parse and its redaction are two stretches of work, with a turn of the event loop between them. */
async function cleanedLater(parsed: unknown, chars: number, secrets: readonly string[]): Promise<Reading> {
	if (chars > YIELD_AFTER_PARSE_CHARS) await sleep(0);
	return { body: await cleanParsed(parsed, secrets) };
}

/**
 * A list answer (up to 100 jobs with their logs): read as a stream by listReader.ts. One within LIST_KEPT_WHOLE_BYTES
 * is believed as any answer is; a longer one comes built, with its long fields cut, and is cleaned the same way.
 */
async function believeList(response: IN8nHttpFullResponse, contentType: string, connection: ResolvedConnection, stop: StopNotice, bytesIn: () => void): Promise<Attempt> {
	const { statusCode } = response;
	const read = await settle(readListAnswer(response.body, stop, connection.secrets));
	if (!read.ok) return { failure: networkFailure(read.error, statusCode) };
	bytesIn();
	const list = read.value;
	if (list.problem !== undefined) return { failure: { kind: list.kind, statusCode, problem: list.problem } };
	if (list.text === undefined) return { response: { statusCode, body: await cleanParsed(list.body, connection.secrets) } };
	const reading = await believe(list.text, contentType, statusCode, connection.secrets);
	return reading.failure ? { failure: reading.failure } : { response: { statusCode, body: reading.body } };
}

function headerValue(headers: IN8nHttpFullResponse['headers'] | undefined, name: string): string {
	const value = headers?.[name] ?? headers?.[name.toLowerCase()];
	return Array.isArray(value) ? String(value[0] ?? '') : String(value ?? '');
}

/** zlib's and brotli's error codes: the answer arrived but its compression is corrupt. */
function isDecodingError(code: string): boolean {
	return code.startsWith('Z_') || code.startsWith('ERR__') || code === 'ERR_BROTLI_DECOMPRESSION_FAILED';
}

/**
 * The error's code: its own `code`, or where n8n 1.x keeps it. 1.x's NodeApiError drops an Error cause (a class field
 * `cause` declared after super() resets it) and keeps the code of the request's error as `httpCode` (found with the
 * status keys, n8n-workflow 1.x errors/node-api.error.js), a name such as DEPTH_ZERO_SELF_SIGNED_CERT, never a status.
 */
function errorCode(candidate: unknown): unknown {
	const { code, httpCode } = candidate as { code?: unknown; httpCode?: unknown };
	if (code !== undefined) return code;
	return typeof httpCode === 'string' && /^[A-Z][A-Z_0-9]{2,}$/.test(httpCode) ? httpCode : undefined;
}

function networkFailure(error: unknown, statusCode?: number): Failure {
	const candidates: unknown[] = [];
	let current: unknown = error;
	for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
		candidates.push(current);
		current = (current as { cause?: unknown }).cause;
	}
	for (const candidate of candidates) {
		const code = errorCode(candidate);
		if (typeof code === 'string' && statusCode !== undefined && isDecodingError(code)) {
			return { kind: 'unreadable', statusCode, problem: 'could not be decoded (its compression is corrupt)' };
		}
		if (typeof code === 'string' && /^[A-Z_0-9]{3,}$/.test(code) && code !== 'ERR_BAD_RESPONSE') {
			return { kind: 'network', code: code === 'ERR_CANCELED' ? 'ABORTED' : code, detail: '', answered: statusCode };
		}
	}
	const message = error instanceof Error ? error.message : '';
	// A failure while the body is read comes after the service answered: never "cannot be reached" (errors.ts).
	if (/timeout/i.test(message)) return { kind: 'network', code: 'ETIMEDOUT', detail: '', answered: statusCode };
	if (/socket hang up|aborted/i.test(message)) return { kind: 'network', code: 'ECONNRESET', detail: '', answered: statusCode };
	return { kind: 'network', code: 'EREQUEST', detail: '', answered: statusCode };
}

function cancelSignal(context: ApiContext): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined;
}

function cancelled(context: ApiContext): boolean {
	return cancelSignal(context)?.aborted === true;
}

/** `backOff`: how a busy refusal waits its retry delay under a pace (cut short by a cut, adaptiveLimit.ts). */
type Attempt = { response: ApiResponse; failure?: undefined } | { response?: undefined; failure: Failure; backOff?: (ms: number, cancel?: AbortSignal) => Promise<void> };

const LATE: Attempt = { failure: { kind: 'deadline', seconds: 0 } };

/**
 * One exchange, never past `limitMs` of waiting on the service (deadlineClock.ts): the clock ends it then, whatever
 * the request and the reading of its body are doing; both stop (the reader at once, the request where n8n lets its
 * signal through). The clock stops once the answer's last byte is in: believing it is the node's own work.
 */
async function attemptOnce(context: ApiContext, connection: ResolvedConnection, call: ApiCall, limitMs: number, clock: DeadlineClock, ceilingAt: number, hold?: AnswerHold): Promise<Attempt> {
	const stop = new AttemptStop();
	const helperTimeoutMs = limitMs + transportTiming.helperMarginMs;
	// A new object per attempt (buildRequest builds one), completed in place rather than copied.
	const request: IHttpRequestOptions = buildRequest(connection, call);
	// The body as a stream of decoded bytes: answer.ts counts them and stops at the cap (n8n reads without limit).
	request.encoding = 'stream';
	request.json = false;
	request.returnFullResponse = true;
	request.ignoreHttpStatusErrors = true;
	// Keys stay with the service: a redirect is an answer to report, never a hop to take.
	request.disableFollowRedirect = true;
	// The helper's idle timeout only ends a socket n8n keeps open after the clock gave the attempt up: set past the
	// limit, and a failure that ends the exchange past it is the deadline's, never "cannot be reached".
	request.timeout = helperTimeoutMs;
	// Polls keep a signal, so a late request is aborted there too. Executions would replace it with their cancel
	// signal (n8n-core's httpRequestWithAuthentication, request-helpers/authentication.js): none is built for them.
	if (!('getExecutionCancelSignal' in context)) request.abortSignal = stop.signal;
	const sentAt = Date.now();
	return await new Promise<Attempt>((resolve) => {
		const deadline = clock.add(
			limitMs,
			() => {
				stop.stop();
				resolve(LATE);
			},
			ceilingAt,
		);
		const bytesIn = () => clock.finish(deadline);
		const ended = (attempt: Attempt) => {
			clock.finish(deadline);
			// The helper's timer fires only past the limit: a failure that comes that late is the deadline, whichever
			// timer ran first (on a loaded machine both are due at once).
			resolve(attempt.failure?.kind === 'network' && Date.now() - sentAt >= helperTimeoutMs ? LATE : attempt);
		};
		(context.helpers.httpRequestWithAuthentication.call(context, connection.credentialType, request) as Promise<IN8nHttpFullResponse>)
			.then((response) => readResponse(response, call, connection, stop, bytesIn, hold))
			.then(ended, (error: unknown) => ended({ failure: networkFailure(error) }));
	});
}

/** What a pace gave a request: a slot, a refusal to wait out a pause, or nothing (the execution was cancelled). */
type Slot = PaceTicket | PaceRefusal | undefined;

/** A free slot at once; only a request that must wait for one awaits it. */
async function takeSlot(pace: RequestPace, callLeftMs: number): Promise<Slot> {
	return pace.takeNow() ?? (await pace.slot(callLeftMs));
}

/**
 * An attempt sent when the connection's pace (if any) gives it a slot (`taken`: one its call already waited for), and
 * whose outcome the pace hears of. It ends by `ceilingAt`, its call's wall ceiling (withRetries), and is not sent once
 * that passed while it waited for a slot.
 */
async function pacedAttempt(context: ApiContext, connection: ResolvedConnection, call: ApiCall, limitMs: number, clock: DeadlineClock, endAt: number | undefined, ceilingAt: number, callLeftMs = limitMs, taken?: { slot: Slot }): Promise<Attempt> {
	const pace = connection.pace;
	if (!pace) return await attemptOnce(context, connection, call, limitMs, clock, ceilingAt);
	const ticket = taken ? taken.slot : await takeSlot(pace, callLeftMs);
	if (!ticket) return { failure: { kind: 'network', code: 'ABORTED', detail: '' } };
	// A Retry-After pause longer than the call can wait: never sent, it fails now as the refusal would, saying when.
	if ('refusedFor' in ticket) return { failure: { kind: 'status', statusCode: ticket.statusCode, body: '', retryAfterMs: ticket.refusedFor, notSent: true } };
	// Waiting for a slot (and the answer budget it takes, answerBudget.ts) is n8n's own queueing: it takes nothing from
	// the attempt, only from an end the caller set.
	const limit = Date.now() >= ceilingAt ? 0 : endAt === undefined ? limitMs : Math.min(limitMs, endAt - Date.now());
	let heard: Parameters<RequestPace['answered']> = [ticket, 'neutral'];
	let outcome = LATE;
	try {
		outcome = limit > 0 ? await attemptOnce(context, connection, call, limit, clock, ceilingAt, ticket.answer) : LATE;
		const failure = outcome.failure;
		if (limit > 0) heard = [ticket, answerSignal(failure), failure?.kind === 'status' ? failure.retryAfterMs : undefined, failure?.kind === 'status' ? failure.statusCode : undefined];
	} finally {
		pace.answered(...heard);
	}
	// A busy refusal without Retry-After: resent at its next slot once a cut has answered it (now, or during its delay).
	const failure = outcome.failure;
	if (failure?.kind !== 'status' || heard[1] !== 'busy' || failure.retryAfterMs !== undefined) return outcome;
	if (pace.withdrawn(ticket)) return { failure: { ...failure, withdrawn: true } };
	return { failure, backOff: async (ms, cancel) => await pace.backOff(ticket, ms, cancel) };
}

/** Codes of a connection the service dropped or let stall: a sign of load, like a 503. */
const LOAD_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ECONNRESET', 'ECONNABORTED']);

/** What an attempt says about the service's load: 429, 503 and timeouts say it is overwhelmed. */
function answerSignal(failure: Failure | undefined): AnswerSignal {
	if (failure === undefined) return 'ok';
	switch (failure.kind) {
		case 'status':
			if (failure.statusCode === 429 || failure.statusCode === 503) return 'busy';
			// A refusal of the request (404, 400) is a fast, sound answer; a server error is no reason to send more.
			return failure.statusCode < 500 ? 'ok' : 'neutral';
		case 'deadline':
			return 'busy';
		case 'network':
			return LOAD_CODES.has(failure.code) ? 'busy' : 'neutral';
		default:
			return 'neutral';
	}
}

/** The body within `maxBytes`; a failure while it is read carries the status, so decoding errors are told apart. */
async function readBody(response: IN8nHttpFullResponse, maxBytes: number, stop: StopNotice): Promise<ReadOutcome | { failure: Failure }> {
	try {
		return await readCapped(response.body, maxBytes, stop);
	} catch (error) {
		return { failure: networkFailure(error, response.statusCode) };
	}
}

/**
 * A job answer (a read's or a submission's), within the cap. Its share of the execution's answer budget, taken with
 * its slot (answerBudget.ts), becomes what this answer may hold before its body is read; it is given back with the slot.
 */
async function readJobAnswer(response: IN8nHttpFullResponse, contentType: string, connection: ResolvedConnection, stop: StopNotice, bytesIn: () => void, hold?: AnswerHold): Promise<Attempt> {
	const { statusCode } = response;
	const cap = MAX_JOB_ANSWER_BYTES;
	const headers = response.headers;
	await hold?.resize(answerReservation(headerValue(headers, 'content-length'), headerValue(headers, 'content-encoding'), cap));
	const read = await readBody(response, cap, stop);
	if ('failure' in read) return { failure: read.failure };
	bytesIn();
	if (read.tooLarge) return { failure: { kind: 'oversized', statusCode, problem: `is larger than ${sizeInWords(cap)}` } };
	const reading = await believe(read.text, contentType, statusCode, connection.secrets);
	return reading.failure ? { failure: reading.failure } : { response: { statusCode, body: reading.body } };
}

async function readResponse(response: IN8nHttpFullResponse, call: ApiCall, connection: ResolvedConnection, stop: StopNotice, bytesIn: () => void, hold?: AnswerHold): Promise<Attempt> {
	const { statusCode } = response;
	if (statusCode >= 300 && statusCode < 400) {
		if (isByteStream(response.body)) response.body.destroy();
		return { failure: { kind: 'redirect', statusCode, location: headerValue(response.headers, 'location') } };
	}
	const contentType = headerValue(response.headers, 'content-type');
	if (statusCode >= 200 && statusCode < 300) {
		if (call.intent === 'list') return await believeList(response, contentType, connection, stop, bytesIn);
		return await readJobAnswer(response, contentType, connection, stop, bytesIn, hold);
	}
	// An error answer is read up to 64 KiB for its message (toNodeApiError redacts it); a longer one is dropped: the status says enough.
	const read = await readBody(response, MAX_ERROR_ANSWER_BYTES, stop);
	if ('failure' in read) return { failure: read.failure };
	const text = read.text ?? '';
	const body = parseBody(text, contentType);
	const retryAfter = statusCode === 429 || statusCode === 503 ? parseRetryAfter(headerValue(response.headers, 'retry-after')) : undefined;
	return { failure: { kind: 'status', statusCode, body: body ?? text, retryAfterMs: retryAfter } };
}

/** Seconds for messages: whole above 10 s, one decimal below. */
function seconds(ms: number): number {
	return ms >= 10_000 ? Math.round(ms / 1000) : Math.round(ms / 100) / 10;
}

/** How long to wait before the next attempt, or undefined when the failure ends the call now (`left`: its budget). */
function nextDelay(failure: Failure, call: ApiCall, attempt: number, left: number, retries: boolean): number | undefined {
	const delay = transportTiming.retryDelaysMs[attempt];
	if (!retries || delay === undefined || !classifyFailure(failure, call.intent).retry) return undefined;
	// A Retry-After is honoured when it fits in the call's deadline; otherwise the call fails now, saying when. A refusal
	// the in-flight limit has been cut for is resent at its next slot: the cut is its backoff (adaptiveLimit.ts).
	const wait = failure.kind !== 'status' ? delay : failure.retryAfterMs !== undefined ? Math.max(delay, failure.retryAfterMs) : failure.withdrawn ? 0 : delay;
	return wait < left ? wait : undefined;
}

export interface ApiRequestOptions {
	itemIndex?: number;
	/** Epoch ms by which the call ends (at most transportTiming.callMs from now). */
	deadline?: number;
	/** When the bound began, for the message (this call, or the poll it is part of). */
	startedAt?: number;
	/**
	 * One attempt only, for loops that pace their own reads (Wait for Completion never reads a job more often than
	 * its Poll Interval): they retry later with retryAfterMs and isRetryableError.
	 */
	singleAttempt?: boolean;
}

/**
 * The one door to the service, for every operation, the trigger, the wait loop, the list search and the credential
 * test. A call ends by its deadline whatever the service does, and every answer is bounded before it is believed
 * (answer.ts). Whether a failure is retried (with bounded backoff, inside the deadline, after any Retry-After) is
 * decided by classifyFailure from the call's intent.
 */
export function apiRequest(this: ApiContext, connection: ResolvedConnection, call: ApiCall, options: ApiRequestOptions = {}): Promise<ApiResponse> {
	return connection.clock ? withRetries(this, connection, call, options, connection.clock) : onItsOwnClock(this, connection, call, options);
}

/** A call outside a node run (a poll, the list search, the credential test): its own clock, closed when it ends. */
async function onItsOwnClock(context: ApiContext, connection: ResolvedConnection, call: ApiCall, options: ApiRequestOptions): Promise<ApiResponse> {
	const clock = new DeadlineClock();
	try {
		return await withRetries(context, connection, call, options, clock);
	} finally {
		clock.close();
	}
}

/** A call's own limit, from now: the call's, or less when the caller's end (a Wait's Timeout) comes sooner. */
function callBudget(options: ApiRequestOptions): number {
	return Math.min((options.deadline ?? Infinity) - Date.now(), transportTiming.callMs);
}

async function withRetries(context: ApiContext, connection: ResolvedConnection, call: ApiCall, options: ApiRequestOptions, clock: DeadlineClock): Promise<ApiResponse> {
	// A bound that began before the call (a trigger poll, by its startedAt) counts from its start, the node's work
	// between calls left out. Any other call starts when its first request may be sent: the wait for a slot (and the
	// answer budget it takes) is n8n's own queue, never the service's time nor a reason to fail (guarantees.md).
	const shared = options.startedAt !== undefined && options.deadline !== undefined;
	const first = !shared && connection.pace ? { slot: await takeSlot(connection.pace, callBudget(options)) } : undefined;
	const started = options.startedAt ?? Date.now();
	// The call's limit counts waiting time, as each attempt's does: the node's own work never uses it up.
	const budget = shared ? Math.min((options.deadline as number) - started, transportTiming.callMs) : callBudget(options);
	const waitedAtStart = shared ? waitedAtStartOf(started, clock.waited) : clock.waited();
	// The run's ceiling is the run's (a shared bound's is its poll's): every attempt ends by it, however late it starts.
	const ceilingAt = wallCeilingAt(started, budget);
	for (let attempt = 0; ; attempt++) {
		// A call's first attempt has its whole budget (no time has passed since it was counted); a shared bound's is counted.
		const left = Date.now() >= ceilingAt ? 0 : attempt === 0 && !shared ? budget : budget - (clock.waited() - waitedAtStart);
		// A slot taken is always given back through the attempt, which sends nothing when no time is left.
		const taken = attempt === 0 ? first : undefined;
		const outcome = left > 0 || taken ? await pacedAttempt(context, connection, call, Math.min(left, transportTiming.attemptMs), clock, options.deadline, ceilingAt, left, taken) : LATE;
		if (outcome.response) return outcome.response;
		// A deadline failure reports the time spent since the bound began (this call, or the poll it is part of).
		const failure: Failure =
			outcome.failure.kind === 'deadline' ? { kind: 'deadline', seconds: seconds(Date.now() - started) } : outcome.failure;
		// A delay is slept in wall time: it must end before the ceiling, as well as within the waiting time left.
		const room = Math.min(budget - (clock.waited() - waitedAtStart), ceilingAt - Date.now());
		const delay = nextDelay(failure, call, attempt, room, options.singleAttempt !== true);
		if (delay === undefined || cancelled(context)) {
			throw toNodeApiError(context.getNode(), failure, call, connection, connection.secrets, options.itemIndex);
		}
		// A long Retry-After wait ends when the execution is cancelled (the next turn then throws).
		await (outcome.backOff ?? sleep)(delay, cancelSignal(context)).catch(() => undefined);
	}
}
