/**
 * The action node through n8n's real engine against the real reference server, over both interfaces.
 */
import type { IDataObject } from 'n8n-workflow';

import { runActionNode } from '../../testkit/engine';
import { slowOnlyClock } from '../../testkit/deadline';
import type { RunNodeOptions } from '../../testkit/engine';
import { advanceWhileWaiting, BROKEN, INTERFACES, SALES, startFixture } from '../../testkit/fixtures';
import type { Fixture, Interface } from '../../testkit/fixtures';
import { expectNoSecrets } from '../../testkit/secrets';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;


describe.each(INTERFACES)('Job Execution node over the %s interface', (kind: Interface) => {
	let fx: Fixture;
	beforeEach(async () => {
		fx = await startFixture(kind);
	});
	afterEach(async () => {
		await fx.server.close();
	});

	const run = (parameters: IDataObject, extra: Partial<RunNodeOptions> = {}) =>
		runActionNode({
			credentials: fx.credentials,
			...extra,
			parameters: { authentication: fx.authentication, resource: 'job', ...parameters } as RunNodeOptions['parameters'],
		});

	const submitParams = (overrides: IDataObject = {}): IDataObject => ({
		operation: 'submit',
		...fx.flow(SALES),
		runProfileName: 'default',
		...overrides,
	});

	test('Submit returns the job id, the flow and profile, and the service holds exactly that job', async () => {
		const result = await run(submitParams({ notificationEnabled: true }));
		expect(result.error).toBeUndefined();
		expect(result.json).toHaveLength(1);
		const [out] = result.json;
		expect(out.jobId).toMatch(UUID);
		expect(out.runProfileName).toBe('default');
		expect(out.notificationEnabled).toBe(true);
		expect(fx.server.store.count()).toBe(1);
		const job = fx.server.store.status(out.jobId as string)!;
		expect(job.flowName).toBe('sales');
		if (kind === 'native') {
			expect(out.flowFileName).toBe(SALES.path);
			expect(out.navigationUrl).toBe(
				`${fx.server.url}/api/v1/flows?flowFileName=%2FShared%2FFlows%2Fsales.flow&runProfile=default`,
			);
		} else {
			expect(out.flowId).toBe(SALES.id);
			expect(out.navigationUrl).toBeUndefined();
		}
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
		expect(result.sent).toHaveLength(1);
	});

	test('Submit sends typed parameters given as fields, and they reach the job log', async () => {
		const result = await run(
			submitParams({
				parameters: {
					parameter: [
						{ name: 'region', type: 'string', value: 'EMEA | north' },
						{ name: 'batchSize', type: 'integer', value: ' 500 ' },
						{ name: 'ratio', type: 'float', value: '0.25' },
					],
				},
			}),
		);
		expect(result.error).toBeUndefined();
		expect(result.json[0].parameters).toEqual([
			{ name: 'region', type: 'string', value: 'EMEA | north' },
			{ name: 'batchSize', type: 'integer', value: '500' },
			{ name: 'ratio', type: 'float', value: '0.25' },
		]);
		fx.clock.advance(10_000);
		const log = fx.server.store.status(result.json[0].jobId as string)!.log as string;
		expect(log).toContain('| batchSize | integer | 500 |');
		expect(log).toContain('| region | string | EMEA \\| north |');
	});

	test.each([
		['an array', JSON.stringify([{ name: 'limit', type: 'integer', value: 7 }])],
		['an object', JSON.stringify({ limit: 7 })],
	])('Submit accepts parameters as JSON (%s)', async (_label, json) => {
		const result = await run(submitParams({ parametersInputMode: 'json', parametersJson: json }));
		expect(result.error).toBeUndefined();
		expect(result.json[0].parameters).toEqual([{ name: 'limit', type: 'integer', value: '7' }]);
	});

	test('Submit sends the digits written in Parameters (JSON): whole numbers beyond 2^53 are not rounded or refused', async () => {
		const json = '{"big": 9007199254740993, "huge": 123456789012345678901234567890, "exp": 1.2345678901234568e+29}';
		const result = await run(submitParams({ parametersInputMode: 'json', parametersJson: json }));
		expect(result.error).toBeUndefined();
		expect(result.json[0].parameters).toEqual([
			{ name: 'big', type: 'integer', value: '9007199254740993' },
			{ name: 'huge', type: 'integer', value: '123456789012345678901234567890' },
			{ name: 'exp', type: 'integer', value: '123456789012345680000000000000' },
		]);
		expect(JSON.stringify(result.sent[0].body)).toContain('"value":"9007199254740993"');
	});

	test.each([
		[{ name: 'n', type: 'integer', value: '4.2' }, 'Parameter "n" must be an integer, got "4.2" [item 0]'],
		[{ name: 'x', type: 'float', value: 'abc' }, 'Parameter "x" must be a number, got "abc" [item 0]'],
		[{ name: '  ', type: 'string', value: 'v' }, 'Parameter 1 has an empty name [item 0]'],
	])('Submit refuses a bad parameter before sending anything: %j → %s', async (parameter, message) => {
		const result = await run(submitParams({ parameters: { parameter: [parameter] } }));
		expect(result.error?.message).toBe(message);
		expect(result.error?.name).toBe('NodeOperationError');
		expect(fx.server.store.count()).toBe(0);
		expect(result.sent).toHaveLength(0);
	});

	test('Submit refuses duplicate parameter names', async () => {
		const result = await run(
			submitParams({ parameters: { parameter: [{ name: 'a', value: '1' }, { name: 'a', value: '2' }] } }),
		);
		expect(result.error?.message).toBe('Parameter "a" is given more than once [item 0]');
		expect(fx.server.store.count()).toBe(0);
	});

	test('Submit with wait returns the final job status, with the parsed log when asked', async () => {
		const stop = advanceWhileWaiting(fx.clock, 1000);
		try {
			const result = await run(
				submitParams({ waitForCompletion: true, waitSettings: { pollInterval: 1, timeout: 30 }, options: { parseLog: true } }),
			);
			expect(result.error).toBeUndefined();
			const [job] = result.json;
			expect(job.executionStatus).toBe('COMPLETED');
			expect(job.jobId).toBe(job.id);
			expect(typeof job.log).toBe('string');
			const parsed = job.logParsed as IDataObject;
			expect(parsed.finalStatus).toBe('COMPLETED');
			expect((parsed.stepResults as unknown[]).length).toBe(3);
		} finally {
			stop();
		}
	});

	test('a job that ends in ERROR fails the item by default, or is returned as data', async () => {
		const stop = advanceWhileWaiting(fx.clock, 1000);
		try {
			const failed = await run(
				submitParams({ ...fx.flow(BROKEN), waitForCompletion: true, waitSettings: { pollInterval: 1 } }),
			);
			expect(failed.error?.message).toMatch(/^Job [0-9a-f-]{36} ended with status ERROR$/);
			const returned = await run(
				submitParams({ ...fx.flow(BROKEN), waitForCompletion: true, waitSettings: { pollInterval: 1, onJobFailure: 'returnData' } }),
			);
			expect(returned.error).toBeUndefined();
			expect(returned.json[0].executionStatus).toBe('ERROR');
			expect(fx.server.store.count()).toBe(2);
		} finally {
			stop();
		}
	});

	test('Get returns the full job, simplified or with the parsed log on request', async () => {
		const { jobId } = (await run(submitParams())).json[0] as { jobId: string };
		fx.clock.advance(1500);
		const full = await run({ operation: 'get', jobId: `  ${jobId}  ` });
		expect(full.json[0].id).toBe(jobId);
		expect(full.json[0].executionStatus).toBe('RUNNING');
		expect(full.json[0].currentStepDescription).toBe('Step 2 (1 of 3 completed)');
		fx.clock.advance(5000);
		const simple = await run({ operation: 'get', jobId, options: { simplify: true, parseLog: true } });
		expect(simple.json[0]).toMatchObject({ id: jobId, executionStatus: 'COMPLETED', flowName: 'sales', finished: true, runtimeSeconds: 3 });
		expect((simple.json[0].logParsed as IDataObject).completionMessage).toMatch(/finished with status COMPLETED/);
		expect(simple.json[0].log).toBeUndefined();
	});

	test('Get with Status Only returns { id, executionStatus }', async () => {
		const { jobId } = (await run(submitParams())).json[0] as { jobId: string };
		const result = await run({ operation: 'get', jobId, options: { statusOnly: true } });
		expect(result.json).toEqual([{ id: jobId, executionStatus: 'RUNNING' }]);
	});

	test.each([
		['={{ "" }}', 'Job ID is empty [item 0]'],
		['   ', 'Job ID is empty [item 0]'],
		['..', 'Job ID cannot be "." or ".." [item 0]'],
		['abc\r\nX-Injected: 1', 'Job ID contains control characters [item 0]'],
		['job-\ud800-x', 'Job ID contains an unpaired UTF-16 surrogate (ill-formed text no URL can carry) [item 0]'],
		['\udfffjob', 'Job ID contains an unpaired UTF-16 surrogate (ill-formed text no URL can carry) [item 0]'],
	])('Get and Wait refuse the job id %j without any request → %s', async (jobId, message) => {
		for (const operation of ['get', 'waitForCompletion']) {
			const result = await run({ operation, jobId });
			expect([result.error?.name, result.error?.message, result.error?.context?.itemIndex]).toEqual(['NodeOperationError', message, 0]);
			expect(result.sent).toHaveLength(0);
		}
	});

	test.each(['../flows', 'a/b?c#d', '%2e%2e', 'ünïcødé'])(
		'a job id with special characters (%j) stays one path segment of /jobs/',
		async (jobId) => {
			const before = { ...fx.server.stats.byRoute };
			const result = await run({ operation: 'get', jobId });
			expect(result.error?.message).toMatch(/^Bad request: /);
			expect(result.error?.httpCode).toBe('400');
			const sent = result.sent[0];
			const endpoint = kind === 'native' ? new URL(sent.url).pathname : String(sent.headers?.endpoint);
			expect(endpoint).toBe(`/api/v1/jobs/${encodeURIComponent(jobId)}`);
			// The server saw one job read (or one relay status call), never a flow or list request.
			const routes = Object.keys(fx.server.stats.byRoute).filter((r) => fx.server.stats.byRoute[r] !== before[r]);
			expect(routes).toEqual([kind === 'native' ? 'GET /api/v1/jobs/{jobId}' : 'GET /call/status']);
		},
	);

	test('Get Many: all, active and history, with limit and filters', async () => {
		await run(submitParams({ ...fx.flow(BROKEN) }));
		for (let i = 0; i < 5; i++) await run(submitParams());
		fx.clock.advance(2500); // broken (2 steps) has ended in ERROR; four sales jobs run, one waits for a slot
		const all = await run({ operation: 'getMany', returnAll: true });
		expect(all.json).toHaveLength(6);
		const active = await run({ operation: 'getMany', scope: 'active', returnAll: true });
		const history = await run({ operation: 'getMany', scope: 'history', returnAll: true });
		expect(active.json.length + history.json.length).toBe(6);
		expect(active.json.every((job) => ['QUEUED', 'RUNNING'].includes(job.executionStatus as string))).toBe(true);
		expect(history.json.every((job) => ['COMPLETED', 'ERROR', 'CANCELLED'].includes(job.executionStatus as string))).toBe(true);
		const limited = await run({ operation: 'getMany', returnAll: false, limit: 2 });
		expect(limited.json).toHaveLength(2);
		const broken = await run({ operation: 'getMany', returnAll: true, filters: { flowName: 'broken' } });
		expect(broken.json.map((job) => job.flowName)).toEqual(['broken']);
		const errors = await run({ operation: 'getMany', returnAll: true, filters: { executionStatus: ['ERROR'] } });
		expect(errors.json.map((job) => job.executionStatus)).toEqual(['ERROR']);
		expect(all.items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	test('Wait for Completion times out naming the last status and the job id', async () => {
		const { jobId } = (await run(submitParams())).json[0] as { jobId: string };
		const result = await run({ operation: 'waitForCompletion', jobId, waitSettings: { pollInterval: 1, timeout: 1 } });
		expect(result.error?.message).toBe(`Timed out after 1 s waiting for job ${jobId}: last status RUNNING`);
	});

	test('a wait stops as soon as the execution is cancelled', async () => {
		const { jobId } = (await run(submitParams())).json[0] as { jobId: string };
		const loop = slowOnlyClock();
		const before = fx.server.stats.requests;
		const result = await run(
			{ operation: 'waitForCompletion', jobId, waitSettings: { pollInterval: 60, timeout: 3600 } },
			{
				// Cancelled once the first read reached the server, however long the engine took to send it: a cancel
				// on a timer could land before that read on a busy machine.
				onStart: (execution) => {
					const watch = setInterval(() => {
						if (fx.server.stats.requests === before) return;
						clearInterval(watch);
						execution.cancel();
					}, 5);
				},
			},
		);
		// A wait deaf to the cancel would sleep out the 60 s Poll Interval; timed by a clock that load only slows.
		expect(loop.stop()).toBeLessThan(5000);
		expect(result.json).toEqual([]);
		expect(result.run.status).toBe('canceled');
		expect(fx.server.stats.requests - before).toBe(1); // the first read, none after the cancel
	});

	test('Wait for Completion returns a finished job at once', async () => {
		const { jobId } = (await run(submitParams())).json[0] as { jobId: string };
		fx.clock.advance(60_000);
		const before = fx.server.stats.requests;
		const result = await run({ operation: 'waitForCompletion', jobId });
		expect(result.json[0].executionStatus).toBe('COMPLETED');
		expect(fx.server.stats.requests - before).toBe(1);
	});

	test('continueOnFail puts the error on its item and keeps the others', async () => {
		const result = await run(
			{ operation: 'get', jobId: '={{ $json.id }}' },
			{ continueOnFail: true, items: [{ id: 'missing-job' }, { id: '' }] },
		);
		expect(result.error).toBeUndefined();
		expect(result.json).toHaveLength(2);
		expect(result.json[0]).toMatchObject({ httpCode: '400' });
		expect(result.json[0].error).toMatch(/^Bad request: /);
		expect(result.json[1]).toMatchObject({ error: 'Job ID is empty [item 1]' });
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	test('wrong keys fail with a clear message that shows no secret', async () => {
		const credentials = JSON.parse(JSON.stringify(fx.credentials));
		credentials.jobExecutionApi.token = 'wrong-token-123';
		credentials.jobExecutionRelayApi.apiKey = 'wrong-relay-key-123';
		const result = await runActionNode({
			credentials,
			parameters: { authentication: fx.authentication, resource: 'job', operation: 'getMany', returnAll: true },
		});
		expect(result.error?.message).toBe('The service refused the credentials (HTTP 401)');
		expect(result.error?.description).toMatch(kind === 'relay' ? /Relay API Key/ : /authentication settings/);
		expectNoSecrets(result, credentials);
		expect(JSON.stringify(result.error)).not.toContain('wrong-');
		const asData = await runActionNode({
			credentials,
			continueOnFail: true,
			parameters: { authentication: fx.authentication, resource: 'job', operation: 'submit', ...fx.flow(SALES), runProfileName: 'default' },
		});
		expectNoSecrets(asData, credentials);
		expect(JSON.stringify(asData.json)).not.toContain('wrong-');
		expect(asData.json[0].httpCode).toBe('401');
		expect(fx.server.store.count()).toBe(0);
	});
});

describe('Get Navigation URL', () => {
	let fx: Fixture;
	beforeAll(async () => {
		fx = await startFixture('native');
	});
	afterAll(async () => {
		await fx.server.close();
	});

	test('builds the encoded URL, and the service opens it', async () => {
		const result = await runActionNode({
			credentials: fx.credentials,
			parameters: {
				authentication: 'jobExecutionApi',
				resource: 'flow',
				operation: 'getNavigationUrl',
				flowFileName: '/Shared/Flows/a b&c.flow',
				runProfile: 'nightly',
				nodeId: 'node_12',
			},
		});
		const url = result.json[0].url as string;
		expect(url).toBe(`${fx.server.url}/api/v1/flows?flowFileName=%2FShared%2FFlows%2Fa%20b%26c.flow&runProfile=nightly&nodeId=node_12`);
		const page = await fetch(url, { headers: { Authorization: 'Bearer native-token-c0ffee' } });
		expect(page.status).toBe(200);
		expect(await page.text()).toContain('a b&amp;c.flow');
	});

	test('refuses a node id that is not node_<digits>', async () => {
		const result = await runActionNode({
			credentials: fx.credentials,
			parameters: { authentication: 'jobExecutionApi', resource: 'flow', operation: 'getNavigationUrl', flowFileName: '/f.flow', runProfile: 'p', nodeId: 'node_x' },
		});
		expect(result.error?.message).toBe('Node ID "node_x" is not of the form node_<digits> [item 0]');
	});

	test('says the relay has no navigation endpoint', async () => {
		const result = await runActionNode({
			credentials: fx.credentials,
			parameters: { authentication: 'jobExecutionRelayApi', resource: 'flow', operation: 'getNavigationUrl', flowFileName: '/f.flow', runProfile: 'p' },
		});
		expect(result.error?.message).toBe('The relay interface has no navigation endpoint');
	});
});
