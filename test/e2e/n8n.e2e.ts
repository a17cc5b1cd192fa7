/**
 * The packed package inside a real n8n (each supported version): workflows imported and run with `n8n execute`,
 * and the trigger in an activated workflow under `n8n start`, across a restart, observed through a local sink: one
 * saved on version 1 (its items unchanged) and one added new, which is version 2 (jobId, outcome, simplified).
 */
import { createServer } from 'http';
import type { Server } from 'http';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { HOSTS } from '../../host/hosts';
import { executeWorkflow, nodeItems, startN8n } from '../../host/n8n';
import type { ExecutedWorkflow, RunningN8n } from '../../host/n8n';
import { openSession } from '../../host/session';
import type { Session } from '../../host/session';
import { activateWorkflow, importIntoN8n } from '../../host/workspace';
import { BAD_RELAY_CREDENTIAL_ID, operationsWorkflow, TRIGGER_WORKFLOW_ID, triggerWorkflow, wrongRelayKeyWorkflow } from './workflows';
import type { FlowRefs } from './workflows';

const versions = (process.env.E2E_N8N_VERSIONS ?? Object.keys(HOSTS).join(',')).split(',').filter(Boolean);
const log = (line: string) => process.stderr.write(`[e2e] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const WRONG_KEY = 'wrong-relay-key-e2e-6f1d2c';

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs: number): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = probe();
		if (value) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await sleep(250);
	}
}

// What went wrong, if anything: the run's error, or n8n's own output when it printed no run.
function outcome(executed: ExecutedWorkflow) {
	return { code: executed.code, error: executed.run ? executed.run.data.resultData.error?.message : executed.output.slice(-3000) };
}

interface Sink {
	url: string;
	/** Each field as the report node sent it: "present:<value>" or "absent". */
	events: Array<{ version: string; id: string; jobId: string; executionStatus: string; outcome: string; event: string; log: string }>;
	server: Server;
}

function startSink(): Promise<Sink> {
	const events: Sink['events'] = [];
	const server = createServer((req, res) => {
		let body = '';
		req.on('data', (chunk: Buffer) => (body += chunk.toString()));
		req.on('end', () => {
			events.push(JSON.parse(body) as Sink['events'][number]);
			res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
		});
	});
	return new Promise((resolve) =>
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			resolve({ url: `http://127.0.0.1:${port}/events`, events, server });
		}),
	);
}

describe.each(versions)('inside n8n %s', (version) => {
	let session: Session;
	let userFolder: string;
	let flows: FlowRefs;
	const secrets = () => [session.service.nativeToken, session.service.relayApiKey, session.service.userApiKey, session.mcpToken, WRONG_KEY];

	beforeAll(async () => {
		userFolder = mkdtempSync(join(tmpdir(), `job-execution-e2e-${version}-`));
		session = await openSession({ hostVersion: version, userFolder, log, server: { stepMs: 300 } });
		const flowOf = (file: string) => {
			const flow = session.server.catalog.flows.find((candidate) => candidate.flowFileName === file);
			if (!flow) throw new Error(`no ${file} in the catalog`);
			return { file, id: flow.flowId };
		};
		flows = { completing: flowOf('/Shared/Flows/sales.flow'), failing: flowOf('/Shared/Flows/inventory-load.flow') };
		await importIntoN8n(
			session.n8n,
			[{ id: BAD_RELAY_CREDENTIAL_ID, name: 'relay with a wrong key', type: 'jobExecutionRelayApi', data: { relayUrl: session.service.url, apiKey: WRONG_KEY, userApiKey: session.service.userApiKey } }],
			[operationsWorkflow(flows), wrongRelayKeyWorkflow()],
		);
	}, 20 * 60_000);

	afterAll(async () => {
		await session?.close();
		rmSync(userFolder, { recursive: true, force: true });
	});

	test('every operation over the native and the relay interface', async () => {
		const before = session.server.store.count();
		const executed = await executeWorkflow(session.n8n, 'jobExecE2eOps001');
		expect(outcome(executed)).toEqual({ code: 0, error: undefined });

		for (const via of ['native', 'relay']) {
			const [submitted] = nodeItems(executed, `Submit and wait (${via})`);
			expect(submitted).toMatchObject({ executionStatus: 'COMPLETED', flowName: 'sales' });
			expect(submitted.logParsed).toMatchObject({ finalStatus: 'COMPLETED', stepResults: expect.any(Array) });
			const [got] = nodeItems(executed, `Get (${via})`);
			expect(got).toMatchObject({ id: submitted.id, executionStatus: 'COMPLETED' });
			const listed = nodeItems(executed, `Get many (${via})`);
			expect(listed.length).toBeGreaterThan(0);
			expect(listed.map((job) => job.id)).toContain(submitted.id);
		}
		const [navigation] = nodeItems(executed, 'Navigation URL (native)');
		expect(String(navigation.url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/.*node_2/);
		const [relayNavigation] = nodeItems(executed, 'Navigation URL (relay)');
		expect(relayNavigation).toMatchObject({ error: expect.stringMatching(/relay interface has no navigation endpoint/), description: expect.stringMatching(/Native API/) });
		const [failedItem] = nodeItems(executed, 'Failing job, fail the item');
		expect(String(failedItem.error)).toMatch(/ERROR/);
		const [failedData] = nodeItems(executed, 'Failing job, return data');
		expect(failedData).toMatchObject({ executionStatus: 'ERROR', flowName: 'inventory-load' });
		// Four submits, each exactly once.
		expect(session.server.store.count() - before).toBe(4);
		for (const secret of secrets()) expect(executed.output).not.toContain(secret);
	});

	test('a wrong relay key fails with a clear message that shows no key', async () => {
		const executed = await executeWorkflow(session.n8n, 'jobExecE2eBadKey');
		expect(outcome(executed)).toEqual({ code: 1, error: expect.stringMatching(/refused the credentials \(HTTP 401\)/) });
		const error = executed.run?.data.resultData.error;
		expect(error?.message).toMatch(/refused the credentials \(HTTP 401\)/);
		expect(error?.description).toMatch(/Relay API Key/);
		for (const secret of secrets()) expect(executed.output).not.toContain(secret);
	});

	test('the activated trigger reports each job status change exactly once, across an n8n restart', async () => {
		const sink = await startSink();
		let n8n: RunningN8n | undefined;
		const requests = () => session.server.stats.requests;
		// Jobs come from outside n8n, as another system's would: a plain POST to the native API.
		const submit = async (file: string): Promise<string> => {
			const response = await fetch(`${session.service.url}/api/v1/jobs`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', authorization: `Bearer ${session.service.nativeToken}` },
				body: JSON.stringify({ flowFileName: file, runProfileName: 'default', notificationEnabled: false, parameters: [] }),
			});
			return ((await response.json()) as { jobId: string }).jobId;
		};
		const finished = (ids: string[]) => ids.every((id) => ['COMPLETED', 'ERROR'].includes(session.server.store.status(id)?.executionStatus ?? ''));
		try {
			// 2.x polls at most once a minute: the poll second is set so the first scheduled poll comes soon after start.
			const second = (new Date().getSeconds() + 40) % 60;
			const cron = version.startsWith('1.') ? HOSTS[version].fastestPollCron : `${second} * * * * *`;
			await importIntoN8n(session.n8n, [], [triggerWorkflow(cron, sink.url)]);
			await activateWorkflow(session.n8n, TRIGGER_WORKFLOW_ID);

			n8n = await startN8n(session.n8n);
			// Activation polls once at once: the baseline, which reports nothing.
			await until('the activation poll', () => requests() > 0, 60_000);
			const first = [await submit('/Shared/Flows/sales.flow'), await submit('/Shared/Flows/inventory-load.flow')];
			log(`submitted ${first.length} jobs while n8n ${version} polls`);
			await until('the first events', () => sink.events.length >= 4, 90_000);

			await n8n.stop();
			const whileDown = [await submit('/Shared/Flows/sales.flow'), await submit('/Shared/Flows/inventory-load.flow')];
			await until('the jobs to finish while n8n is down', () => finished(whileDown), 30_000);
			n8n = await startN8n(session.n8n);
			await until('the events of jobs that ended while n8n was down', () => sink.events.length >= 8, 90_000);

			// One more scheduled poll must add nothing.
			const seen = requests();
			await until('one more poll', () => requests() > seen, 90_000);
			await sleep(5000);
			await n8n.stop();

			const statusOf = (id: string) => session.server.store.status(id)?.executionStatus ?? '';
			const outcomes: Record<string, string> = { COMPLETED: 'completed', ERROR: 'failed' };
			const ids = [...first, ...whileDown];
			// Version 1 as it always was: the JobStatus (log included) with `event`, no jobId or outcome.
			const one = sink.events.filter((event) => event.version === '1');
			const expectedOne = ids.map((id) => [`present:${id}`, 'absent', `present:${statusOf(id)}`, 'absent', true, true]);
			const receivedOne = one.map((event) => [event.id, event.jobId, event.executionStatus, event.outcome, /^present:(newJob|statusChanged)$/.test(event.event), event.log.startsWith('present:')]);
			// Version 2, a new node's defaults: jobId and outcome, simplified (no id, event or raw log).
			const two = sink.events.filter((event) => event.version === '2');
			const expectedTwo = ids.map((id) => ['absent', `present:${id}`, `present:${statusOf(id)}`, `present:${outcomes[statusOf(id)]}`, 'absent', 'absent']);
			const receivedTwo = two.map((event) => [event.id, event.jobId, event.executionStatus, event.outcome, event.event, event.log]);
			log(`trigger on n8n ${version}: ${one.length} + ${two.length} events for ${ids.length} (job, status) changes`);
			const sorted = (rows: unknown[][]) => rows.map((row) => JSON.stringify(row)).sort();
			expect(sorted(receivedOne)).toEqual(sorted(expectedOne));
			expect(sorted(receivedTwo)).toEqual(sorted(expectedTwo));
			expect(sink.events).toHaveLength(one.length + two.length);
		} catch (err) {
			log(`server requests: ${JSON.stringify(session.server.stats.byRoute)}; sink: ${JSON.stringify(sink.events)}`);
			log(`n8n output:\n${n8n?.output().slice(-6000)}`);
			throw err;
		} finally {
			await n8n?.stop();
			sink.server.close();
		}
	});
});
