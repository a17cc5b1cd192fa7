/**
 * Figure 6: the reference server's capacity, loaded by autocannon from this process while the server runs in
 * its own (each gets one of the 2 cores), and its memory after 100,000 jobs.
 */
import autocannon from 'autocannon';

import { CatalogIndex, ManualClock, MemoryJobStore } from '../../server';
import { NATIVE_TOKEN } from '../../testkit/fixtures';
import { BENCH_CATALOG, INSTANT_FLOW } from '../lib/catalog';
import type { Figure } from '../lib/figure';
import { verdict } from '../lib/figure';
import { rawClient, submitJobs } from '../lib/rawClient';
import { startServerProcess } from '../lib/serverProcess';
import { formatBytes } from '../lib/stats';

const GET_GOAL = 10_000;
const SECONDS = 5;
const JOBS = 100_000;
const MAX_JOBS = 10_000; // the server's default retention

interface Load {
	perSecond: number;
	p99: number;
	total: number;
	failures: number;
}

async function load(options: { url: string; connections: number; method?: 'GET' | 'POST'; body?: string }, seconds = SECONDS): Promise<Load> {
	const result = await autocannon({
		url: options.url,
		connections: options.connections,
		duration: seconds,
		method: options.method ?? 'GET',
		headers: { authorization: `Bearer ${NATIVE_TOKEN}`, 'content-type': 'application/json' },
		body: options.body,
	});
	return {
		perSecond: result.requests.total / result.duration,
		p99: result.latency.p99,
		total: result.requests.total,
		failures: result.errors + result.timeouts + result.non2xx,
	};
}

const rate = (l: Load) => `${Math.round(l.perSecond).toLocaleString("en")}/s (p99 ${l.p99 < 1 ? "< 1" : l.p99} ms)`;

async function httpCapacity() {
	const server = await startServerProcess({ catalog: BENCH_CATALOG, concurrency: 10_000, stepMs: 1 });
	try {
		const [jobId] = await submitJobs(rawClient(server.url), 1, INSTANT_FLOW);
		// A finished job: the full JobStatus with its log, as the nodes read it.
		const status = { url: `${server.url}/api/v1/jobs/${jobId}` };
		const submit = { url: `${server.url}/api/v1/jobs`, method: 'POST' as const, body: JSON.stringify({ flowFileName: INSTANT_FLOW, runProfileName: 'default' }) };
		await load({ ...status, connections: 10 }, 1); // warm-up
		const get2 = await load({ ...status, connections: 2 });
		const get50 = await load({ ...status, connections: 50 });
		const submit2 = await load({ ...submit, connections: 2 });
		const submit50 = await load({ ...submit, connections: 50 });
		return { get2, get50, submit2, submit50, residentBytes: server.residentBytes(), submitted: submit2.total + submit50.total + 1 };
	} finally {
		await server.stop();
	}
}

function heapUsedAfterGc(): number {
	const collect = (globalThis as { gc?: () => void }).gc;
	if (collect) {
		collect();
		collect();
	}
	return process.memoryUsage().heapUsed;
}

/** 100,000 jobs through the store, each read once finished (so its log is built and kept): the worst case for memory. */
function storeMemory() {
	const clock = new ManualClock();
	const store = new MemoryJobStore({ clock, concurrency: 4, maxJobs: MAX_JOBS });
	const flow = new CatalogIndex(BENCH_CATALOG, false).byFileName(INSTANT_FLOW);
	if (!flow) throw new Error('bench catalog has no instant flow');
	const before = heapUsedAfterGc();
	const heapAt: Record<number, number> = {};
	let previous: string | undefined;
	const start = process.hrtime.bigint();
	for (let n = 1; n <= JOBS; n++) {
		const { job } = store.submit({ flow, runProfileName: 'default', notificationEnabled: false, parameters: [{ name: 'region', type: 'string', value: 'EMEA' }] });
		clock.advance(10);
		if (previous) store.status(previous);
		previous = job.id;
		if (n === JOBS / 2 || n === JOBS) heapAt[n] = heapUsedAfterGc() - before;
	}
	const seconds = Number(process.hrtime.bigint() - start) / 1e9;
	return { kept: store.count(), half: heapAt[JOBS / 2], full: heapAt[JOBS], seconds, measuredAfterGc: typeof (globalThis as { gc?: unknown }).gc === 'function' };
}

export async function measureReferenceServer(): Promise<Figure[]> {
	const http = await httpCapacity();
	const memory = storeMemory();
	const bounded = memory.kept <= MAX_JOBS && memory.full <= memory.half * 1.1;
	return [
		{
			id: '6a',
			name: 'Reference server: GET job status (full JobStatus, 1.6 KB), 2 / 50 connections',
			measured: `${rate(http.get2)} / ${rate(http.get50)}`,
			goal: `≥ ${GET_GOAL.toLocaleString('en')}/s`,
			verdict: verdict(http.get2.perSecond >= GET_GOAL && http.get50.perSecond >= GET_GOAL && http.get2.failures + http.get50.failures === 0),
		},
		{
			id: '6b',
			name: 'Reference server: submit, 2 / 50 connections',
			measured: `${rate(http.submit2)} / ${rate(http.submit50)}`,
			goal: '(context)',
			verdict: http.submit2.failures + http.submit50.failures === 0 ? 'info' : 'miss',
			details: [`server process RSS after ${http.submitted.toLocaleString('en')} submissions over HTTP: ${formatBytes(http.residentBytes ?? NaN)}`],
		},
		{
			id: '6c',
			name: `Reference server: memory after ${JOBS.toLocaleString('en')} jobs (each read, log kept), retention ${MAX_JOBS.toLocaleString('en')}`,
			measured: `${memory.kept.toLocaleString('en')} kept, heap +${formatBytes(memory.full)} (+${formatBytes(memory.half)} at ${(JOBS / 2).toLocaleString('en')})`,
			goal: 'bounded: ≤ retention kept, no growth past it',
			verdict: verdict(bounded && memory.measuredAfterGc),
			details: [`${JOBS.toLocaleString('en')} submissions and reads through the store in ${memory.seconds.toFixed(1)} s${memory.measuredAfterGc ? '' : ' (no --expose-gc: heap figures include garbage)'}`],
		},
	];
}
