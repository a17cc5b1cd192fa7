/**
 * n8n is the judge: every behaviour of n8n that the engine tests stand in for, checked in the real hosts. Each test
 * fails if n8n behaves otherwise than its stand-in says.
 *
 * | stand-in | where | n8n code it follows |
 * |---|---|---|
 * | Retry On Fail (+ Continue On Fail) re-runs the node with the same items | testkit/engine.ts runActionNode (retryOnFail, maxTries, waitBetweenTries, onError) | n8n-core WorkflowExecute retry loop |
 * | the credential tester: the node's testedBy method, n8n-core's CredentialTestContext | testkit/engine.ts testCredentialAsN8nDoes | n8n dist/services/credentials-tester.service.js |
 * | default mode: static data saved only when a poll emits, and after the activation poll | testkit/poller.ts (trigger's) | trigger-execution-context.factory.js, ActiveWorkflowManager.add |
 * | durable poll cursors (2.41): poller_state moves after a poll that fires nothing | testkit/poller.ts (trigger's) | poll-cursor.service.js, poll-trigger-executor.js |
 * | the poll budget: getPollBudgetMs on 2.41's PollContext, absent on 1.x | testkit/poller.ts withoutPollBudget | n8n-core poll-context.js |
 * | the node as an agent's tool: its tool variant, and n8n-core's own tool retries (makeHandleToolInvocation) | testkit/toolAgent.ts | n8n dist/tool-generation/ai-tools.js; checked by test/e2e/mcp.e2e.ts (Submit tools with Retry On Fail) |
 */
import { execFileSync } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { ManualClock } from '../../server';
import { HOSTS } from '../../host/hosts';
import { executeWorkflow, freePort, startN8n } from '../../host/n8n';
import type { N8nInstance, RunningN8n } from '../../host/n8n';
import type { InstalledHost } from '../../host/install';
import { N8nRestClient } from '../../host/n8nRest';
import { openSession } from '../../host/session';
import type { Session } from '../../host/session';
import { activateWorkflow, createOwner, importIntoN8n, NATIVE_CREDENTIAL_ID, RELAY_CREDENTIAL_ID } from '../../host/workspace';
import { jobStatus, startHostileServer, startRecorder } from '../../testkit/hostileServer';
import type { Listener } from '../../testkit/hostileServer';
import { secretForms } from '../../testkit/secrets';
import {
	CURSOR_WORKFLOW_ID,
	ECHO_NATIVE_CREDENTIAL_ID,
	ECHO_RELAY_CREDENTIAL_ID,
	ECHO_WORKFLOW_ID,
	echoWorkflow,
	RETRY_CONTINUE_WORKFLOW_ID,
	RETRY_WORKFLOW_ID,
	retryWorkflow,
	STATE_WORKFLOW_ID,
	stateTriggerWorkflow,
} from './workflows';

const versions = (process.env.E2E_N8N_VERSIONS ?? Object.keys(HOSTS).join(',')).split(',').filter(Boolean);
const log = (line: string) => process.stderr.write(`[e2e stand-ins] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SALES = '/Shared/Flows/sales.flow';
const ECHO_JOB_ID = '7d3f1a2b-4c5e-4f60-8a71-92b3c4d5e6f7';

async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await probe();
		if (value) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await sleep(500);
	}
}

/** Rows of n8n's own sqlite database, read with the host's own sqlite3 build and Node. */
function query(n8n: N8nInstance, sql: string): Array<Record<string, unknown>> {
	const script = `const sqlite3 = require(${JSON.stringify(join(n8n.host.dir, 'node_modules', 'sqlite3'))});
const db = new sqlite3.Database(${JSON.stringify(join(n8n.userFolder, '.n8n', 'database.sqlite'))});
db.all(${JSON.stringify(sql)}, (error, rows) => { if (error) { console.error(error.message); process.exit(1); } process.stdout.write(JSON.stringify(rows)); db.close(); });`;
	return JSON.parse(execFileSync(n8n.host.nodeBin, ['-e', script], { encoding: 'utf8' })) as Array<Record<string, unknown>>;
}

function staticDataOf(n8n: N8nInstance, workflowId: string): string | null {
	const [row] = query(n8n, `SELECT staticData FROM workflow_entity WHERE id = '${workflowId}'`);
	return row ? ((row.staticData as string | null) ?? null) : null;
}

/** A "HH:MM:SS"-free cron: second S of every minute, S about `inSeconds` from now. */
function pollCronIn(version: string, inSeconds: number): string {
	if (version.startsWith('1.')) return HOSTS[version].fastestPollCron;
	return `${(new Date().getSeconds() + inSeconds) % 60} * * * * *`;
}

async function submitFromOutside(session: Session): Promise<string> {
	const response = await fetch(`${session.service.url}/api/v1/jobs`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', authorization: `Bearer ${session.service.nativeToken}` },
		body: JSON.stringify({ flowFileName: SALES, runProfileName: 'default', notificationEnabled: false, parameters: [] }),
	});
	return ((await response.json()) as { jobId: string }).jobId;
}

/** The editor's session: owner set up and logged in, for the REST call its credential Test button makes. */
async function editorSession(url: string, host: InstalledHost): Promise<N8nRestClient> {
	const owner = { email: 'judge@example.com', password: 'JobExecution1', firstName: 'Job', lastName: 'Judge' };
	await createOwner(url, owner);
	return await N8nRestClient.login(url, owner, host);
}

describe.each(versions)('stand-ins checked in n8n %s', (version) => {
	let session: Session;
	let userFolder: string;
	const clock = new ManualClock();
	let echo: Listener;
	const submitted = () => Object.entries(session.server.stats.byRoute).reduce((sum, [route, count]) => sum + (route.startsWith('POST') ? count : 0), 0);

	beforeAll(async () => {
		userFolder = mkdtempSync(join(tmpdir(), `job-execution-e2e-standins-${version}-`));
		// The service's clock stands still unless a test moves it: a job stays running as long as a check needs.
		session = await openSession({ hostVersion: version, userFolder, log, server: { clock } });
		// A service that writes every request header into the log of the job it returns, as a debug-logging one would.
		echo = await startHostileServer((request) => {
			const headers = Object.entries(request.raw.headers).map(([name, value]) => `${name}: ${String(value)}`);
			const job = { ...jobStatus(ECHO_JOB_ID, 'COMPLETED', { start: 1_700_000_000_000, end: 1_700_000_060_000 }), log: `request headers\n${headers.join('\n')}` };
			return { kind: 'json', body: request.target.includes(ECHO_JOB_ID) ? job : [job] };
		});
		await importIntoN8n(
			session.n8n,
			[
				{ id: ECHO_NATIVE_CREDENTIAL_ID, name: 'echoing native', type: 'jobExecutionApi', data: { baseUrl: echo.url, authType: 'bearerToken', token: session.service.nativeToken } },
				{ id: ECHO_RELAY_CREDENTIAL_ID, name: 'echoing relay', type: 'jobExecutionRelayApi', data: { relayUrl: echo.url, apiKey: session.service.relayApiKey, userApiKey: session.service.userApiKey } },
			],
			[retryWorkflow(RETRY_WORKFLOW_ID, SALES, false), retryWorkflow(RETRY_CONTINUE_WORKFLOW_ID, SALES, true), echoWorkflow(ECHO_JOB_ID)],
		);
	}, 20 * 60_000);

	afterAll(async () => {
		await echo?.close();
		await session?.close();
		rmSync(userFolder, { recursive: true, force: true });
	});

	// Jobs this test created, per item (each job carries its item's number as parameter "item").
	const jobsPerItem = (before: Set<string>) => {
		const perItem = [0, 0, 0];
		for (const job of session.server.store.all()) if (!before.has(job.id)) perItem[Number(job.parameters[0]?.value)]++;
		return perItem;
	};

	test('Retry On Fail re-runs Submit with the same items; item 3 answered 503: items 1 and 2 are submitted once, item 3 is not resent', async () => {
		const before = new Set(session.server.store.all().map((job) => job.id));
		const posts = submitted();
		// Every try's third submission would get the 503 (only the first try sends one).
		session.server.faults.inject([2, 2, 2].map((skip) => ({ kind: 'status' as const, status: 503, method: 'POST' as const, skip })));
		try {
			const executed = await executeWorkflow(session.n8n, RETRY_WORKFLOW_ID);
			const error = executed.run?.data.resultData.error;
			log(`Retry On Fail, item 3 503: jobs per item ${jobsPerItem(before).join('/')}, ${submitted() - posts} submissions; error: ${error?.message}`);
			expect(executed.code).toBe(1);
			expect(jobsPerItem(before)).toEqual([1, 1, 0]);
			expect(submitted() - posts).toBe(3);
			// This message exists only on a second try: n8n retried the node.
			expect(error?.message).toBe("Not submitted again on n8n's retry: the item's first submission may have created a job [item 2]");
			expect(error?.description).toMatch(/^The first try failed with: The service failed \(HTTP 503\)/);
		} finally {
			session.server.faults.clear();
		}
	});

	test('Retry On Fail with Continue On Fail: n8n retries on an error item; item 1 refused every time, items 2 and 3 keep their first jobs', async () => {
		const before = new Set(session.server.store.all().map((job) => job.id));
		const posts = submitted();
		session.server.faults.inject([0, 2, 0].map((skip) => ({ kind: 'bareString' as const, status: 400, text: 'flow is locked', method: 'POST' as const, skip })));
		try {
			const executed = await executeWorkflow(session.n8n, RETRY_CONTINUE_WORKFLOW_ID);
			const run = executed.run?.data.resultData.runData['Submit with Retry On Fail'];
			const items = (run?.[0]?.data?.main[0] ?? []).map((item) => item.json);
			log(`Retry On Fail + Continue On Fail: jobs per item ${jobsPerItem(before).join('/')}, ${submitted() - posts} submissions`);
			expect(executed.code).toBe(0);
			expect(jobsPerItem(before)).toEqual([0, 1, 1]);
			// Item 1 on each of n8n's 3 tries (the retries are n8n's: the node itself never resends), items 2 and 3 once.
			expect(submitted() - posts).toBe(5);
			expect(items[0]).toMatchObject({ error: 'Bad request: flow is locked' });
			const created = session.server.store.all().filter((job) => !before.has(job.id));
			expect(items.slice(1).map((json) => json.jobId).sort()).toEqual(created.map((job) => job.id).sort());
		} finally {
			session.server.faults.clear();
		}
	});

	test('a service echoing the request headers into a job log: no key in any n8n output', async () => {
		const executed = await executeWorkflow(session.n8n, ECHO_WORKFLOW_ID);
		expect(executed.code).toBe(0);
		// The echo did reach the output: the log is there, with the headers that are not secret.
		expect(executed.output).toContain('request headers');
		const forms = secretForms({
			native: { token: session.service.nativeToken },
			relay: { apiKey: session.service.relayApiKey, userApiKey: session.service.userApiKey },
		});
		const leaked = forms.filter((form) => executed.output.toLowerCase().includes(form));
		log(`echoing service: ${leaked.length} of ${forms.length} secret forms in n8n's output`);
		// The count only: a failure must not print the keys.
		expect(leaked.length).toBe(0);
	});

	test("the poll budget: 2.41's PollContext gives getPollBudgetMs, 1.x's has none", () => {
		const script = `const { PollContext } = require('n8n-core'); const { Workflow } = require('n8n-workflow');
const node = { id: 'n', name: 'n', type: 't', typeVersion: 1, position: [0, 0], parameters: {} };
const types = { getByNameAndVersion: () => ({ description: { properties: [] } }), getByName: () => ({ description: { properties: [] } }) };
const context = new PollContext(new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: types }), node, {}, 'trigger', 'activate');
process.stdout.write(JSON.stringify(typeof context.getPollBudgetMs === 'function' ? context.getPollBudgetMs() : null));`;
		const budget = JSON.parse(execFileSync(session.n8n.host.nodeBin, ['-e', script], { cwd: session.n8n.host.dir, encoding: 'utf8' })) as number | null;
		log(`poll budget in n8n ${version}: ${budget}`);
		if (version.startsWith('1.')) expect(budget).toBeNull();
		else expect(budget).toBe(5 * 60_000);
	});

	test("a running n8n: the editor's credential Test goes through the node, and default-mode static data is saved only after the activation poll and a poll that emits", async () => {
		let n8n: RunningN8n | undefined;
		const elsewhere = await startRecorder();
		const redirecting = await startHostileServer(() => ({ kind: 'redirect', status: 307, location: `${elsewhere.url}/api/v1/jobs` }));
		const notFound = await startHostileServer(() => ({ kind: 'json', status: 404, body: { message: 'Cannot GET' } }));
		try {
			await importIntoN8n(session.n8n, [], [stateTriggerWorkflow(STATE_WORKFLOW_ID, pollCronIn(version, 50))]);
			await activateWorkflow(session.n8n, STATE_WORKFLOW_ID);
			n8n = await startN8n(session.n8n);
			const afterActivation: string = await until('the activation poll\'s saved state', () => staticDataOf(session.n8n, STATE_WORKFLOW_ID) ?? undefined, 60_000);
			log(`state saved after the activation poll: ${afterActivation.slice(0, 300)}`);
			expect(afterActivation).toContain('node:Job finished');

			await checkCredentialTester(n8n.url, session, { elsewhere, redirecting, notFound });

			// A job that stays running: the next poll sees it (its state changes) and fires nothing.
			const jobId = await submitFromOutside(session);
			const seen = session.server.stats.requests;
			await until('a poll that fires nothing', () => session.server.stats.requests > seen, 90_000);
			await sleep(3000);
			expect(staticDataOf(session.n8n, STATE_WORKFLOW_ID)).toBe(afterActivation);

			clock.advance(60 * 60_000);
			await until('a poll that emits, and its save', () => staticDataOf(session.n8n, STATE_WORKFLOW_ID) !== afterActivation, 90_000);
			const afterEmit = staticDataOf(session.n8n, STATE_WORKFLOW_ID) as string;
			log(`state saved after the poll that emitted ${jobId}: ${afterEmit.slice(0, 300)}`);
			expect(afterEmit).toContain(jobId);
		} catch (err) {
			log(`n8n output:\n${n8n?.output().slice(-5000)}`);
			throw err;
		} finally {
			await n8n?.stop();
			await Promise.all([elsewhere.close(), redirecting.close(), notFound.close()]);
		}
	});

	(version.startsWith('2.') ? test : test.skip)('durable poll cursors (2.41): poller_state moves after a poll that fires nothing', async () => {
		const durable = {
			N8N_SCHEDULER_ENABLED: 'true',
			N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
			N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
			N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
		};
		const instance: N8nInstance = { ...session.n8n, env: { ...session.n8n.env, ...durable } };
		let n8n: RunningN8n | undefined;
		const cursor = () => {
			const rows = query(instance, `SELECT cursor FROM poller_state WHERE workflowId = '${CURSOR_WORKFLOW_ID}'`);
			const saved = rows.length > 0 ? JSON.stringify(rows) : undefined;
			// An empty cursor is the column's default: nothing committed yet.
			return saved && saved !== JSON.stringify([{ cursor: '{}' }]) ? saved : undefined;
		};
		try {
			await importIntoN8n(instance, [], [stateTriggerWorkflow(CURSOR_WORKFLOW_ID, pollCronIn(version, 40))]);
			await activateWorkflow(instance, CURSOR_WORKFLOW_ID);
			n8n = await startN8n(instance);
			const first = await until('a committed cursor', cursor, 120_000);
			log(`poller_state after the first committed poll: ${first.slice(0, 300)}`);
			// A new running job: the next scheduled poll fires nothing, and its cursor is committed alone.
			await submitFromOutside(session);
			const moved = await until('the cursor of a poll that fires nothing', () => (cursor() !== first ? cursor() : undefined), 120_000);
			log(`poller_state after a poll that fired nothing: ${moved.slice(0, 300)}`);
			expect(moved).not.toBe(first);
		} catch (err) {
			log(`n8n output:\n${n8n?.output().slice(-5000)}`);
			throw err;
		} finally {
			await n8n?.stop();
		}
	});
});

interface Servers {
	elsewhere: Listener;
	redirecting: Listener;
	notFound: Listener;
}

/** The editor's Test button (POST /rest/credentials/test) for good and wrong values, and a 307 to another origin. */
async function checkCredentialTester(url: string, session: Session, servers: Servers): Promise<void> {
	const editor = await editorSession(url, session.n8n.host);
	const { service } = session;
	const host = new URL(service.url).host;
	const native = (data: Record<string, unknown>) => editor.testCredential(NATIVE_CREDENTIAL_ID, 'jobExecutionApi', { baseUrl: service.url, authType: 'bearerToken', token: service.nativeToken, ...data });
	const relay = (data: Record<string, unknown>) => editor.testCredential(RELAY_CREDENTIAL_ID, 'jobExecutionRelayApi', { relayUrl: service.url, apiKey: service.relayApiKey, userApiKey: service.userApiKey, ...data });
	const closedPort = `http://127.0.0.1:${await freePort()}`;

	const results = {
		'native, right values': await native({}),
		'relay, right values': await relay({}),
		'native, wrong token': await native({ token: 'wrong-token-e2e' }),
		'relay, wrong user key': await relay({ userApiKey: 'wrong-user-key-e2e' }),
		'native, not a URL': await native({ baseUrl: 'jobs.example' }),
		'native, a 404 address': await native({ baseUrl: servers.notFound.url }),
		'relay, nothing listening': await relay({ relayUrl: closedPort }),
	};
	for (const [what, result] of Object.entries(results)) log(`credential test, ${what}: ${result.status}: ${result.message}`);
	expect(results['native, right values']).toEqual({ status: 'OK', message: `Connection successful: the Job Execution Service at ${host} listed its active jobs` });
	expect(results['relay, right values'].status).toBe('OK');
	expect(results['native, wrong token']).toEqual({ status: 'Error', message: `The service at ${host} refused the credentials (HTTP 401). Check the Token.` });
	expect(results['relay, wrong user key']).toEqual({ status: 'Error', message: `The service at ${host} refused the credentials (HTTP 401). Check the Relay API Key and the User API Key.` });
	expect(results['native, not a URL'].message).toBe('The credential\'s Base URL "jobs.example" is not a valid URL: it must start with http:// or https://');
	expect(results['native, a 404 address'].message).toContain('has no Job Execution Service at this address (HTTP 404). Check the Base URL');
	expect(results['relay, nothing listening'].message).toMatch(/^Cannot reach 127\.0\.0\.1:\d+ \(ECONNREFUSED\)\. Check the Relay URL/);

	// A 307 to another origin, for each of the four credential kinds: nothing (so no key) reaches the other origin.
	const kinds: Array<[string, () => Promise<{ status: string; message: string }>]> = [
		['bearer', () => native({ baseUrl: servers.redirecting.url })],
		['basic', () => native({ baseUrl: servers.redirecting.url, authType: 'basicAuth', user: 'judge', password: 'basic-pass-e2e-71c3' })],
		['header', () => native({ baseUrl: servers.redirecting.url, authType: 'headerAuth', headerName: 'X-Jobs-Key', headerSecret: 'header-secret-e2e-9d2a' })],
		['relay', () => relay({ relayUrl: servers.redirecting.url })],
	];
	for (const [kind, test] of kinds) {
		const result = await test();
		log(`credential test, ${kind}, 307 to another origin: ${result.status}: ${result.message}`);
		expect(result.status).toBe('Error');
		expect(result.message).toContain('redirect (HTTP 307)');
	}
	expect(servers.redirecting.requests).toHaveLength(4);
	expect(servers.elsewhere.requests).toHaveLength(0);
}
