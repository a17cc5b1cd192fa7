/**
 * The packed package on n8n's queue mode: Redis, PostgreSQL, a main instance and two workers (n8n 2.41.1).
 * Executions spread over both workers with exactly one job each; the trigger reports each (job, watched status)
 * exactly once with n8n's default scheduler and with its durable scheduler and cursors, across a worker killed
 * mid-execution and main restarts between polls; the shipped durable-wait example holds no worker slot while
 * it waits and fires once across those restarts. What happens to an execution whose worker dies is measured.
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { DEFAULT_HOST_VERSION } from '../../host/hosts';
import { openQueueCluster } from '../../host/queue';
import type { QueueCluster } from '../../host/queue';
import { activateWorkflow, importIntoN8n } from '../../host/workspace';
import type { StoredJob } from '../../server';
import { callWebhook, inParallel, parameterOf, sleep, startSink, until, webhooksRegistered } from './helpers';
import type { Sink, WebhookAnswer } from './helpers';
import { DURABLE_PATH, DURABLE_WORKFLOW_ID, durableWorkflow, QUEUE_FLOWS, QUEUE_PROFILES, queueCatalog, SUBMIT_PATH, SUBMIT_WEBHOOK_ID, submitAndWaitWorkflow, triggerWorkflow } from './workflows';

const log = (line: string) => process.stderr.write(`[queue] ${line}\n`);
const TRIGGER_DEFAULT_ID = 'jobExecQTrigDflt';
const TRIGGER_DURABLE_ID = 'jobExecQTrigDurb';
// n8n 2.41's opt-in durable scheduler, with the trigger's state in `poller_state` instead of static data.
const DURABLE_SCHEDULER = { N8N_SCHEDULER_ENABLED: 'true', N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true', N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true' };
const WATCHED = ['COMPLETED', 'ERROR'];

let cluster: QueueCluster;
let sink: Sink;
let root: string;
// 2.x polls at most once a minute: every trigger polls at this second of each minute.
let pollSecond: number;
// When main was restarted: the durable executions must have waited through these.
const mainRestarts: number[] = [];
// What the scenarios measured, printed at the end (README and BENCHMARKS.md quote it).
const measured: Record<string, unknown> = {};

const server = () => cluster.session.server;
const mainUrl = () => cluster.main?.url ?? '';
const jobsOf = (caller: string) => server().store.all().filter((job) => parameterOf(job, 'tag') === caller);
const statusOf = (job: StoredJob) => server().store.status(job.id)?.executionStatus ?? '';
const executionStatuses = (workflowId: string) => cluster.sql(`select id, status from execution_entity where "workflowId" = '${workflowId}' order by id`);

// Jobs from outside n8n, as another system's would: a plain POST to the native API.
async function submitDirect(flow: string, profile: string): Promise<string> {
	const response = await fetch(`${server().url}/api/v1/jobs`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', authorization: `Bearer ${cluster.session.service.nativeToken}` },
		body: JSON.stringify({ flowFileName: flow, runProfileName: profile, notificationEnabled: false, parameters: [] }),
	});
	return ((await response.json()) as { jobId: string }).jobId;
}

// When the next scheduled poll starts.
function nextPollAt(): number {
	const now = new Date();
	let wait = ((pollSecond - now.getSeconds() + 60) % 60) * 1000 - now.getMilliseconds();
	if (wait < 1000) wait += 60_000;
	return Date.now() + wait;
}

// Until `extraMs` after the next scheduled poll.
async function pastNextPoll(extraMs = 12_000): Promise<void> {
	await sleep(nextPollAt() - Date.now() + extraMs);
}

// Every (job, watched status) of a run profile, as the service has them now.
function expectedEvents(profile: string): string[] {
	const finished = server().store.all().filter((job) => job.runProfileName === profile && WATCHED.includes(statusOf(job)));
	return finished.map((job) => `${job.id} ${statusOf(job)}`).sort();
}
const receivedEvents = (path: string) => sink.on(path).map((event) => `${event.body.id} ${event.body.executionStatus}`).sort();
async function startMain(env: Record<string, string>): Promise<void> {
	await cluster.startMain(env);
	await webhooksRegistered(cluster, [SUBMIT_WEBHOOK_ID, DURABLE_WORKFLOW_ID]);
}
const allFinished = (profile: string) => server().store.all().filter((job) => job.runProfileName === profile).every((job) => WATCHED.includes(statusOf(job)));

// A runner stopped from outside (SIGTERM) skips afterAll: stop the cluster anyway, so nothing is left running.
const onTerm = () => void (cluster?.close() ?? Promise.resolve()).finally(() => {
	if (root) rmSync(root, { recursive: true, force: true });
	process.exit(143);
});

beforeAll(async () => {
	process.once('SIGTERM', onTerm);
	root = mkdtempSync(join(tmpdir(), 'job-execution-queue-'));
	sink = await startSink();
	cluster = await openQueueCluster({ hostVersion: DEFAULT_HOST_VERSION, root, log, workers: 2, concurrency: 10, server: { catalog: queueCatalog(), concurrency: 50 } });
	pollSecond = (new Date().getSeconds() + 45) % 60;
	const cron = `${pollSecond} * * * * *`;
	await importIntoN8n(
		cluster.session.n8n,
		[],
		[
			submitAndWaitWorkflow(),
			triggerWorkflow(TRIGGER_DEFAULT_ID, QUEUE_PROFILES.trigger, cron, `${sink.url}/trigger-default`),
			triggerWorkflow(TRIGGER_DURABLE_ID, QUEUE_PROFILES.durableTrigger, cron, `${sink.url}/trigger-durable`),
			durableWorkflow(`${sink.url}/durable-done`),
		],
	);
	for (const id of [SUBMIT_WEBHOOK_ID, TRIGGER_DEFAULT_ID, TRIGGER_DURABLE_ID, DURABLE_WORKFLOW_ID]) await activateWorkflow(cluster.session.n8n, id);
	for (let i = 0; i < cluster.workers.length; i++) await cluster.startWorker(i);
	await startMain({});
	log(`main ${mainUrl()}, workers ready; triggers poll at second ${pollSecond}`);
}, 20 * 60_000);

afterAll(async () => {
	process.off('SIGTERM', onTerm);
	log(`measured: ${JSON.stringify(measured, null, 1)}`);
	await cluster?.close();
	await sink?.close();
	if (root) rmSync(root, { recursive: true, force: true });
});

test('executions spread over both workers, each submitting exactly one job', async () => {
	const count = 40;
	const callers = Array.from({ length: count }, (_, i) => `spread-${i}`);
	const answers = await inParallel(count, 10, (i) => callWebhook(mainUrl(), SUBMIT_PATH, { tag: callers[i], flow: QUEUE_FLOWS.quick, profile: QUEUE_PROFILES.spread }));
	expect(answers.filter((answer) => answer.status !== 200 || answer.body.executionStatus !== 'COMPLETED')).toEqual([]);

	const executions = callers.map((caller, i) => {
		const jobs = jobsOf(caller);
		// The list endpoint stops at 100: the job is found by the parameter its execution sent, in the server's store.
		expect([caller, jobs.length, jobs[0]?.id]).toEqual([caller, 1, answers[i].body.id]);
		return parameterOf(jobs[0], 'execution') as string;
	});
	expect(new Set(executions).size).toBe(count);
	const perWorker = cluster.workers.map((worker) => worker.started.filter((id) => executions.includes(id)).length);
	measured.spread = { executions: count, perWorker };
	log(`${count} executions: ${perWorker.join(' / ')} per worker`);
	expect(perWorker.reduce((a, b) => a + b, 0)).toBe(count);
	for (const share of perWorker) expect(share).toBeGreaterThan(0);
});

test('waiting: the durable loop holds no worker slot, Wait for Completion holds one; a worker killed mid-execution', async () => {
	const durableCallers = ['durable-1', 'durable-2', 'durable-3'];
	for (const caller of durableCallers) expect((await callWebhook(mainUrl(), DURABLE_PATH, { tag: caller })).status).toBe(200);
	await until('the durable executions to wait in the database', () => executionStatuses(DURABLE_WORKFLOW_ID).filter(([, status]) => status === 'waiting').length === 3, 60_000);
	const slotsWhileDurable = await cluster.activeJobs();

	const inNodeCallers = ['in-node-1', 'in-node-2', 'in-node-3', 'in-node-4'];
	const pending = inNodeCallers.map((caller) => callWebhook(mainUrl(), SUBMIT_PATH, { tag: caller, flow: QUEUE_FLOWS.medium, profile: QUEUE_PROFILES.trigger }, 240_000));
	await until('the in-node jobs to be submitted', () => inNodeCallers.every((caller) => jobsOf(caller).length === 1), 60_000);
	const slotsWhileInNode = await cluster.activeJobs();
	measured.workerSlots = { durableLoop3Waiting: slotsWhileDurable, waitForCompletion4Waiting: slotsWhileInNode };
	log(`worker slots held: 3 durable waits ${slotsWhileDurable}, 4 in-node waits ${slotsWhileInNode}`);
	expect(slotsWhileDurable).toBe(0);
	expect(slotsWhileInNode).toBe(4);

	// Kill the worker running in-node-1 (SIGKILL: a crash), mid-wait, then start it again.
	const executionOf = (caller: string) => parameterOf(jobsOf(caller)[0], 'execution') as string;
	const victim = cluster.workers.findIndex((worker) => worker.started.includes(executionOf('in-node-1')));
	expect(victim).toBeGreaterThanOrEqual(0);
	const killed = inNodeCallers.filter((caller) => cluster.workers[victim].started.includes(executionOf(caller)));
	await cluster.killWorker(victim);
	const killedAt = Date.now();
	log(`killed ${cluster.workers[victim].name} running ${killed.join(', ')}`);
	await cluster.startWorker(victim);

	const answers = await Promise.all(pending);
	const byCaller = Object.fromEntries(inNodeCallers.map((caller, i) => [caller, answers[i]])) as Record<string, WebhookAnswer>;
	for (const caller of inNodeCallers.filter((name) => !killed.includes(name))) expect([caller, byCaller[caller].status, byCaller[caller].body.executionStatus]).toEqual([caller, 200, 'COMPLETED']);
	// Each job was submitted once, killed or not: nothing resubmits a job when its execution dies.
	for (const caller of inNodeCallers) expect([caller, jobsOf(caller).length]).toEqual([caller, 1]);
	await until('the killed jobs to finish in the service', () => killed.every((caller) => statusOf(jobsOf(caller)[0]) === 'COMPLETED'), 120_000);
	const killedExecutions = killed.map(executionOf);
	const dbStatus = () => cluster.sql(`select id, status from execution_entity where id in (${killedExecutions.join(',')})`);
	measured.killedWorker = {
		killed: killed.length,
		webhookAnswers: killed.map((caller) => ({ status: byCaller[caller].status, afterKillMs: byCaller[caller].at - killedAt, body: byCaller[caller].body, error: byCaller[caller].error })),
		executionStatusInDb: dbStatus(),
		jobOutcomeInService: killed.map((caller) => statusOf(jobsOf(caller)[0])),
	};
	log(`killed executions: ${JSON.stringify(measured.killedWorker)}`);
	// As the README states: not retried, ends as crashed or error, the waiting webhook caller gets a 500.
	for (const [, status] of dbStatus()) expect(['crashed', 'error']).toContain(status);
	for (const caller of killed) expect(byCaller[caller].status).toBe(500);
});

async function restartMainBetweenPolls(env: Record<string, string>, whileDown: () => Promise<void>): Promise<void> {
	await pastNextPoll();
	await cluster.main?.stop();
	await whileDown();
	await startMain(env);
	mainRestarts.push(Date.now());
}

async function triggerScenario(path: string, profile: string, env: Record<string, string>): Promise<void> {
	// Jobs finishing while main polls: through webhooks (run on the workers) and straight to the service.
	const viaWebhook = ['quick', 'failing'].map((kind, i) =>
		callWebhook(mainUrl(), SUBMIT_PATH, { tag: `${profile}-${kind}-${i}`, flow: kind === 'quick' ? QUEUE_FLOWS.quick : QUEUE_FLOWS.failing, profile }),
	);
	await submitDirect(QUEUE_FLOWS.quick, profile);
	await submitDirect(QUEUE_FLOWS.failing, profile);
	await Promise.all(viaWebhook);
	await until(`the ${profile} jobs to finish`, () => allFinished(profile), 120_000);
	await until(`the first ${profile} events`, () => receivedEvents(path).length >= expectedEvents(profile).length, 150_000);

	// Main stopped between two polls; jobs finish while it is down; the first poll after the restart reports them.
	await restartMainBetweenPolls(env, async () => {
		await submitDirect(QUEUE_FLOWS.quick, profile);
		await submitDirect(QUEUE_FLOWS.failing, profile);
		await until(`the ${profile} jobs to finish while main is down`, () => allFinished(profile), 30_000);
	});
	await until(`the ${profile} events of jobs that ended while main was down`, () => receivedEvents(path).length >= expectedEvents(profile).length, 150_000);
	// One more scheduled poll must add nothing.
	await pastNextPoll();
	log(`${path}: ${receivedEvents(path).length} events for ${expectedEvents(profile).length} (job, status) changes`);
	expect(receivedEvents(path)).toEqual(expectedEvents(profile));
}

test('the trigger reports each (job, watched status) exactly once with the default scheduler, across a main restart', async () => {
	// The in-node jobs of the previous test (one of them killed mid-execution) are of this profile too.
	await triggerScenario('/trigger-default', QUEUE_PROFILES.trigger, {});
	measured.triggerDefault = { events: receivedEvents('/trigger-default').length };
});

test('the same with the durable scheduler and cursors, across a main restart', async () => {
	// Switch main to the durable scheduler (right after a poll: the previous test ended so). The trigger's baseline
	// is set once a poll under it has saved its cursor, at activation or at the next scheduled poll at the latest.
	await cluster.main?.stop();
	const switched = new Date();
	await startMain(DURABLE_SCHEDULER);
	mainRestarts.push(Date.now());
	const latest = nextPollAt() + 8000;
	const cursorSaved = () => cluster.sql(`select count(*) from poller_state where "workflowId" = '${TRIGGER_DURABLE_ID}' and "updatedAt" > '${switched.toISOString()}'`)[0][0] === '1';
	await until('a poll under the durable scheduler', () => cursorSaved() || Date.now() > latest, 90_000);
	await triggerScenario('/trigger-durable', QUEUE_PROFILES.durableTrigger, DURABLE_SCHEDULER);
	const cursors = cluster.sql(`select count(*) from poller_state`);
	measured.triggerDurable = { events: receivedEvents('/trigger-durable').length, pollerStateRows: cursors };
	expect(Number(cursors[0][0])).toBeGreaterThan(0);
	// The default-scheduler trigger was carried over the switch: nothing of its jobs is reported again.
	expect(receivedEvents('/trigger-default')).toEqual(expectedEvents(QUEUE_PROFILES.trigger));
});

test('the durable loop fires exactly once per execution, across the worker kill and the main restarts it waited through', async () => {
	const callers = ['durable-1', 'durable-2', 'durable-3'];
	await until('the durable executions to finish', () => sink.on('/durable-done').length >= callers.length, 8 * 60_000);
	await sleep(3000);
	const done = sink.on('/durable-done');
	// They waited in the database through the worker kill and at least the first main restart.
	expect(mainRestarts.length).toBeGreaterThanOrEqual(3);
	for (const event of done) expect(event.at).toBeGreaterThan(mainRestarts[0]);
	const jobs = callers.map((caller) => jobsOf(caller));
	measured.durable = { reports: done.length, executions: executionStatuses(DURABLE_WORKFLOW_ID) };
	expect(jobs.map((list) => list.length)).toEqual([1, 1, 1]);
	expect(done.map((event) => event.body.id).sort()).toEqual(jobs.map((list) => list[0].id).sort());
	expect(done.map((event) => event.body.executionStatus)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
	await until('the durable executions to end as successes', () => executionStatuses(DURABLE_WORKFLOW_ID).every(([, status]) => status === 'success'), 30_000);
	expect(executionStatuses(DURABLE_WORKFLOW_ID)).toHaveLength(3);
});
