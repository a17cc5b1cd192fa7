/**
 * An AI agent drives jobs through n8n's MCP Server Trigger: the MCP example workflow (examples/) published in a real
 * n8n, and the official MCP TypeScript SDK client (the copy inside the n8n host) over each transport it offers.
 * One n8n start serves every case.
 */
import { randomUUID } from 'crypto';
import { mkdtempSync, rmSync } from 'fs';
import { createRequire } from 'module';
import { tmpdir } from 'os';
import { join } from 'path';

import { HOSTS } from '../../host/hosts';
import { startN8n } from '../../host/n8n';
import type { RunningN8n } from '../../host/n8n';
import { N8nRestClient } from '../../host/n8nRest';
import { openSession } from '../../host/session';
import type { Session } from '../../host/session';
import { activateWorkflow, createOwner, DEMO_OWNER, EXAMPLE_IDS, exampleWorkflows, importIntoN8n } from '../../host/workspace';
import type { WorkflowRecord } from '../../host/workspace';
import { MCP_RETRY_PATH, MCP_RETRY_TOOLS, MCP_RETRY_WORKFLOW_ID, mcpRetryWorkflow } from './workflows';

// Both hosts serve MCP: 1.123.81's trigger (up to v2, the example's version) and tool variants work as 2.41.1's do.
const versions = (process.env.E2E_N8N_VERSIONS ?? Object.keys(HOSTS).join(',')).split(',').filter(Boolean);
const log = (line: string) => process.stderr.write(`[e2e mcp] ${line}\n`);

const WORKFLOW_ID = EXAMPLE_IDS['mcp-server-for-agents'];
const MCP_PATH = 'job-execution';
const TOOL_NAMES = ['get_job_status', 'list_recent_jobs', 'submit_job', 'wait_for_job'];

// The SDK's shapes this test relies on (its own typings live in the host's folder, not the project's).
interface ToolResult {
	isError?: boolean;
	content: Array<{ type: string; text?: string }>;
}
interface ListedTool {
	name: string;
	description?: string;
	inputSchema: { type: string; properties?: Record<string, { type?: string; description?: string; anyOf?: unknown[] }>; required?: string[] };
}
interface McpClient {
	connect(transport: unknown): Promise<void>;
	listTools(): Promise<{ tools: ListedTool[] }>;
	getInstructions(): string | undefined;
	callTool(params: { name: string; arguments?: Record<string, unknown> }, resultSchema?: unknown, options?: { timeout?: number }): Promise<ToolResult>;
	close(): Promise<void>;
}
interface Sdk {
	newClient(): McpClient;
	transport(kind: Transport, url: URL, headers: Record<string, string>): unknown;
}
type Transport = 'streamable HTTP' | 'SSE';

function loadSdk(hostDir: string): Sdk {
	const hostRequire = createRequire(join(hostDir, 'package.json'));
	const { Client } = hostRequire('@modelcontextprotocol/sdk/client/index.js') as { Client: new (info: object) => McpClient };
	const { StreamableHTTPClientTransport } = hostRequire('@modelcontextprotocol/sdk/client/streamableHttp.js') as {
		StreamableHTTPClientTransport: new (url: URL, options: object) => unknown;
	};
	const { SSEClientTransport } = hostRequire('@modelcontextprotocol/sdk/client/sse.js') as { SSEClientTransport: new (url: URL, options: object) => unknown };
	return {
		newClient: () => new Client({ name: 'job-execution-e2e-agent', version: '1.0.0' }),
		transport: (kind, url, headers) =>
			kind === 'SSE' ? new SSEClientTransport(url, { requestInit: { headers } }) : new StreamableHTTPClientTransport(url, { requestInit: { headers } }),
	};
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// n8n answers ready before it has activated published workflows: until then the MCP path is an unknown webhook (404).
async function mcpEndpointRegistered(url: URL, output: () => string): Promise<void> {
	const deadline = Date.now() + 60_000;
	for (;;) {
		const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
		await response.arrayBuffer();
		if (response.status !== 404) return;
		if (Date.now() > deadline) throw new Error(`the MCP endpoint ${url.pathname} was not registered within 60 s:\n${output().slice(-6000)}`);
		await sleep(250);
	}
}

const textOf = (result: ToolResult) => result.content.map((part) => part.text ?? '').join('\n');
// A tool's result is the JSON text of the node's output items.
const itemsOf = (result: ToolResult) => JSON.parse(textOf(result)) as Array<Record<string, unknown>>;

interface ExampleNode {
	name: string;
	type: string;
	parameters: Record<string, unknown>;
}

/** The service's clock: the wall clock, but it can stand still (jobs then neither move nor end) and go on from there. */
function stoppableClock() {
	let offset = 0;
	let stoppedAt: number | undefined;
	return {
		now: () => stoppedAt ?? Date.now() - offset,
		stop: () => void (stoppedAt ??= Date.now() - offset),
		go: () => {
			if (stoppedAt === undefined) return;
			offset = Date.now() - stoppedAt;
			stoppedAt = undefined;
		},
	};
}

describe.each(versions)('an AI agent through the MCP Server Trigger of n8n %s', (version) => {
	let session: Session;
	let userFolder: string;
	let n8n: RunningN8n;
	let sdk: Sdk;
	let rest: N8nRestClient;
	let example: { nodes: ExampleNode[] };
	// The token the session imported as the MCP example's bearer credential.
	let mcpToken: string;
	// Every text a tool returned and every n8n log line that showed a key, checked at the end.
	const toolTexts: string[] = [];
	// The same for the Retry On Fail server's calls (kept apart: the count of the example's calls is checked).
	const retryTexts: string[] = [];
	const leakingLogLines: string[] = [];
	const secrets = () => [session.service.nativeToken, session.service.relayApiKey, session.service.userApiKey, mcpToken];
	const serviceClock = stoppableClock();
	const mcpUrl = () => new URL(`${n8n.url}/mcp/${MCP_PATH}`);
	const exampleNode = (name: string) => example.nodes.find((node) => node.name === name) as ExampleNode;

	beforeAll(async () => {
		userFolder = mkdtempSync(join(tmpdir(), `job-execution-e2e-mcp-${version}-`));
		session = await openSession({ hostVersion: version, userFolder, log, server: { stepMs: 300, clock: serviceClock } });
		const workflow = exampleWorkflows().find((candidate) => candidate.id === WORKFLOW_ID);
		if (!workflow) throw new Error('the MCP example workflow is missing from examples/');
		example = workflow as unknown as { nodes: ExampleNode[] };
		mcpToken = session.mcpToken;
		await importIntoN8n(session.n8n, [], [workflow, mcpRetryWorkflow(workflow as WorkflowRecord)]);
		await activateWorkflow(session.n8n, WORKFLOW_ID);
		await activateWorkflow(session.n8n, MCP_RETRY_WORKFLOW_ID);
		// The most talkative level, so the log check covers everything n8n writes; every line is checked.
		session.n8n.logLevel = 'debug';
		const keys = secrets();
		n8n = await startN8n(session.n8n, (line) => {
			if (keys.some((key) => line.includes(key))) leakingLogLines.push(line);
		});
		await mcpEndpointRegistered(mcpUrl(), () => n8n.output());
		await createOwner(n8n.url, DEMO_OWNER);
		rest = await N8nRestClient.login(n8n.url, DEMO_OWNER, session.n8n.host);
		sdk = loadSdk(session.n8n.host.dir);
	}, 20 * 60_000);

	afterAll(async () => {
		await n8n?.stop();
		await session?.close();
		rmSync(userFolder, { recursive: true, force: true });
	});

	async function connect(kind: Transport, url = mcpUrl()): Promise<McpClient> {
		const client = sdk.newClient();
		await client.connect(sdk.transport(kind, url, { authorization: `Bearer ${mcpToken}` }));
		return client;
	}

	async function call(client: McpClient, name: string, args: Record<string, unknown>): Promise<ToolResult> {
		const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
		toolTexts.push(JSON.stringify(result));
		return result;
	}

	describe.each<Transport>(['streamable HTTP', 'SSE'])('over %s', (kind) => {
		let client: McpClient;
		beforeAll(async () => {
			client = await connect(kind);
		});
		afterAll(async () => {
			await client?.close();
		});

		test('lists the four tools with the descriptions and input schemas of the example', async () => {
			const { tools } = await client.listTools();
			const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
			expect(Object.keys(byName).sort()).toEqual(TOOL_NAMES);
			for (const name of TOOL_NAMES) expect(byName[name].description).toBe(exampleNode(name).parameters.toolDescription);
			// n8n 1.x's trigger has no Instructions parameter: its clients get the tool descriptions only.
			const instructions = version.startsWith('1.') ? undefined : exampleNode('MCP Server Trigger').parameters.instructions;
			expect(client.getInstructions()).toBe(instructions);

			const submit = byName.submit_job.inputSchema;
			expect(submit.properties).toMatchObject({
				flowFileName: { type: 'string', description: expect.stringMatching(/flow file/) },
				runProfile: { type: 'string', description: expect.stringMatching(/run profile/) },
				parameters: { type: 'string', default: '[]', description: expect.stringMatching(/integer/) },
			});
			expect([...(submit.required ?? [])].sort()).toEqual(['flowFileName', 'runProfile']);
			for (const name of ['get_job_status', 'wait_for_job']) {
				expect(byName[name].inputSchema.properties?.jobId).toMatchObject({ type: 'string', description: expect.stringMatching(/jobId/) });
				expect(byName[name].inputSchema.required).toEqual(['jobId']);
			}
			expect(byName.wait_for_job.inputSchema.properties?.timeoutSeconds).toMatchObject({ type: 'number', default: 50 });
			expect(byName.list_recent_jobs.inputSchema.properties).toMatchObject({ scope: { type: 'string', default: 'all' }, limit: { type: 'number', default: 20 } });
			expect(byName.list_recent_jobs.inputSchema.required ?? []).toEqual([]);
			log(`${kind}: ${tools.map((tool) => `${tool.name}(${Object.keys(tool.inputSchema.properties ?? {}).join(', ')})`).join('; ')}`);
		});

		test('submit with typed parameters, then get, wait and list: exactly one job on the server', async () => {
			const before = session.server.store.count();
			const parameters = [
				{ name: 'region', type: 'string', value: 'EMEA' },
				{ name: 'batchSize', type: 'integer', value: '500' },
				{ name: 'threshold', type: 'float', value: '0.75' },
			];
			const submitted = await call(client, 'submit_job', { flowFileName: '/Shared/Flows/sales.flow', runProfile: 'default', parameters: JSON.stringify(parameters) });
			expect(submitted.isError).toBeFalsy();
			const [job] = itemsOf(submitted);
			expect(job).toMatchObject({ jobId: expect.any(String), flowFileName: '/Shared/Flows/sales.flow', runProfileName: 'default', parameters });
			const jobId = job.jobId as string;

			const status = await call(client, 'get_job_status', { jobId });
			expect(status.isError).toBeFalsy();
			expect(itemsOf(status)[0]).toMatchObject({ jobId, flowName: 'sales', executionStatus: expect.stringMatching(/^(QUEUED|RUNNING|COMPLETED)$/) });

			const waited = await call(client, 'wait_for_job', { jobId, timeoutSeconds: 60 });
			expect(waited.isError).toBeFalsy();
			const [outcome] = itemsOf(waited);
			expect(outcome).toMatchObject({ jobId, executionStatus: 'COMPLETED', outcome: 'completed' });
			// The typed parameters reached the job as sent: the job's own log lists them.
			expect(JSON.stringify(outcome.logParsed)).toContain('"batchSize","integer","500"');

			const listed = await call(client, 'list_recent_jobs', { scope: 'history', limit: 100 });
			expect(itemsOf(listed).map((entry) => entry.jobId)).toContain(jobId);
			expect(session.server.store.count() - before).toBe(1);
			expect(session.server.store.status(jobId)?.executionStatus).toBe('COMPLETED');
			log(`${kind}: job ${jobId} ${outcome.executionStatus} in ${String(outcome.runtimeSeconds)} s`);
		});

		test('bad arguments from the agent come back as a clear isError result and start nothing', async () => {
			const before = session.server.store.count();
			const badInteger = await call(client, 'submit_job', {
				flowFileName: '/Shared/Flows/sales.flow',
				runProfile: 'default',
				parameters: JSON.stringify([{ name: 'batchSize', type: 'integer', value: 'abc' }]),
			});
			expect(badInteger).toMatchObject({ isError: true });
			expect(textOf(badInteger)).toMatch(/Parameter "batchSize" must be an integer, got "abc"/);

			const unknownJob = await call(client, 'get_job_status', { jobId: randomUUID() });
			expect(unknownJob).toMatchObject({ isError: true });
			expect(textOf(unknownJob)).toMatch(/unknown job id/);

			const missing = await call(client, 'submit_job', { flowFileName: '/Shared/Flows/sales.flow' });
			expect(missing).toMatchObject({ isError: true });
			expect(textOf(missing)).toMatch(/did not match expected schema[\s\S]*Required[\s\S]*runProfile/);

			const notJson = await call(client, 'submit_job', { flowFileName: '/Shared/Flows/sales.flow', runProfile: 'default', parameters: 'region=EMEA' });
			expect(notJson).toMatchObject({ isError: true });
			expect(textOf(notJson)).toMatch(/Parameters \(JSON\) is not valid JSON/);

			expect(session.server.store.count()).toBe(before);
			if (kind === 'streamable HTTP') log(`isError texts: ${[badInteger, unknownJob, missing, notJson].map((result) => JSON.stringify(textOf(result))).join(' | ')}`);
		});
	});

	test('a wait that times out says the job goes on; waiting again with the same jobId gets its outcome', async () => {
		const client = await connect('streamable HTTP');
		try {
			const before = session.server.store.count();
			// The service's clock stands still until the wait has timed out: the job cannot end first, however long
			// n8n takes over the calls (a busy machine).
			serviceClock.stop();
			const submitted = await call(client, 'submit_job', { flowFileName: '/Shared/Flows/customer-sync.flow', runProfile: 'default' });
			const jobId = itemsOf(submitted)[0].jobId as string;
			const started = Date.now();
			const timedOut = await call(client, 'wait_for_job', { jobId, timeoutSeconds: 1 });
			const heldMs = Date.now() - started;
			expect(timedOut).toMatchObject({ isError: true });
			expect(textOf(timedOut)).toMatch(new RegExp(`Timed out after 1 s waiting for job ${jobId}: last status (QUEUED|RUNNING)`));
			expect(heldMs).toBeGreaterThanOrEqual(1000);
			serviceClock.go();
			const waited = await call(client, 'wait_for_job', { jobId });
			expect(itemsOf(waited)[0]).toMatchObject({ jobId, executionStatus: 'COMPLETED' });
			expect(session.server.store.count() - before).toBe(1);
			log(`wait timeout after ${heldMs} ms: ${JSON.stringify(textOf(timedOut))}`);
		} finally {
			serviceClock.go();
			await client.close();
		}
	});

	/**
	 * n8n retries a tool itself (makeHandleToolInvocation: a new run index and input item per try, the same arguments
	 * object): Submit must recognise its own invocation, and a new call with equal arguments must still submit.
	 */
	describe('Submit tools with Retry On Fail (3 tries)', () => {
		let client: McpClient;
		const figures: string[] = [];
		beforeAll(async () => {
			await mcpEndpointRegistered(new URL(`${n8n.url}/mcp/${MCP_RETRY_PATH}`), () => n8n.output());
			client = await connect('streamable HTTP', new URL(`${n8n.url}/mcp/${MCP_RETRY_PATH}`));
		});
		afterAll(async () => {
			await client?.close();
			log(`Retry On Fail, jobs per agent call: ${figures.join('; ')}`);
		});
		const flowArgs = (via: 'native' | 'relay', file: string) => {
			const flow = session.server.catalog.flows.find((candidate) => candidate.flowFileName === file);
			return via === 'native' ? { flowFileName: file, runProfile: 'default' } : { flowId: flow?.flowId, runProfile: 'default' };
		};
		async function retried(name: string, args: Record<string, unknown>): Promise<{ result: ToolResult; jobs: string[] }> {
			const before = new Set(session.server.store.all().map((job) => job.id));
			const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
			retryTexts.push(JSON.stringify(result));
			return { result, jobs: session.server.store.all().filter((job) => !before.has(job.id)).map((job) => job.id) };
		}

		test('lists the four Submit tools', async () => {
			const { tools } = await client.listTools();
			expect(tools.map((tool) => tool.name).sort()).toEqual(MCP_RETRY_TOOLS);
		});

		test.each(['native', 'relay'] as const)('%s: the service creates the job, then answers 500: one job, and the agent is told it may exist', async (via) => {
			session.server.faults.inject({ kind: 'status', status: 500, after: true, method: 'POST', api: via });
			try {
				const { result, jobs } = await retried(via === 'native' ? 'submit_job' : 'submit_job_relay', flowArgs(via, '/Shared/Flows/sales.flow'));
				figures.push(`created then 500 (${via}): ${jobs.length}`);
				expect(jobs).toHaveLength(1);
				expect(result).toMatchObject({ isError: true });
				expect(textOf(result)).toMatch(/Not submitted again on n8n's retry: the item's first submission may have created a job/);
			} finally {
				session.server.faults.clear();
			}
		});

		test.each(['native', 'relay'] as const)('%s: Wait for Completion, Timeout 1 s, on a running job: one job; the retries wait for it', async (via) => {
			// monthly-report runs 5 steps: longer than the first try's 1 s wait.
			const { result, jobs } = await retried(via === 'native' ? 'submit_and_wait' : 'submit_and_wait_relay', flowArgs(via, '/Shared/Flows/monthly-report.flow'));
			figures.push(`wait timeout 1 s (${via}): ${jobs.length}`);
			expect(jobs).toHaveLength(1);
			// A later try may see the job end (the demo's flows may end failed or cancelled, which fails the item by
			// default); either way the agent hears of that one job.
			if (result.isError) expect(textOf(result)).toMatch(new RegExp(`(Timed out after 1 s waiting for job|Job) ${jobs[0]}`));
			else expect(itemsOf(result)[0]).toMatchObject({ jobId: jobs[0] });
		});

		test('a new call with equal arguments is new work: two calls, two jobs', async () => {
			const args = flowArgs('native', '/Shared/Flows/sales.flow');
			const first = await retried('submit_job', args);
			const second = await retried('submit_job', args);
			expect([first.jobs.length, second.jobs.length]).toEqual([1, 1]);
			expect(first.jobs[0]).not.toBe(second.jobs[0]);
			expect(itemsOf(second.result)[0]).toMatchObject({ jobId: second.jobs[0] });
		});
	});

	test('a client without the MCP bearer token is refused', async () => {
		const client = sdk.newClient();
		await expect(client.connect(sdk.transport('streamable HTTP', mcpUrl(), { authorization: 'Bearer not-the-token' }))).rejects.toThrow(/Authorization data is wrong/);
		const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
		const post = await fetch(mcpUrl(), {
			method: 'POST',
			headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
			body: JSON.stringify(initialize),
		});
		const sse = await fetch(mcpUrl(), { headers: { accept: 'text/event-stream' } });
		const answers = [`${post.status} ${await post.text()}`, `${sse.status} ${await sse.text()}`];
		expect(answers.map((answer) => answer.slice(0, 3))).toEqual(['403', '403']);
		for (const answer of answers) expect(answer).not.toMatch(/submit_job|serverInfo/);
	});

	test('no key appears in any tool result, execution record or n8n log line', async () => {
		const executions = await rest.executions(WORKFLOW_ID);
		// Each transport: four successful calls and four refused ones; then submit, a wait that times out, and a wait.
		// 2.x records every call as one execution (refused ones as success too); 1.x only the ten successful ones.
		expect(toolTexts.length).toBe(19);
		expect(executions.length).toBe(version.startsWith('1.') ? 10 : 19);
		const records = await Promise.all(executions.map((execution) => rest.storedData(execution.id)));
		const statuses = executions.reduce<Record<string, number>>((counts, execution) => ({ ...counts, [execution.status]: (counts[execution.status] ?? 0) + 1 }), {});
		log(`${executions.length} executions recorded: ${JSON.stringify(statuses)}; ${toolTexts.length} tool results checked`);
		for (const secret of secrets()) {
			for (const text of [...toolTexts, ...retryTexts, ...records]) expect(text).not.toContain(secret);
		}
		expect(leakingLogLines).toEqual([]);
	});
});
