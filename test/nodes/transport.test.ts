/**
 * The transport's promises, through the engine: tolerant reading, reads retried, submits never repeated,
 * errors that say what happened without any secret.
 */

import { freePort } from '../../host/n8n';
import { runActionNode } from '../../testkit/engine';
import { slowOnlyClock } from '../../testkit/deadline';
import { credentialsFor, INTERFACES, SALES, SECRETS, startFixture } from '../../testkit/fixtures';
import type { Fixture, Interface } from '../../testkit/fixtures';
import { delayAfterFailure, sleepBeforeRead } from '../../nodes/JobExecution/helpers/waitForJob';
import { transportTiming } from '../../nodes/shared/transport';
import type { INode } from 'n8n-workflow';

import { listCall } from '../../nodes/shared/transport';
import { MAX_RETRY_AFTER_MS, parseRetryAfter, retryAfterMs, toNodeApiError } from '../../nodes/shared/transport/errors';
import { MAX_JOB_ANSWER_BYTES } from '../../nodes/shared/transport/answer';
import { startHostileServer } from '../../testkit/hostileServer';
import type { HostileRequest, Listener } from '../../testkit/hostileServer';

// Reads are retried as in production, without waiting the production backoff.
const productionDelays = transportTiming.retryDelaysMs;
beforeAll(() => (transportTiming.retryDelaysMs = [1, 1, 1]));
afterAll(() => (transportTiming.retryDelaysMs = productionDelays));

describe.each(INTERFACES)('transport over the %s interface', (kind: Interface) => {
	let fx: Fixture;
	afterEach(async () => {
		await fx?.server.close();
	});

	const parameters = (extra: Record<string, unknown>) => ({
		authentication: fx.authentication,
		resource: 'job',
		...extra,
	});

	test.each(['jsonString', 'bareText', 'object'] as const)(
		'Status Only reads the status whatever form the service answers in (%s)',
		async (form) => {
			fx = await startFixture(kind, { statusFilterForm: form });
			const submitted = await runActionNode({
				credentials: fx.credentials,
				parameters: parameters({ operation: 'submit', ...fx.flow(SALES), runProfileName: 'default' }),
			});
			const jobId = submitted.json[0].jobId as string;
			fx.clock.advance(60_000);
			const result = await runActionNode({
				credentials: fx.credentials,
				parameters: parameters({ operation: 'get', jobId, options: { statusOnly: true } }),
			});
			expect(result.json).toEqual([{ id: jobId, executionStatus: 'COMPLETED' }]);
		},
	);

	test('a submit answered 202 (queued behind the concurrency limit) succeeds like a 200', async () => {
		fx = await startFixture(kind, { concurrency: 1 });
		const submit = () =>
			runActionNode({
				credentials: fx.credentials,
				parameters: parameters({ operation: 'submit', ...fx.flow(SALES), runProfileName: 'default' }),
			});
		const first = await submit();
		const second = await submit();
		expect(second.error).toBeUndefined();
		const queued = fx.server.store.status(second.json[0].jobId as string)!;
		expect(queued.executionStatus).toBe('QUEUED');
		expect(fx.server.store.status(first.json[0].jobId as string)!.executionStatus).toBe('RUNNING');
	});

	const callRoute = (verb: 'GET' | 'POST') =>
		kind === 'native' ? `${verb} /api/v1/jobs` : verb === 'GET' ? 'GET /call/status' : 'POST /call/execute';

	test('a read is retried after 503 and 429, then succeeds', async () => {
		fx = await startFixture(kind);
		fx.server.faults.inject([{ kind: 'status', status: 503 }, { kind: 'status', status: 429 }]);
		const result = await runActionNode({
			credentials: fx.credentials,
			parameters: parameters({ operation: 'getMany', returnAll: true }),
		});
		expect(result.error).toBeUndefined();
		expect(fx.server.stats.byRoute[callRoute('GET')]).toBe(3);
	});

	test('a read answered with malformed JSON is read again', async () => {
		fx = await startFixture(kind);
		fx.server.faults.inject({ kind: 'malformedJson', after: true });
		const result = await runActionNode({
			credentials: fx.credentials,
			parameters: parameters({ operation: 'getMany', returnAll: true }),
		});
		expect(result.error).toBeUndefined();
		expect(result.json).toEqual([]);
		expect(fx.server.stats.byRoute[callRoute('GET')]).toBe(2);
	});

	test('a submit answered 503 is not repeated, and says the job may exist', async () => {
		fx = await startFixture(kind);
		fx.server.faults.inject({ kind: 'status', status: 503 });
		const result = await runActionNode({
			credentials: fx.credentials,
			parameters: parameters({ operation: 'submit', ...fx.flow(SALES), runProfileName: 'default' }),
		});
		expect(result.error?.message).toBe('The service failed (HTTP 503): injected fault: HTTP 503');
		expect(result.error?.description).toBe('The service may have accepted the job: check the job list before resubmitting.');
		expect(fx.server.stats.byRoute[callRoute('POST')]).toBe(1);
		expect(fx.server.store.count()).toBe(0);
	});

	test('a submit whose connection drops is not repeated', async () => {
		fx = await startFixture(kind);
		fx.server.faults.inject({ kind: 'drop', times: 2 });
		const result = await runActionNode({
			credentials: fx.credentials,
			parameters: parameters({ operation: 'submit', ...fx.flow(SALES), runProfileName: 'default' }),
		});
		expect(result.error?.message).toMatch(/^The Job Execution service cannot be reached at 127\.0\.0\.1:\d+ \(ECONNRESET\)$/);
		expect(result.error?.description).toMatch(/may have accepted the job/);
		expect(fx.server.stats.byRoute[callRoute('POST')]).toBe(1);
		expect(fx.server.faults.waiting()).toBe(1);
	});

	test('an unreachable service: a clear message naming the host, no job, no secret', async () => {
		fx = await startFixture(kind);
		// Below the ephemeral range: a port closed after use could be taken by another test's server meanwhile.
		const port = await freePort();
		const result = await runActionNode({
			credentials: credentialsFor(`http://127.0.0.1:${port}`),
			parameters: parameters({ operation: 'submit', ...fx.flow(SALES), runProfileName: 'default' }),
		});
		expect(result.error?.message).toBe(`The Job Execution service cannot be reached at 127.0.0.1:${port} (ECONNREFUSED)`);
		expect(result.error?.description).toBe('The request never reached the service, so no job was submitted.');
		const text = JSON.stringify(result.error) + String(result.error?.stack);
		for (const secret of SECRETS) expect(text).not.toContain(secret);
	});

	test('a submit answered 400 without a body gets a readable hint and says the job may exist', async () => {
		fx = await startFixture(kind);
		fx.server.faults.inject({ kind: 'emptyBadRequest' });
		const result = await runActionNode({
			credentials: fx.credentials,
			parameters: parameters({ operation: 'submit', ...fx.flow(SALES), runProfileName: 'default' }),
		});
		expect(result.error?.message).toBe('The service answered the submission with HTTP 400 and no detail');
		expect(result.error?.description).toBe(
			`Check the flow ${kind === 'native' ? 'path' : 'ID'}, the run profile and the parameters. The service also answers 400 ` +
				'for its own errors. The service may have accepted the job: check the job list before resubmitting.',
		);
		expect(result.error?.httpCode).toBe('400');
	});
});

test.each([
	['ftp://example.com', "The credential's Base URL must start with http:// or https://"],
	['example.com', 'The credential\'s Base URL "example.com" is not a valid URL: it must start with http:// or https://'],
	['', "The credential's Base URL is empty"],
])('a base URL %j is refused before any request → %s', async (baseUrl, message) => {
	const result = await runActionNode({
		credentials: { jobExecutionApi: { baseUrl, authType: 'none' } },
		parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'getMany', returnAll: true },
	});
	expect(result.error?.message).toBe(message);
	expect(result.sent).toHaveLength(0);
});

/**
 * Pacing against a real 127.0.0.1 server (testkit/hostileServer.ts): requests are counted and their arrival times
 * compared with lower bounds that only sleeps can give, so a slow machine cannot make these checks pass wrongly.
 */
describe('pacing: Retry-After and the Poll Interval', () => {
	const JOB = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
	let server: Listener | undefined;
	afterEach(async () => {
		await server?.close();
		server = undefined;
	});
	const credentials = (url: string) => ({ jobExecutionApi: { baseUrl: url, authType: 'bearerToken', token: 'pacing-token-4f1e' } });
	const gaps = (requests: HostileRequest[]) => requests.slice(1).map((request, n) => request.at - requests[n].at);

	test('parseRetryAfter: seconds or an HTTP date, clamped to 24 h; anything else is none', () => {
		const now = Date.UTC(2026, 0, 5, 9, 0, 0);
		expect(parseRetryAfter('120', now)).toBe(120_000);
		expect(parseRetryAfter(new Date(now + 30_000).toUTCString(), now)).toBe(30_000);
		expect(parseRetryAfter(new Date(now - 30_000).toUTCString(), now)).toBe(0);
		expect(parseRetryAfter('100000', now)).toBe(MAX_RETRY_AFTER_MS);
		expect(parseRetryAfter('99999999999999999999', now)).toBeUndefined();
		expect(parseRetryAfter('soon', now)).toBeUndefined();
		expect(parseRetryAfter('', now)).toBeUndefined();
	});

	test('a 429 asking for 1 s is waited (within the call), then the read succeeds', async () => {
		let calls = 0;
		server = await startHostileServer(() =>
			++calls === 1 ? { kind: 'json', status: 429, body: { message: 'slow down' }, headers: { 'retry-after': '1' } } : { kind: 'json', body: [] },
		);
		const result = await runActionNode({ credentials: credentials(server.url), parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'getMany', returnAll: true } });
		expect(result.error).toBeUndefined();
		expect(server.requests).toHaveLength(2);
		expect(gaps(server.requests)[0]).toBeGreaterThanOrEqual(950);
	});

	test('a 429 or 503 asking for more than the call has left fails at once, saying when to retry', async () => {
		for (const [status, header] of [
			[429, '100000'],
			[503, new Date(Date.now() + 3_600_000).toUTCString()],
		] as const) {
			server = await startHostileServer(() => ({ kind: 'json', status, body: { message: 'busy' }, headers: { 'retry-after': header } }));
			const result = await runActionNode({ credentials: credentials(server.url), parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'get', jobId: JOB } });
			expect(server.requests).toHaveLength(1);
			expect(result.error?.description).toMatch(/The service asked to retry in \d+ s \(at \d{4}-\d\d-\d\dT[\d:.]+Z\)\.$/);
			// 429: 100000 s clamped to 24 h. 503: an HTTP date carries whole seconds, so an hour from now reads as 3599-3600 s.
			const asked = Number(/retry in (\d+) s/.exec(result.error?.description ?? '')?.[1]);
			if (status === 429) expect(asked).toBe(86_400);
			else expect([3599, 3600]).toContain(asked);
			await server.close();
		}
		server = undefined;
	});

	test('Submit + Wait with Timeout ≤ Poll Interval: the job is read once before the deadline, not reported "not read yet"', async () => {
		for (const [timeout, pollInterval] of [[1, 5], [2, 2]]) {
			server = await startHostileServer((request) =>
				request.method === 'POST' ? { kind: 'json', body: { jobId: JOB } } : { kind: 'json', body: { id: JOB, executionStatus: 'COMPLETED', log: null } },
			);
			const result = await runActionNode({
				credentials: credentials(server.url),
				parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'submit', flowFileName: '/a.flow', runProfileName: 'p', waitForCompletion: true, waitSettings: { pollInterval, timeout } },
			});
			expect(result.error).toBeUndefined();
			expect(result.json[0]).toMatchObject({ executionStatus: 'COMPLETED' });
			// One submit, one read: the wait read the job once, inside its Timeout.
			expect(server.requests.map((request) => request.method)).toEqual(['POST', 'GET']);
			await server.close();
		}
		server = undefined;
	});

	test('sleepBeforeRead: a wait that has not read keeps a share of a short Timeout for one read; later reads keep the interval', () => {
		expect(sleepBeforeRead(5000, 1000, 0)).toBe(500);
		expect(sleepBeforeRead(5000, 5000, 0)).toBe(2500);
		expect(sleepBeforeRead(60_000, 30_000, 0)).toBe(25_000);
		expect(sleepBeforeRead(5000, 5001, 0)).toBe(5000);
		expect(sleepBeforeRead(5000, 1000, 1)).toBe(1000);
	});

	test('Wait: a failing read is tried again no sooner than the Poll Interval (no fast retries inside the wait)', async () => {
		server = await startHostileServer(() => ({ kind: 'json', status: 500, body: { message: 'transient' } }));
		const result = await runActionNode({
			credentials: credentials(server.url),
			parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'waitForCompletion', jobId: JOB, waitSettings: { pollInterval: 1, timeout: 4 } },
		});
		expect(result.error?.message).toBe(`Timed out after 4 s waiting for job ${JOB}: last status not read yet; the last read failed: the service answered HTTP 500`);
		// Reads at 0 s and (backoff: twice the interval) 2 s, the next would be at 6 s; before, 4 reads in the first
		// 2 s (the transport's retries). Exactly two, 2 s from the Timeout either way, so the gap is always checked.
		expect(server.requests).toHaveLength(2);
		expect(gaps(server.requests)[0]).toBeGreaterThanOrEqual(2000);
	});

	test('Wait: a Retry-After longer than the interval is honoured; one past the Timeout ends the wait at once, saying when', async () => {
		let calls = 0;
		server = await startHostileServer(() =>
			++calls === 1
				? { kind: 'json', status: 503, body: {}, headers: { 'retry-after': '2' } }
				: { kind: 'json', body: { id: JOB, executionStatus: 'COMPLETED', log: null } },
		);
		const waited = await runActionNode({
			credentials: credentials(server.url),
			parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'waitForCompletion', jobId: JOB, waitSettings: { pollInterval: 1, timeout: 20 } },
		});
		expect(waited.error).toBeUndefined();
		expect(server.requests).toHaveLength(2);
		expect(gaps(server.requests)[0]).toBeGreaterThanOrEqual(1950);
		await server.close();
		server = await startHostileServer(() => ({ kind: 'json', status: 429, body: {}, headers: { 'retry-after': '600' } }));
		const loop = slowOnlyClock();
		const refused = await runActionNode({
			credentials: credentials(server.url),
			parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'waitForCompletion', jobId: JOB, waitSettings: { pollInterval: 1, timeout: 60 } },
		});
		expect(refused.error?.message).toBe(`The service asked to wait 600 s before reading job ${JOB} again, past this wait's Timeout`);
		expect(server.requests).toHaveLength(1);
		// Ends at once: checked against the 1 s Poll Interval it would otherwise sleep (then the 60 s Timeout), by a
		// clock that load only slows.
		expect(loop.stop()).toBeLessThan(1000);
	});
});

test('retryAfterMs reads the delay from an error the transport threw (the trigger skips polls with it); none from others', () => {
	const node = { id: 'n', name: 'Job Execution', type: 'x', typeVersion: 1, position: [0, 0], parameters: {} } as INode;
	const connection = { credentialType: 'jobExecutionApi' as const, baseUrl: 'http://127.0.0.1:1' };
	const limited = toNodeApiError(node, { kind: 'status', statusCode: 429, body: {}, retryAfterMs: 5000 }, listCall(), connection, []);
	expect(retryAfterMs(limited)).toBe(5000);
	expect(retryAfterMs(toNodeApiError(node, { kind: 'status', statusCode: 500, body: {} }, listCall(), connection, []))).toBeUndefined();
	expect(retryAfterMs(new Error('not from the transport'))).toBeUndefined();
	expect(retryAfterMs(undefined)).toBeUndefined();
});

test('delayAfterFailure: never below the Poll Interval (600 s stays 600 s, not 60 s), at least a Retry-After', () => {
	expect(delayAfterFailure(0, 600_000, undefined)).toBe(600_000);
	expect(delayAfterFailure(600_000, 600_000, undefined)).toBe(600_000);
	expect(delayAfterFailure(5_000, 5_000, undefined)).toBe(10_000);
	expect(delayAfterFailure(40_000, 5_000, undefined)).toBe(60_000);
	expect(delayAfterFailure(5_000, 5_000, 30_000)).toBe(30_000);
});

// Issue 26 §7: the single-job cap at its edge (a cap compared with ">=" instead of ">" refuses a conforming answer).
describe('the answer cap of one job read, at its edge', () => {
	const JOB = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
	/** A job answer of exactly `bytes` bytes (ASCII), every value under the per-string cap. */
	const jobOfBytes = (bytes: number) => {
		const head = JSON.stringify({ id: JOB, executionStatus: 'COMPLETED', log: '', pad: '' });
		const room = bytes - head.length;
		const log = 'l'.repeat(Math.floor(room / 2));
		return JSON.stringify({ id: JOB, executionStatus: 'COMPLETED', log, pad: 'p'.repeat(room - log.length) });
	};

	test.each([
		['exactly the cap', MAX_JOB_ANSWER_BYTES, 'accepted'],
		['one byte over the cap', MAX_JOB_ANSWER_BYTES + 1, 'refused'],
	])('an answer of %s (%d bytes) is %s', async (_name, bytes, fate) => {
		const accepted = fate === 'accepted';
		const text = jobOfBytes(bytes);
		expect(Buffer.byteLength(text)).toBe(bytes);
		const server = await startHostileServer(() => ({ kind: 'raw', text }));
		try {
			const result = await runActionNode({
				credentials: { jobExecutionApi: { baseUrl: server.url, authType: 'bearerToken', token: 'cap-token-9a2b' } },
				parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'get', jobId: JOB },
			});
			if (accepted) {
				expect(result.error).toBeUndefined();
				expect(result.json[0]).toMatchObject({ id: JOB, executionStatus: 'COMPLETED' });
			} else {
				expect(result.error?.message).toBe("The service's answer is larger than 4 MiB (HTTP 200): not read further");
				// Never retried: the same request would get the same answer.
				expect(server.requests).toHaveLength(1);
			}
		} finally {
			await server.close();
		}
	});
});
