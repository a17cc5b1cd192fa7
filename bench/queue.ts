/**
 * `npm run bench:queue`: n8n's queue mode (n8n 2.41.1, Redis, PostgreSQL, main + workers on this machine).
 * 1. Executions per second of Webhook → Submit with Wait for Completion through 1 worker, then 2, with every
 *    request to the reference server delayed 20 ms (its latency fault), as a ratio within one run.
 * 2. Worker slots (active Bull jobs) held by jobs that are waiting, in each waiting style.
 * Prints a markdown section for BENCHMARKS.md. Not part of `npm run bench`: it needs the n8n host, Redis and
 * PostgreSQL (installed on first use) and takes a few minutes.
 */
import { mkdtempSync, rmSync } from 'fs';
import { cpus, loadavg, tmpdir } from 'os';
import { join } from 'path';

import { DEFAULT_HOST_VERSION } from '../host/hosts';
import { openQueueCluster } from '../host/queue';
import type { QueueCluster } from '../host/queue';
import { activateWorkflow, importIntoN8n } from '../host/workspace';
import { callWebhook, inParallel, until, webhooksRegistered } from '../test/queue/helpers';
import { DURABLE_PATH, DURABLE_WORKFLOW_ID, durableWorkflow, QUEUE_FLOWS, QUEUE_PROFILES, queueCatalog, SUBMIT_PATH, SUBMIT_WEBHOOK_ID, submitAndWaitWorkflow } from '../test/queue/workflows';

const log = (line: string) => process.stderr.write(`${line}\n`);
const EXECUTIONS = 120;
const PARALLEL = 20;
const CONCURRENCY = 10;
const LATENCY_MS = 20;
const WAITING_JOBS = 10;

interface Throughput {
	workers: number;
	perSecond: number;
	failed: number;
}

async function throughput(cluster: QueueCluster, workers: number, tag: string): Promise<Throughput> {
	const call = (i: number) => callWebhook(cluster.main?.url ?? '', SUBMIT_PATH, { tag: `${tag}-${i}`, flow: QUEUE_FLOWS.quick, profile: QUEUE_PROFILES.spread });
	await inParallel(PARALLEL, PARALLEL, (i) => call(-1 - i)); // warm-up: code paths, connections
	const started = Date.now();
	const answers = await inParallel(EXECUTIONS, PARALLEL, call);
	const seconds = (Date.now() - started) / 1000;
	const failed = answers.filter((answer) => answer.status !== 200 || answer.body.executionStatus !== 'COMPLETED').length;
	log(`  ${workers} worker(s): ${EXECUTIONS} executions in ${seconds.toFixed(1)} s, ${failed} failed`);
	return { workers, perSecond: EXECUTIONS / seconds, failed };
}

async function slotsHeld(cluster: QueueCluster): Promise<{ durable: number; inNode: number }> {
	for (let i = 0; i < WAITING_JOBS; i++) await callWebhook(cluster.main?.url ?? '', DURABLE_PATH, { tag: `bench-durable-${i}` });
	const waiting = () => cluster.sql(`select count(*) from execution_entity where "workflowId" = '${DURABLE_WORKFLOW_ID}' and status = 'waiting'`)[0][0];
	await until('the durable executions to wait', () => Number(waiting()) === WAITING_JOBS, 60_000);
	const durable = await cluster.activeJobs();
	const pending = Array.from({ length: WAITING_JOBS }, (_, i) =>
		callWebhook(cluster.main?.url ?? '', SUBMIT_PATH, { tag: `bench-in-node-${i}`, flow: QUEUE_FLOWS.medium, profile: QUEUE_PROFILES.spread }, 240_000),
	);
	const submitted = () => cluster.session.server.store.all().filter((job) => job.flowFileName === QUEUE_FLOWS.medium).length;
	await until('the in-node jobs to be submitted', () => submitted() === WAITING_JOBS, 60_000);
	const inNode = await cluster.activeJobs();
	await Promise.all(pending);
	return { durable: durable / WAITING_JOBS, inNode: inNode / WAITING_JOBS };
}

async function main(): Promise<void> {
	const root = mkdtempSync(join(tmpdir(), 'job-execution-bench-queue-'));
	let cluster: QueueCluster | undefined;
	const stop = async () => {
		await cluster?.close();
		rmSync(root, { recursive: true, force: true });
	};
	for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop().then(() => process.exit(130)));
	const load = () => loadavg().map((value) => value.toFixed(1)).join(' / ');
	const loadAtStart = load();
	try {
		cluster = await openQueueCluster({
			hostVersion: DEFAULT_HOST_VERSION,
			root,
			log,
			workers: 2,
			concurrency: CONCURRENCY,
			workerLogLevel: 'warn',
			server: { catalog: queueCatalog(), concurrency: 100, faults: [{ kind: 'latency', ms: LATENCY_MS, times: Number.MAX_SAFE_INTEGER }] },
		});
		await importIntoN8n(cluster.session.n8n, [], [submitAndWaitWorkflow(), durableWorkflow('http://127.0.0.1:9/unused')]);
		for (const id of [SUBMIT_WEBHOOK_ID, DURABLE_WORKFLOW_ID]) await activateWorkflow(cluster.session.n8n, id);
		await cluster.startWorker(0);
		await cluster.startMain();
		await webhooksRegistered(cluster, [SUBMIT_WEBHOOK_ID, DURABLE_WORKFLOW_ID]);
		log(`throughput of Submit + Wait (poll interval 1 s; jobs of 200 ms; service ${LATENCY_MS} ms away)`);
		const one = await throughput(cluster, 1, 'one');
		await cluster.startWorker(1);
		const two = await throughput(cluster, 2, 'two');
		log('worker slots held while jobs wait');
		const slots = await slotsHeld(cluster);
		const lines = [
			`Measured by \`npm run bench:queue\` on ${cpus().length} cores: n8n ${DEFAULT_HOST_VERSION} in queue mode (Redis, PostgreSQL, main and`,
			`workers on this machine, \`--concurrency=${CONCURRENCY}\` each), ${EXECUTIONS} webhook executions, ${PARALLEL} at a time, of Webhook → Submit`,
			`with Wait for Completion (poll interval 1 s) of a 200 ms job; every request to the reference server delayed ${LATENCY_MS} ms.`,
			`Load average (1/5/15 min) ${loadAtStart} at the start, ${load()} at the end (the machine is shared: compare the ratio).`,
			'',
			'| Workers | Executions/s | Failed | Ratio to 1 worker |',
			'|---|---|---|---|',
			...[one, two].map((row) => `| ${row.workers} | ${row.perSecond.toFixed(2)} | ${row.failed} | ${(row.perSecond / one.perSecond).toFixed(2)} |`),
			'',
			`| Waiting style (${WAITING_JOBS} jobs waiting) | Worker slots held per waiting job |`,
			'|---|---|',
			`| Wait for Completion inside the node | ${slots.inNode.toFixed(2)} |`,
			`| Durable loop (\`examples/submit-and-wait-durably.json\`: Wait ≥ 65 s, offloaded to the database) | ${slots.durable.toFixed(2)} |`,
			'| Trigger (another workflow reacts when the job ends) | 0 (nothing waits: the poll runs on main once a minute) |',
		];
		process.stdout.write(`${lines.join('\n')}\n`);
	} finally {
		await stop();
	}
}

main().catch((err: unknown) => {
	log(`error: ${(err as Error).stack ?? String(err)}`);
	process.exit(1);
});
