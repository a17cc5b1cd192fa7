/**
 * Figure 8: the reference server's submissions per second with 1,000, 10,000 and 100,000 jobs queued (the cost of a
 * submission must not grow with the backlog), and how long it takes to start on a data file of 100,000 jobs.
 * The server runs in its own process with one slot busy for hours, so every submission joins the queue.
 */
import type { ChildProcess } from 'child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { Agent, request } from 'http';
import { tmpdir } from 'os';
import { join } from 'path';

import { CatalogIndex, JOURNAL_HEADER, ManualClock, MemoryJobStore } from '../../server';
import type { Catalog } from '../../server';
import type { Figure } from '../lib/figure';
import { verdict } from '../lib/figure';
import { killServer, spawnServer } from '../lib/serverProcess';

const LEVELS = [1_000, 10_000, 100_000];
// Submissions measured at each level, in rounds (the best round counts: the machine's other load only slows).
const ROUND = 1_000;
const ROUNDS = 5;
const MEASURED = ROUND * ROUNDS;
const RATIO_GOAL = 1.25;
const LOAD_JOBS = 100_000;
const LOAD_GOAL_MS = 3_000;
const FLOW = '/Shared/Flows/hours.flow';
// Warm-up jobs: done 1 ms after they start, so they are gone from the queue before the levels are measured.
const INSTANT = '/Shared/Flows/instant.flow';
const WARM_UP = 3_000;
// And refused ones (a run profile the flow does not have): the HTTP and validation path, without queueing.
const WARM_UP_REFUSED = 30_000;
const CATALOG: Catalog = {
	flows: [
		{ flowFileName: FLOW, steps: 100, stepMs: 3_600_000, outcome: 'COMPLETED', runProfiles: ['default'] },
		{ flowFileName: INSTANT, steps: 1, stepMs: 1, outcome: 'COMPLETED' },
	],
};
const BODY = JSON.stringify({ flowFileName: FLOW, runProfileName: 'default', parameters: [{ name: 'region', type: 'string', value: 'EMEA' }] });

interface Started {
	url: string;
	child: ChildProcess;
	startMs: number;
}

async function startServer(directory: string, extra: string[]): Promise<Started> {
	const catalogFile = join(directory, 'catalog.json');
	writeFileSync(catalogFile, JSON.stringify(CATALOG));
	const started = process.hrtime.bigint();
	const { url, child } = await spawnServer(['--port', '0', '--catalog', catalogFile, '--concurrency', '1', '--max-queued', '200000', '--max-jobs', '200000', ...extra]);
	return { url, child, startMs: Number(process.hrtime.bigint() - started) / 1e6 };
}


const agent = new Agent({ keepAlive: true, maxSockets: 50 });

function post(url: URL, body = BODY): Promise<number> {
	return new Promise((resolve) => {
		const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
			res.resume();
			res.on('end', () => resolve(res.statusCode ?? 0));
		});
		req.on('error', () => resolve(0));
		req.end(body);
	});
}

// `amount` submissions over 50 kept-alive connections (autocannon's `amount` mode times in whole ticks).
async function submit(url: string, amount: number, body = BODY): Promise<{ perSecond: number; failures: number }> {
	const target = new URL(`${url}/api/v1/jobs`);
	let left = amount;
	let failures = 0;
	const started = process.hrtime.bigint();
	await Promise.all(
		Array.from({ length: Math.min(50, amount) }, async () => {
			while (left > 0) {
				left--;
				const status = await post(target, body);
				if (status !== 200 && status !== 202) failures++;
			}
		}),
	);
	return { perSecond: amount / (Number(process.hrtime.bigint() - started) / 1e9), failures };
}

// Warm-up (the JIT of both processes; V8 needs tens of thousands of requests before the server's path is at full
// speed, so without it the level filled last would win): refused submissions, jobs that end at once, then wait until none is left; then the job that
// holds the only slot, and the queue filled to `level`.
async function prepare(url: string, level: number): Promise<number> {
	await submit(url, WARM_UP_REFUSED, JSON.stringify({ flowFileName: FLOW, runProfileName: 'other' }));
	let failures = (await submit(url, WARM_UP, JSON.stringify({ flowFileName: INSTANT, runProfileName: 'default' }))).failures;
	for (let i = 0; i < 100; i++) {
		const active = (await (await fetch(`${url}/api/v1/jobs?filter=active`)).json()) as unknown[];
		if (active.length === 0) break;
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
	failures += (await submit(url, 1)).failures;
	return failures + (await submit(url, level)).failures;
}

// One server per level, measured in alternating rounds whose order rotates (the machine's load then weighs on
// every level alike); the best round of each level counts.
async function submissionsAtLevels(directory: string) {
	const servers: Started[] = [];
	let failures = 0;
	try {
		for (const level of LEVELS) {
			const server = await startServer(directory, []);
			servers.push(server);
			failures += await prepare(server.url, level);
		}
		const best = LEVELS.map(() => 0);
		for (let round = 0; round < ROUNDS; round++) {
			for (let k = 0; k < LEVELS.length; k++) {
				const i = (k + round) % LEVELS.length;
				const measured = await submit(servers[i].url, ROUND);
				best[i] = Math.max(best[i], measured.perSecond);
				failures += measured.failures;
			}
		}
		return { rates: best, failures };
	} finally {
		for (const server of servers) await killServer(server.child);
	}
}

// A data file as the server writes it: half finished, one running, the rest queued.
function writeDataFile(file: string, jobs: number): void {
	const now = Date.now();
	const records: string[] = [];
	for (let seq = 1; seq <= jobs; seq++) {
		const finished = seq <= jobs / 2;
		records.push(JSON.stringify({
			id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`, seq, submittedAt: now - 1000,
			flowFileName: FLOW, flowId: '6c1f8e0a-0b8e-4b8e-9c1e-3d2f1a0b9c8d', flowName: 'hours', runProfileName: 'default', notificationEnabled: false,
			parameters: [{ name: 'region', type: 'string', value: 'EMEA' }], steps: finished ? 1 : 100, stepMs: finished ? 1 : 3_600_000, outcome: 'COMPLETED',
			startTime: finished || seq === jobs / 2 + 1 ? now - 1000 : null,
		}));
	}
	writeFileSync(file, `${JOURNAL_HEADER}\n${records.map((record) => `{"job":${record}}\n`).join('')}`);
}

async function startupLoad(directory: string) {
	const dataFile = join(directory, 'jobs.json');
	const empty = await startServer(directory, ['--data', join(directory, 'empty.json')]);
	await killServer(empty.child);
	writeDataFile(dataFile, LOAD_JOBS);
	const loaded = await startServer(directory, ['--data', dataFile]);
	try {
		const list = await fetch(`${loaded.url}/api/v1/jobs?filter=active`);
		const active = ((await list.json()) as unknown[]).length;
		return { emptyMs: empty.startMs, loadedMs: loaded.startMs, active };
	} finally {
		await killServer(loaded.child);
	}
}

// The store alone (no HTTP): microseconds per submission with `level` jobs queued, median of 5 batches of 2,000.
function storeMicroseconds(): number[] {
	const flow = new CatalogIndex(CATALOG, false).byFileName(FLOW);
	if (!flow) throw new Error('no flow');
	const input = { flow, runProfileName: 'default', notificationEnabled: false, parameters: [] };
	// A first pass warms the JIT, so the first level is not measured cold.
	return [LEVELS[0], ...LEVELS].map((level) => {
		const store: MemoryJobStore = new MemoryJobStore({ clock: new ManualClock(), concurrency: 1, maxQueued: 1_000_000, maxJobs: 1_000_000 });
		for (let i = 0; i <= level; i++) store.submit(input);
		const batches: number[] = [];
		for (let b = 0; b < 5; b++) {
			const started = process.hrtime.bigint();
			for (let i = 0; i < 2_000; i++) store.submit(input);
			batches.push(Number(process.hrtime.bigint() - started) / 1e3 / 2_000);
		}
		return batches.sort((x, y) => x - y)[2];
	}).slice(1);
}

export async function measureQueuedSubmissions(): Promise<Figure[]> {
	const directory = mkdtempSync(join(tmpdir(), 'job-execution-bench-queue-'));
	try {
		const { rates, failures } = await submissionsAtLevels(directory);
		const ratio = Math.max(...rates) / Math.min(...rates);
		const load = await startupLoad(directory);
		const micro = storeMicroseconds();
		const level = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n));
		return [
			{
				id: '8a',
				name: `Reference server: submissions/s with ${LEVELS.map(level).join(' / ')} jobs queued (50 connections)`,
				measured: `${rates.map((r) => `${Math.round(r).toLocaleString('en')}/s`).join(' / ')}, ratio ${ratio.toFixed(2)}×`,
				goal: `flat within ${RATIO_GOAL}×`,
				verdict: verdict(ratio <= RATIO_GOAL && failures === 0),
				details: [
					`best of ${ROUNDS} rounds of ${ROUND.toLocaleString('en')} submissions at each level (50 kept-alive connections from the bench process), one server process per level, rounds alternating between them, one job running for hours so each submission queues (the queue grows by ${MEASURED.toLocaleString('en')} while a level is measured); ${failures} failures`,
					`the store alone (no HTTP): ${micro.map((us) => `${us.toFixed(1)} µs`).join(' / ')} per submission at ${LEVELS.map(level).join(' / ')} queued (median of 5 batches of 2,000)`,
				],
			},
			{
				id: '8b',
				name: `Reference server: start on a data file of ${LOAD_JOBS.toLocaleString('en')} jobs (half finished, half queued)`,
				measured: `${(load.loadedMs / 1000).toFixed(2)} s to listening (${(load.emptyMs / 1000).toFixed(2)} s with an empty file)`,
				goal: `load < ${LOAD_GOAL_MS / 1000} s`,
				verdict: verdict(load.loadedMs - load.emptyMs < LOAD_GOAL_MS && load.active === 100),
				details: [`spawn to the URL line on stdout; the goal is on the difference with an empty file (the load itself); ${load.active} jobs on the first active list after the load`],
			},
		];
	} finally {
		agent.destroy();
		rmSync(directory, { recursive: true, force: true });
	}
}
