/**
 * Submit used as an AI tool with n8n's Retry On Fail, through n8n-core's own tool path (getInputConnectionData →
 * createNodeAsTool → makeHandleToolInvocation, which retries with a new run index and a new input item per try):
 * one job per tool invocation, the existing job or the "may exist" error on a retry, and a new call with equal
 * arguments is new work. Both interfaces, against the reference server, which counts the jobs it created.
 */
import { advanceWhileWaiting, INTERFACES, SALES, startFixture } from '../../testkit/fixtures';
import type { Fixture, Interface } from '../../testkit/fixtures';
import { runAgentWithTool } from '../../testkit/toolAgent';
import type { AgentRunOptions } from '../../testkit/toolAgent';
import { writeMeasuredBlock } from '../../testkit/measuredBlock';
import { join } from 'path';
import { secretForms } from '../../testkit/secrets';

const table: string[] = [];
afterAll(() => {
	const rows = ['| Agent call (3 tries) | Jobs per call |', '|---|---|', ...[...table].sort()].join('\n');
	process.stdout.write(`Submit as an AI tool with Retry On Fail: jobs per agent call\n${rows}\n`);
	// Written only when every case measured: a partial run (jest -t) leaves the page as it is.
	if (table.length === 3) writeMeasuredBlock(join(__dirname, '../../docs/guarantees.md'), 'tool-retry', 'test/nodes/toolRetry.test.ts', rows);
});

/** The tool's parameters as a user sets them for an agent: the flow and profile come from the agent's arguments. */
function toolParameters(fx: Fixture, wait?: { timeout: number }) {
	const native = fx.authentication === 'jobExecutionApi';
	return {
		authentication: fx.authentication,
		resource: 'job',
		operation: 'submit',
		...(native ? { flowFileName: "={{ $fromAI('flow', 'the flow', 'string') }}" } : { flowId: "={{ $fromAI('flow', 'the flow ID', 'string') }}" }),
		runProfileName: "={{ $fromAI('runProfile', 'the run profile', 'string') }}",
		...(wait ? { waitForCompletion: true, waitSettings: { pollInterval: 1, timeout: wait.timeout } } : {}),
	};
}

describe.each(INTERFACES)('Submit as an AI tool under Retry On Fail (%s)', (kind: Interface) => {
	let fx: Fixture;
	afterEach(async () => {
		await fx.server.close();
	});
	const args = () => ({ flow: kind === 'native' ? SALES.path : SALES.id, runProfile: 'default' });
	const agent = (calls: number, extra: Partial<AgentRunOptions> = {}) =>
		runAgentWithTool({
			credentials: fx.credentials,
			parameters: toolParameters(fx),
			calls: [Array.from({ length: calls }, args)],
			retryOnFail: true,
			maxTries: 3,
			waitBetweenTries: 0,
			...extra,
		});

	test('the job is created, then answered 500: one job, and the retries say it may exist instead of resubmitting', async () => {
		fx = await startFixture(kind);
		fx.server.faults.inject({ kind: 'status', status: 500, after: true, method: 'POST' });
		const [outcome] = await agent(1);
		table.push(`| the job is created, then answered HTTP 500 (${kind}) | ${fx.server.store.count()} |`);
		expect(fx.server.store.count()).toBe(1);
		expect(outcome.result).toBeUndefined();
		expect(outcome.error).toMatch(/Not submitted again on n8n's retry: the item's first submission may have created a job/);
		expect(outcome.error).toMatch(/HTTP 500/);
		for (const secret of secretForms({ [fx.authentication]: fx.credentials[fx.authentication] })) expect(JSON.stringify(outcome).toLowerCase()).not.toContain(secret);
	});

	// Three tries of a 1 s wait: the rule (the operation's) needs one interface.
	if (kind === 'native') test('Wait for Completion times out (1 s) on a running job: one job; every try waits for it, none resubmits', async () => {
		fx = await startFixture(kind);
		// The server's clock stands still: the job stays queued through every try's wait.
		const outcomes = await agent(1, { parameters: toolParameters(fx, { timeout: 1 }) });
		const [job] = fx.server.store.all();
		table.push(`| Wait for Completion, Timeout 1 s, the job still running (${kind}) | ${fx.server.store.count()} |`);
		expect(fx.server.store.count()).toBe(1);
		expect(outcomes[0].error).toMatch(new RegExp(`Timed out after 1 s waiting for job ${job.id}`));
		expect(outcomes[0].error).toContain(`Job ${job.id} was submitted; only waiting for it failed`);
	});

	test('a try that fails before anything is sent (429) is retried and submits once; the agent gets that job', async () => {
		fx = await startFixture(kind);
		fx.server.faults.inject({ kind: 'status', status: 429, method: 'POST' });
		const [outcome] = await agent(1);
		const [job] = fx.server.store.all();
		expect(fx.server.store.count()).toBe(1);
		expect(JSON.parse(outcome.result ?? '[]')).toEqual([expect.objectContaining({ jobId: job.id })]);
	});

	test('a job created on the first try and waited for on the second: the retry waits for that job, not a new one', async () => {
		fx = await startFixture(kind);
		// The first read after the submission fails with 401 (the wait fails, the job exists); the retry's wait succeeds.
		fx.server.faults.inject({ kind: 'status', status: 401, method: 'GET' });
		const stop = advanceWhileWaiting(fx.clock, 1000);
		try {
			const [outcome] = await agent(1, { parameters: toolParameters(fx, { timeout: 30 }) });
			const [job] = fx.server.store.all();
			expect(fx.server.store.count()).toBe(1);
			expect(JSON.parse(outcome.result ?? '[]')).toEqual([expect.objectContaining({ jobId: job.id, executionStatus: 'COMPLETED' })]);
		} finally {
			stop();
		}
	});

	test('new agent calls with equal arguments are new work: two calls in one execution and one in the next, three jobs', async () => {
		fx = await startFixture(kind);
		const first = await agent(2);
		const second = await agent(1);
		expect(fx.server.store.count()).toBe(3);
		const ids = [...first, ...second].map((outcome) => (JSON.parse(outcome.result ?? '[]') as Array<{ jobId: string }>)[0].jobId);
		expect(new Set(ids).size).toBe(3);
	});

	test('two agent runs (items) in one execution calling with equal arguments: one job each', async () => {
		fx = await startFixture(kind);
		const outcomes = await runAgentWithTool({ credentials: fx.credentials, parameters: toolParameters(fx), calls: [[args()], [args()]], retryOnFail: true, maxTries: 3, waitBetweenTries: 0 });
		// toStrictEqual: toEqual would take no outcomes at all for two without an error.
		expect(outcomes.map((outcome) => outcome.error)).toStrictEqual([undefined, undefined]);
		expect(fx.server.store.count()).toBe(2);
	});
});
