/**
 * The one door to the service (nodes/shared/transport/index.ts), driven through a stand-in for n8n's helper that
 * answers what each case needs: the request exactly as it is handed to the helper, what each answer becomes (a
 * redirect, an error body at its cap, a Retry-After heard only where it means something, a thrown library error
 * found by its code), what the limiter hears of each attempt, and the retries a call makes. The real helper and real
 * servers prove the same paths end to end (test/nodes/transport.test.ts, hostileService.test.ts); this stand-in
 * reaches the answers and errors no server can send at will (a cause four levels deep, a corrupt-compression code
 * after the headers). The stand-in answers as n8n-core's httpRequestWithAuthentication does with returnFullResponse and
 * encoding 'stream' (request-helpers: statusCode, headers, body as a Node stream); test/e2e runs the real one.
 */
import { Readable } from 'stream';

import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import type { AnswerSignal, PaceRefusal, PaceTicket, RequestPace } from '../../nodes/shared/adaptiveLimit';
import { AnswerBudget } from '../../nodes/shared/answerBudget';
import { apiRequest, believe, failureInWords, getConnection, isRetryableError, listCall, readJobCall, retryAfterMs, submitCall, transportTiming } from '../../nodes/shared/transport';
import type { ResolvedConnection } from '../../nodes/shared/transport';
import { secretForms } from '../../nodes/shared/redaction';

const KEY = `tok&<>"'+/%-door-0123456789`;

interface Answer {
	statusCode?: number;
	headers?: Record<string, string | string[]>;
	body?: string | Buffer;
	/** Thrown by the helper instead of an answer. */
	throws?: unknown;
	/** The body's stream fails with this after its first chunk. */
	breaks?: unknown;
}

/** n8n's helper, standing in: hands back each answer in turn as a stream, and keeps what it was given. */
function standIn(answers: Answer[], execution = true) {
	const sent: Array<{ credentialType: string; options: IHttpRequestOptions }> = [];
	const destroyed: boolean[] = [];
	const context = {
		getNode: () => ({ id: 'n', name: 'Job Execution', type: 'jobExecution', typeVersion: 2, position: [0, 0], parameters: {} }),
		...(execution ? { getExecutionCancelSignal: () => undefined } : {}),
		helpers: {
			httpRequestWithAuthentication: async (credentialType: string, options: IHttpRequestOptions) => {
				sent.push({ credentialType, options: { ...options } });
				const answer = answers.shift() ?? { statusCode: 200, body: '{}' };
				if (answer.throws !== undefined) throw answer.throws;
				const chunks = [Buffer.from(answer.body ?? '')];
				const body = answer.breaks === undefined ? Readable.from(chunks) : broken(chunks[0], answer.breaks);
				const index = destroyed.push(false) - 1;
				const destroy = body.destroy.bind(body);
				body.destroy = (error?: Error) => {
					destroyed[index] = true;
					return destroy(error);
				};
				return { statusCode: answer.statusCode ?? 200, headers: answer.headers ?? {}, body };
			},
		},
	} as unknown as IExecuteFunctions;
	return { context, sent, destroyed };
}

function broken(first: Buffer, error: unknown): Readable {
	let pushed = false;
	return new Readable({
		read() {
			if (!pushed) {
				pushed = true;
				this.push(first);
			} else this.destroy(error as Error);
		},
	});
}

const connection = (extra: Partial<ResolvedConnection> = {}): ResolvedConnection => ({ credentialType: 'jobExecutionApi', baseUrl: 'http://127.0.0.1:9', secrets: secretForms([KEY]), ...extra });

async function outcome(promise: Promise<unknown>): Promise<{ body?: unknown; statusCode?: number; error?: Error & { httpCode?: string | null; description?: string | null } }> {
	try {
		return (await promise) as { body: unknown; statusCode: number };
	} catch (error) {
		return { error: error as Error };
	}
}

const productionDelays = transportTiming.retryDelaysMs;
const productionTiming = { ...transportTiming };
beforeEach(() => (transportTiming.retryDelaysMs = [1, 1, 1]));
afterAll(() => (transportTiming.retryDelaysMs = productionDelays));

describe('the request handed to n8n\'s helper', () => {
	test('a stream of decoded bytes, the full response, no status errors, no redirect followed, the helper\'s timeout past the attempt', async () => {
		const { context, sent } = standIn([{ statusCode: 200, body: '{"id":"j"}' }]);
		await apiRequest.call(context, connection(), readJobCall('j'));
		expect(sent).toHaveLength(1);
		expect(sent[0].credentialType).toBe('jobExecutionApi');
		expect(sent[0].options).toMatchObject({
			method: 'GET',
			url: 'http://127.0.0.1:9/api/v1/jobs/j',
			encoding: 'stream',
			json: false,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			timeout: transportTiming.attemptMs + transportTiming.helperMarginMs,
		});
		// An execution's helper brings its own cancel signal: the transport sets none.
		expect(sent[0].options.abortSignal).toBeUndefined();
	});

	test('a poll (no execution signal) gets the attempt\'s own abort signal, not yet aborted', async () => {
		const { context, sent } = standIn([{ statusCode: 200, body: '[]' }], false);
		await apiRequest.call(context, connection({ credentialType: 'jobExecutionRelayApi' }), listCall('active'));
		expect(sent[0].credentialType).toBe('jobExecutionRelayApi');
		expect(sent[0].options.abortSignal).toBeInstanceOf(AbortSignal);
	});

	test('a call limited by its caller\'s end: the attempt and the helper\'s timeout shrink with it', async () => {
		const { context, sent } = standIn([{ statusCode: 200, body: '{}' }]);
		const before = Date.now();
		await apiRequest.call(context, connection(), readJobCall('j'), { deadline: before + 30_000 });
		const timeout = sent[0].options.timeout as number;
		expect(timeout).toBeLessThanOrEqual(30_000 + transportTiming.helperMarginMs);
		expect(timeout).toBeGreaterThan(transportTiming.helperMarginMs);
	});
});

describe('what each answer becomes', () => {
	test('3xx is a redirect, never followed: its body dropped unread, its Location read whatever the header\'s form', async () => {
		for (const [statusCode, headers, host] of [
			[300, { location: 'http://a.example/x' }, 'a.example'],
			[399, { location: ['http://b.example/', 'http://c.example/'] }, 'b.example'],
			[301, { location: [] as string[] }, 'no address'],
			[302, {}, 'no address'],
		] as const) {
			const { context, sent, destroyed } = standIn([{ statusCode, headers: headers as Record<string, string | string[]>, body: 'moved' }]);
			const { error } = await outcome(apiRequest.call(context, connection(), readJobCall('j')));
			expect(error?.message).toBe(`The service answered job j with a redirect (HTTP ${statusCode}) to ${host}: not followed, the keys were not sent there`);
			expect(destroyed).toEqual([true]);
			// Never retried: the same request gets the same redirect.
			expect(sent).toHaveLength(1);
		}
	});

	test('2xx is read as the answer (299 too); 199 and 400 are not', async () => {
		for (const statusCode of [200, 201, 202, 299]) {
			const { context } = standIn([{ statusCode, body: '{"id":"j","note":"x"}' }]);
			expect(await apiRequest.call(context, connection(), readJobCall('j'))).toEqual({ statusCode, body: { id: 'j', note: 'x' } });
		}
		const { context } = standIn([{ statusCode: 199, body: '{"message":"early"}' }]);
		expect((await outcome(apiRequest.call(context, connection(), readJobCall('j')))).error?.message).toBe('Unexpected answer from the service (HTTP 199): early');
	});

	test('an error answer is read up to 64 KiB for its message, keys hidden; one byte more and only the status speaks', async () => {
		const message = (length: number) => JSON.stringify({ message: `flow ${KEY} locked`, pad: 'p'.repeat(length) });
		const pad = 64 * 1024 - message(0).length;
		expect(message(pad)).toHaveLength(64 * 1024);
		const atCap = standIn([{ statusCode: 409, body: message(pad) }]);
		expect((await outcome(apiRequest.call(atCap.context, connection(), readJobCall('j')))).error?.message).toBe('Unexpected answer from the service (HTTP 409): flow *** locked');
		const past = standIn([{ statusCode: 409, body: message(pad + 1) }]);
		expect((await outcome(apiRequest.call(past.context, connection(), readJobCall('j')))).error?.message).toBe('Unexpected answer from the service (HTTP 409)');
		expect(past.destroyed).toEqual([true]);
	});

	test('an error body that is not JSON is its text; one that claims JSON and breaks is its text too', async () => {
		const text = standIn([{ statusCode: 409, headers: { 'content-type': 'text/plain' }, body: '  busy right now  ' }]);
		expect((await outcome(apiRequest.call(text.context, connection(), readJobCall('j')))).error?.message).toBe('Unexpected answer from the service (HTTP 409): busy right now');
		const claims = standIn([{ statusCode: 409, headers: { 'content-type': 'application/json' }, body: 'not {json' }]);
		expect((await outcome(apiRequest.call(claims.context, connection(), readJobCall('j')))).error?.message).toBe('Unexpected answer from the service (HTTP 409): not {json');
	});

	test('Retry-After is heard on 429 and 503 only, as seconds or a date, whatever the header\'s form', async () => {
		const asked = async (statusCode: number, headers: Record<string, string | string[]>) => {
			const { context } = standIn([{ statusCode, headers, body: '' }]);
			return retryAfterMs((await outcome(apiRequest.call(context, connection(), readJobCall('j'), { singleAttempt: true }))).error);
		};
		expect(await asked(429, { 'retry-after': '7' })).toBe(7000);
		expect(await asked(503, { 'retry-after': ['3', '9'] })).toBe(3000);
		expect(await asked(503, { 'retry-after': new Date(Date.now() + 3_600_000).toUTCString() })).toBeGreaterThan(3_500_000);
		expect(await asked(500, { 'retry-after': '7' })).toBeUndefined();
		expect(await asked(502, { 'retry-after': '7' })).toBeUndefined();
		expect(await asked(429, {})).toBeUndefined();
	});

	test('a job answer over 4 MiB is refused, not retried; the list is read by the list reader', async () => {
		const big = standIn([{ statusCode: 200, body: `{"log":"${'x'.repeat(4 * 1024 * 1024)}"}` }]);
		const { error } = await outcome(apiRequest.call(big.context, connection(), readJobCall('j')));
		expect(error?.message).toBe("The service's answer is larger than 4 MiB (HTTP 200): not read further");
		expect(big.sent).toHaveLength(1);
		const list = standIn([{ statusCode: 200, body: JSON.stringify([{ id: 'a', note: KEY }]) }]);
		expect(await apiRequest.call(list.context, connection(), listCall())).toEqual({ statusCode: 200, body: [{ id: 'a', note: '***' }] });
	});

	test('a list beyond the bounds is refused as oversized; a broken list answer is unreadable and read again', async () => {
		const deep = standIn([{ statusCode: 200, body: `${'['.repeat(40)}${']'.repeat(40)}` }]);
		expect((await outcome(apiRequest.call(deep.context, connection(), listCall()))).error?.message).toBe("The service's answer is nested deeper than 32 levels (HTTP 200): not read further");
		expect(deep.sent).toHaveLength(1);
		const torn = standIn([{ statusCode: 200, body: '[{"id":' }, { statusCode: 200, body: '[]' }]);
		expect(await apiRequest.call(torn.context, connection(), listCall())).toEqual({ statusCode: 200, body: [] });
		expect(torn.sent).toHaveLength(2);
	});
});

describe('believe: an answer\'s text, within the bounds', () => {
	test('empty is null; text that does not claim JSON is kept as sent; text that claims it and breaks is unreadable', () => {
		expect(believe('  \n ', '', 200, [])).toEqual({ body: null });
		expect(believe('  done  ', 'text/plain', 200, [])).toEqual({ body: '  done  ' });
		for (const [text, type] of [
			['{"a":', ''],
			['[1,', ''],
			['done', 'application/json'],
			['done', 'application/problem+json; charset=utf-8'],
		]) {
			expect(believe(text, type, 201, [])).toEqual({ failure: { kind: 'unreadable', statusCode: 201, problem: 'is not valid JSON' } });
		}
		// A word that holds "json" is not the JSON type.
		expect(believe('done', 'application/jsonish', 200, [])).toEqual({ body: 'done' });
		expect(believe(`  ${JSON.stringify({ k: KEY })}  `, '', 200, secretForms([KEY]))).toEqual({ body: { k: '***' } });
	});

	test('a shape beyond the bounds is oversized, checked only for a text that starts as JSON', () => {
		expect(believe(` ${'{"a":'.repeat(33)}1${'}'.repeat(33)}`, '', 200, [])).toEqual({ failure: { kind: 'oversized', statusCode: 200, problem: 'is nested deeper than 32 levels' } });
		expect(believe(`x${'['.repeat(40)}`, 'text/plain', 200, [])).toEqual({ body: `x${'['.repeat(40)}` });
	});
});

describe('a thrown library error, found by its code', () => {
	const code = (value: string) => Object.assign(new Error('failed'), { code: value });
	const nest = (inner: unknown, levels: number): unknown => (levels === 0 ? inner : nest(Object.assign(new Error('wrapped'), { cause: inner }), levels - 1));
	const httpCodeOf = async (thrown: unknown) => {
		const { context } = standIn([{ throws: thrown }]);
		const { error } = await outcome(apiRequest.call(context, connection(), readJobCall('j'), { singleAttempt: true }));
		return error?.httpCode;
	};

	test.each<[string, unknown, string]>([
		['its own code', code('ECONNREFUSED'), 'ECONNREFUSED'],
		['a code three causes down', nest(code('ENOTFOUND'), 3), 'ENOTFOUND'],
		['a code four causes down: not searched', nest(code('ENOTFOUND'), 4), 'EREQUEST'],
		["axios's ERR_BAD_RESPONSE skipped for its cause's", Object.assign(code('ERR_BAD_RESPONSE'), { cause: code('ECONNRESET') }), 'ECONNRESET'],
		['a cancel is an abort', code('ERR_CANCELED'), 'ABORTED'],
		['a lowercase code is no code', code('econnreset'), 'EREQUEST'],
		['two letters are no code', code('EX'), 'EREQUEST'],
		['three are', code('EXY'), 'EXY'],
		['a code with a dash is no code', code('E-RESET'), 'EREQUEST'],
		['a number is no code', Object.assign(new Error('failed'), { code: 42 }), 'EREQUEST'],
		['a timeout told by its words', new Error('timeout of 21000ms exceeded'), 'ETIMEDOUT'],
		['a hang-up told by its words', new Error('socket hang up'), 'ECONNRESET'],
		['an abort told by its words', new Error('Request Aborted'), 'ECONNRESET'],
		['words of a value that is no Error are not read', 'timeout', 'EREQUEST'],
		['null', null, 'EREQUEST'],
		['a compression code before any answer is a network code', code('Z_DATA_ERROR'), 'Z_DATA_ERROR'],
	])('%s', async (_name, thrown, expected) => {
		expect(await httpCodeOf(thrown)).toBe(expected);
	});

	test.each(['Z_DATA_ERROR', 'Z_BUF_ERROR', 'ERR__ERROR_FORMAT_PADDING_1', 'ERR_BROTLI_DECOMPRESSION_FAILED'])('%s while the body is read: corrupt compression, an answer that came (never "cannot be reached")', async (name) => {
		const { context, sent } = standIn([{ statusCode: 200, body: '{"a":', breaks: Object.assign(new Error('bad'), { code: name }) }, { statusCode: 200, body: '{}' }]);
		const { error } = await outcome(apiRequest.call(context, connection(), readJobCall('j'), { singleAttempt: true }));
		expect(error?.message).toBe("The service's answer could not be decoded (its compression is corrupt) (HTTP 200)");
		expect(sent).toHaveLength(1);
	});

	test('another failure while the body is read: the connection broke after the answer came', async () => {
		const { context } = standIn([{ statusCode: 200, body: '{"a":', breaks: Object.assign(new Error('reset'), { code: 'ERR_BROTLI' }) }]);
		const { error } = await outcome(apiRequest.call(context, connection(), readJobCall('j'), { singleAttempt: true }));
		expect(error?.message).toBe('The service at 127.0.0.1:9 answered job j (HTTP 200), but the connection broke before its answer ended (ERR_BROTLI)');
		expect(failureInWords(error)).toBe('the connection broke while the answer was read');
	});

	test('an error answer\'s body that breaks: the status of the answer is kept', async () => {
		const { context } = standIn([{ statusCode: 503, body: 'x', breaks: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) }]);
		const { error } = await outcome(apiRequest.call(context, connection(), readJobCall('j'), { singleAttempt: true }));
		expect(error?.message).toContain('answered job j (HTTP 503), but the connection broke');
		expect(isRetryableError(error)).toBe(true);
	});
});

/** A limiter that gives every slot at once and keeps what it hears. */
function recordingPace(slot: () => PaceTicket | PaceRefusal | undefined = () => ({ seq: 1 }), withdrawn = false) {
	const heard: Array<[AnswerSignal, number | undefined, number | undefined]> = [];
	const backOffs: number[] = [];
	const pace: RequestPace = {
		takeNow: () => undefined,
		slot: async () => slot(),
		answered: (_ticket, signal, retryAfter, statusCode) => void heard.push([signal, retryAfter, statusCode]),
		withdrawn: () => withdrawn,
		backOff: async (_ticket, ms) => void backOffs.push(ms),
	};
	return { pace, heard, backOffs };
}

describe('what the limiter hears of each attempt', () => {
	test.each<[string, Answer, [AnswerSignal, number | undefined, number | undefined]]>([
		['a success', { statusCode: 200, body: '{}' }, ['ok', undefined, undefined]],
		['a 404', { statusCode: 404 }, ['ok', undefined, 404]],
		['a 400', { statusCode: 400 }, ['ok', undefined, 400]],
		['a 499', { statusCode: 499 }, ['ok', undefined, 499]],
		['a 429 with its pause', { statusCode: 429, headers: { 'retry-after': '2' } }, ['busy', 2000, 429]],
		['a 503', { statusCode: 503 }, ['busy', undefined, 503]],
		['a 500', { statusCode: 500 }, ['neutral', undefined, 500]],
		['a 502', { statusCode: 502 }, ['neutral', undefined, 502]],
		['a redirect', { statusCode: 302 }, ['neutral', undefined, undefined]],
		['an unreadable answer', { statusCode: 200, body: '{"a":' }, ['neutral', undefined, undefined]],
		['an oversized answer', { statusCode: 200, body: '['.repeat(40) }, ['neutral', undefined, undefined]],
		['a refused connection', { throws: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) }, ['neutral', undefined, undefined]],
		['a reset', { throws: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }, ['busy', undefined, undefined]],
		['a timeout', { throws: Object.assign(new Error('x'), { code: 'ETIMEDOUT' }) }, ['busy', undefined, undefined]],
		['a socket timeout', { throws: Object.assign(new Error('x'), { code: 'ESOCKETTIMEDOUT' }) }, ['busy', undefined, undefined]],
		['an aborted connection', { throws: Object.assign(new Error('x'), { code: 'ECONNABORTED' }) }, ['busy', undefined, undefined]],
	])('%s', async (_name, answer, expected) => {
		const { pace, heard } = recordingPace();
		const { context } = standIn([answer]);
		await outcome(apiRequest.call(context, connection({ pace }), readJobCall('j'), { singleAttempt: true }));
		expect(heard).toEqual([expected]);
	});

	test('no slot (the execution was cancelled): nothing is sent, and the call ends as aborted, not retried', async () => {
		const { pace, heard } = recordingPace(() => undefined);
		const { context, sent } = standIn([]);
		const { error } = await outcome(apiRequest.call(context, connection({ pace }), readJobCall('j')));
		expect(sent).toHaveLength(0);
		expect(heard).toHaveLength(0);
		expect(error?.httpCode).toBe('ABORTED');
	});

	test('a pause longer than the call can wait: never sent, it fails now with the status that asked and when', async () => {
		const { pace, heard } = recordingPace(() => ({ refusedFor: 90_000, statusCode: 503 }));
		const { context, sent } = standIn([]);
		const { error } = await outcome(apiRequest.call(context, connection({ pace }), submitCall({ flowFileName: '/a.flow' })));
		expect(sent).toHaveLength(0);
		expect(heard).toHaveLength(0);
		expect(error?.message).toBe('The service failed (HTTP 503)');
		expect(error?.description).toMatch(/^The service turned the job away, so no job was submitted\. The service asked to retry in 90 s/);
		expect(retryAfterMs(error)).toBe(90_000);
	});

	test('a busy refusal without Retry-After waits its retry delay through the limiter; one the limit was cut for is resent at once', async () => {
		transportTiming.retryDelaysMs = [40, 50, 60];
		const waits = recordingPace();
		const first = standIn([{ statusCode: 503 }, { statusCode: 429 }, { statusCode: 200, body: '{}' }]);
		expect((await apiRequest.call(first.context, connection({ pace: waits.pace }), readJobCall('j'))).statusCode).toBe(200);
		expect(waits.backOffs).toEqual([40, 50]);
		// A retry delay longer than any call: the refusal the limit was cut for is resent with none, or the call would end.
		transportTiming.retryDelaysMs = [10 * transportTiming.callMs, 1, 1];
		const cut = recordingPace(undefined, true);
		const second = standIn([{ statusCode: 503 }, { statusCode: 200, body: '{}' }]);
		expect((await apiRequest.call(second.context, connection({ pace: cut.pace }), readJobCall('j'))).statusCode).toBe(200);
		expect(cut.backOffs).toEqual([]);
		expect(second.sent).toHaveLength(2);
	});

	test('a busy refusal with Retry-After is not the limiter\'s to wait', async () => {
		transportTiming.retryDelaysMs = [5, 5, 5];
		const { pace, backOffs } = recordingPace();
		const { context, sent } = standIn([{ statusCode: 429, headers: { 'retry-after': '0' } }, { statusCode: 200, body: '{}' }]);
		await apiRequest.call(context, connection({ pace }), readJobCall('j'));
		expect(backOffs).toEqual([]);
		expect(sent).toHaveLength(2);
	});
});

describe('the retries of a call', () => {
	test('a read is tried four times (three delays), each after its delay; a submit once', async () => {
		transportTiming.retryDelaysMs = [30, 60, 90];
		const read = standIn(Array.from({ length: 6 }, () => ({ statusCode: 500 })));
		const started = Date.now();
		const { error } = await outcome(apiRequest.call(read.context, connection(), readJobCall('j')));
		expect(read.sent).toHaveLength(4);
		expect(Date.now() - started).toBeGreaterThanOrEqual(180);
		expect(error?.message).toBe('The service failed (HTTP 500)');
		const submit = standIn([{ statusCode: 500 }, { statusCode: 201, body: '{}' }]);
		await outcome(apiRequest.call(submit.context, connection(), submitCall({ flowFileName: '/a.flow' })));
		expect(submit.sent).toHaveLength(1);
	});

	test('a submission refused with 429 is sent again after its delay, and succeeds', async () => {
		const submit = standIn([{ statusCode: 429 }, { statusCode: 201, body: '{"jobId":"j-1"}' }]);
		expect(await apiRequest.call(submit.context, connection(), submitCall({ flowFileName: '/a.flow' }))).toEqual({ statusCode: 201, body: { jobId: 'j-1' } });
		expect(submit.sent).toHaveLength(2);
	});

	test('a Retry-After longer than the delay is waited in full; one the call has no room for ends it at once', async () => {
		transportTiming.retryDelaysMs = [1, 1, 1];
		const honoured = standIn([{ statusCode: 503, headers: { 'retry-after': '1' } }, { statusCode: 200, body: '{}' }]);
		const started = Date.now();
		await apiRequest.call(honoured.context, connection(), readJobCall('j'));
		expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
		expect(honoured.sent).toHaveLength(2);
		const tooLong = standIn([{ statusCode: 503, headers: { 'retry-after': '5' } }, { statusCode: 200, body: '{}' }]);
		const { error } = await outcome(apiRequest.call(tooLong.context, connection(), readJobCall('j'), { deadline: Date.now() + 3000 }));
		expect(tooLong.sent).toHaveLength(1);
		expect(retryAfterMs(error)).toBe(5000);
	});

	test('a delay the call has no room left for ends it: the first that does not fit is not slept', async () => {
		transportTiming.retryDelaysMs = [1, 50_000, 1];
		const read = standIn(Array.from({ length: 4 }, () => ({ statusCode: 500 })));
		await outcome(apiRequest.call(read.context, connection(), readJobCall('j'), { deadline: Date.now() + 20_000 }));
		expect(read.sent).toHaveLength(2);
	});

	test('one attempt only when the caller paces its own reads', async () => {
		const read = standIn([{ statusCode: 500 }, { statusCode: 200, body: '{}' }]);
		const { error } = await outcome(apiRequest.call(read.context, connection(), readJobCall('j'), { singleAttempt: true }));
		expect(read.sent).toHaveLength(1);
		expect(isRetryableError(error)).toBe(true);
	});

	test('a cancelled execution is not tried again', async () => {
		const controller = new AbortController();
		controller.abort();
		const read = standIn([{ statusCode: 500 }, { statusCode: 200, body: '{}' }]);
		(read.context as unknown as { getExecutionCancelSignal: () => AbortSignal }).getExecutionCancelSignal = () => controller.signal;
		const { error } = await outcome(apiRequest.call(read.context, connection(), readJobCall('j')));
		expect(read.sent).toHaveLength(1);
		expect(error?.message).toBe('The service failed (HTTP 500)');
	});
});

describe('getConnection: the credential as the transport uses it, checked before anything is sent', () => {
	const contextWith = (credentials: Record<string, unknown>, asked: unknown[] = []) =>
		({
			getNode: () => ({ id: 'n', name: 'Job Execution', type: 'jobExecution', typeVersion: 2, position: [0, 0], parameters: {} }),
			getCredentials: async (type: string, itemIndex: number) => {
				asked.push([type, itemIndex]);
				return credentials;
			},
		}) as unknown as IExecuteFunctions;

	test('every key field that holds text is hidden, in every form; other fields and empty ones are not keys', async () => {
		const asked: unknown[] = [];
		const credentials = { baseUrl: 'http://127.0.0.1:9/api/v1/', authType: 'bearerToken', token: KEY, password: '', headerSecret: 12345678901, user: 'operator-name-1' };
		const resolved = await getConnection.call(contextWith(credentials, asked), 'jobExecutionApi', 4);
		expect(asked).toEqual([['jobExecutionApi', 4]]);
		expect(resolved).toEqual({ credentialType: 'jobExecutionApi', baseUrl: 'http://127.0.0.1:9', secrets: secretForms([KEY]) });
	});

	test.each(['token', 'password', 'headerSecret', 'apiKey', 'userApiKey'])('%s is a key', async (field) => {
		const resolved = await getConnection.call(contextWith({ baseUrl: 'http://127.0.0.1:9', authType: 'none', [field]: KEY }), 'jobExecutionApi');
		expect(resolved.secrets).toEqual(secretForms([KEY]));
	});

	test('Basic: the pair and its base64 are hidden too; a user with no password field is no pair', async () => {
		const basic = await getConnection.call(contextWith({ baseUrl: 'http://127.0.0.1:9', authType: 'basicAuth', user: 'operator', password: KEY }), 'jobExecutionApi');
		expect(basic.secrets).toEqual(secretForms([KEY], { user: 'operator', password: KEY }));
		expect(basic.secrets).toContain(Buffer.from(`operator:${KEY}`).toString('base64').replace(/=+$/, ''));
		const noUser = await getConnection.call(contextWith({ baseUrl: 'http://127.0.0.1:9', authType: 'basicAuth', password: KEY }), 'jobExecutionApi');
		expect(noUser.secrets).toEqual(secretForms([KEY], { user: '', password: KEY }));
		const bearer = await getConnection.call(contextWith({ baseUrl: 'http://127.0.0.1:9', authType: 'bearerToken', token: KEY, user: 'operator', password: KEY }), 'jobExecutionApi');
		expect(bearer.secrets).toEqual(secretForms([KEY, KEY]));
	});

	test('the relay credential\'s address is its Relay URL, without /call', async () => {
		const relay = await getConnection.call(contextWith({ relayUrl: ' http://127.0.0.1:9/call/ ', baseUrl: 'http://elsewhere:1', apiKey: KEY, userApiKey: `${KEY}-user` }), 'jobExecutionRelayApi');
		expect(relay.baseUrl).toBe('http://127.0.0.1:9');
		expect(relay.credentialType).toBe('jobExecutionRelayApi');
	});

	test.each<[string, Record<string, unknown>, string]>([
		['a URL that cannot be used', { baseUrl: 'ftp://x', authType: 'none' }, "The credential's Base URL must start with http:// or https://"],
		['a field the credential needs, empty', { baseUrl: 'http://127.0.0.1:9', authType: 'bearerToken', token: '' }, "The credential's Token is empty"],
		['a key too short to hide', { baseUrl: 'http://127.0.0.1:9', authType: 'bearerToken', token: 'abc' }, 'The Token is shorter than 8 characters'],
	])('%s: refused with the item, before any request', async (_name, credentials, words) => {
		const refused = await getConnection.call(contextWith(credentials), 'jobExecutionApi', 2).then(
			() => undefined,
			(error: NodeOperationError) => error,
		);
		expect(refused).toBeInstanceOf(NodeOperationError);
		expect(refused?.message).toContain(words);
		expect(refused?.context.itemIndex).toBe(2);
	});
});

describe('the answer budget and the bounds a paced call keeps', () => {
	test('a job answer\'s hold is resized to what its headers declare (the cap when compressed or undeclared), before its body is read', async () => {
		const cases: Array<[Record<string, string>, number]> = [
			[{ 'content-length': '2' }, 2],
			[{ 'content-length': ' 17 ', 'content-encoding': 'identity' }, 17],
			[{ 'content-length': '99999999', 'content-encoding': 'gzip' }, 4 * 1024 * 1024],
			[{}, 4 * 1024 * 1024],
		];
		for (const [headers, reserved] of cases) {
			const budget = new AnswerBudget(64 * 1024 * 1024, 64 * 1024);
			const hold = budget.take();
			const { pace } = recordingPace(() => ({ seq: 1, answer: hold }));
			const { context } = standIn([{ statusCode: 200, headers, body: '{}' }]);
			await apiRequest.call(context, connection({ pace }), readJobCall('j'));
			expect(hold.bytes).toBe(reserved);
		}
	});

	test('a paced attempt ends by its caller\'s end: its helper timeout is no longer than what is left', async () => {
		const { pace } = recordingPace();
		const { context, sent } = standIn([{ statusCode: 200, body: '{}' }]);
		await apiRequest.call(context, connection({ pace }), readJobCall('j'), { deadline: Date.now() + 30_000 });
		expect(sent[0].options.timeout).toBeLessThanOrEqual(30_000 + transportTiming.helperMarginMs);
		expect(sent[0].options.timeout).toBeGreaterThan(transportTiming.helperMarginMs);
	});

	test('a list past 8 MiB is built as it streams, its keys hidden in short fields and long ones cut', async () => {
		const log = 'l'.repeat(9 * 1024 * 1024);
		const { context } = standIn([{ statusCode: 200, body: JSON.stringify([{ id: 'a', note: `key ${KEY}`, log }]) }]);
		const { body } = await apiRequest.call(context, connection(), listCall());
		const [job] = body as Array<Record<string, unknown>>;
		expect(job.note).toBe('key ***');
		expect((job.log as string).length).toBeLessThan(70_000);
		expect(job.cutInList).toMatchObject({ fields: ['log'] });
	});

	test('a list answer whose body breaks is a broken connection after the answer came, read again', async () => {
		const { context, sent } = standIn([{ statusCode: 200, body: '[{"id":', breaks: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) }, { statusCode: 200, body: '[]' }]);
		expect(await apiRequest.call(context, connection(), listCall())).toEqual({ statusCode: 200, body: [] });
		expect(sent).toHaveLength(2);
	});
});

describe('a call counts from its first slot (guarantees.md, Deadlines, rule 3)', () => {
	test('a wait for the first slot longer than the call\'s wall ceiling is n8n\'s own queue: the request is still sent, and answers', async () => {
		transportTiming.callMs = 100;
		transportTiming.attemptMs = 100;
		try {
			const queued: RequestPace = { ...recordingPace().pace, slot: async () => await new Promise((resolve) => setTimeout(() => resolve({ seq: 1 }), 5 * 100)) };
			const { context, sent } = standIn([{ statusCode: 200, body: '{"id":"j"}' }]);
			expect(await apiRequest.call(context, connection({ pace: queued }), readJobCall('j'))).toEqual({ statusCode: 200, body: { id: 'j' } });
			expect(sent).toHaveLength(1);
		} finally {
			transportTiming.callMs = productionTiming.callMs;
			transportTiming.attemptMs = productionTiming.attemptMs;
		}
	});
});
