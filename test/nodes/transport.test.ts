/**
 * The transport's promises, through the engine: tolerant reading, reads retried, submits never repeated,
 * errors that say what happened without any secret.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

import { runActionNode } from '../../testkit/engine';
import { credentialsFor, INTERFACES, SALES, SECRETS, startFixture } from '../../testkit/fixtures';
import type { Fixture, Interface } from '../../testkit/fixtures';
import { transportTiming } from '../../nodes/shared/transport';

async function closedPort(): Promise<number> {
	const probe = createServer();
	await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
	const { port } = probe.address() as AddressInfo;
	await new Promise<void>((resolve) => probe.close(() => resolve()));
	return port;
}

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
		const port = await closedPort();
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
