/**
 * Figure 1: Get on 1,000 items through the node in n8n's engine, against the same 1,000 GETs made one after
 * another by axios. Two more contenders split the gap: axios opening a new connection per request (what n8n's
 * request helper does: it builds a new agent for every request) and a plain n8n node (engine + helper, none
 * of our code). All read finished jobs (full JobStatus with its log) from the server in its own process.
 */
import { Agent } from 'http';
import { performance } from 'perf_hooks';

import type { AxiosInstance } from 'axios';

import { secretForms } from '../../nodes/shared/redaction';
import { believe } from '../../nodes/shared/transport';
import { MAX_ANSWER_VALUES, MAX_JOB_ANSWER_BYTES } from '../../nodes/shared/transport/answer';
import { LIST_KEPT_WHOLE_BYTES } from '../../nodes/shared/transport/listReader';
import { runActionNode } from '../../testkit/engine';
import { credentialsFor } from '../../testkit/fixtures';
import { INSTANT_FLOW, BENCH_CATALOG } from '../lib/catalog';
import type { Figure } from '../lib/figure';
import { verdict } from '../lib/figure';
import { PLAIN_NODE_TYPE } from '../lib/plainRequestNode';
import { rawClient, submitJobs } from '../lib/rawClient';
import { startServerProcess } from '../lib/serverProcess';
import { formatMs, interleavedRounds, median, medianRatio } from '../lib/stats';

const ITEMS = 1000;
const ROUNDS = 9;
const GOAL = 1.15;

async function nodeGets(url: string, jobIds: string[]): Promise<void> {
	const result = await runActionNode({
		parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'get', jobId: '={{ $json.jobId }}' },
		credentials: credentialsFor(url),
		items: jobIds.map((jobId) => ({ jobId })),
	});
	if (result.error || result.items.length !== jobIds.length) {
		throw new Error(`node Get failed: ${result.error?.message ?? `${result.items.length} items`}`);
	}
}

async function plainNodeGets(url: string, jobIds: string[]): Promise<void> {
	const result = await runActionNode({
		nodeType: PLAIN_NODE_TYPE,
		parameters: { method: 'GET', path: '=/api/v1/jobs/{{ $json.jobId }}', concurrency: 1 },
		credentials: credentialsFor(url),
		items: jobIds.map((jobId) => ({ jobId })),
	});
	if (result.error || result.items.length !== jobIds.length) throw new Error(`plain node Get failed: ${result.error?.message}`);
}

async function rawGets(client: AxiosInstance, jobIds: string[], freshConnections: boolean): Promise<void> {
	for (const jobId of jobIds) {
		const { data } = await client.get(`/api/v1/jobs/${encodeURIComponent(jobId)}`, freshConnections ? { httpAgent: new Agent() } : {});
		if (typeof data !== 'object' || data === null) throw new Error('raw Get failed');
	}
}

export async function measurePerItemOverhead(): Promise<Figure[]> {
	// With --step-ms 1 every job ends within milliseconds: all contenders read the same finished jobs.
	const server = await startServerProcess({ catalog: BENCH_CATALOG, concurrency: 10_000, stepMs: 1 });
	try {
		const client = rawClient(server.url);
		const jobIds = await submitJobs(client, ITEMS, INSTANT_FLOW);
		const contenders = {
			node: () => nodeGets(server.url, jobIds),
			plainNode: () => plainNodeGets(server.url, jobIds),
			rawFresh: () => rawGets(client, jobIds, true),
			raw: () => rawGets(client, jobIds, false),
		};
		await interleavedRounds(2, contenders); // warm-up: JIT, sockets, the server's log cache
		const t = await interleavedRounds(ROUNDS, contenders);
		const ratio = medianRatio(t.node, t.raw);
		const perItem = (times: number[]) => `${((median(times) / ITEMS) * 1000).toFixed(0)} µs`;
		const extraPerItem = (median(t.node.map((v, i) => v - t.plainNode[i])) / ITEMS) * 1000;
		const ours = medianRatio(t.node, t.plainNode);
		const oursCpu = medianRatio(t.cpu.node, t.cpu.plainNode);
		return [
			{
				id: '1',
				name: `Per-item overhead: Get on ${ITEMS.toLocaleString('en')} items, node in n8n's engine / raw axios (sequential, keep-alive)`,
				measured: `${ratio.toFixed(2)}× (${formatMs(median(t.node))} vs ${formatMs(median(t.raw))})`,
				goal: `≤ ${GOAL.toFixed(2)}×`,
				verdict: verdict(ratio <= GOAL),
				details: [
					`wall per item: node ${perItem(t.node)}, plain n8n node ${perItem(t.plainNode)}, axios new connection each ${perItem(t.rawFresh)}, axios keep-alive ${perItem(t.raw)}`,
					`CPU of the bench process per item: node ${perItem(t.cpu.node)}, plain n8n node ${perItem(t.cpu.plainNode)}, axios new connection each ${perItem(t.cpu.rawFresh)}, axios keep-alive ${perItem(t.cpu.raw)}`,
					`node / raw per round: ${t.node.map((v, i) => (v / t.raw[i]).toFixed(2)).join(', ')}`,
				],
			},
			{
				id: '1b',
				name: "… of which n8n's request helper opening a connection per request: axios new connection each / keep-alive",
				measured: `${medianRatio(t.rawFresh, t.raw).toFixed(2)}×`,
				goal: '(context)',
				verdict: 'info',
			},
			{
				id: '1c',
				name: "… our code's share: the node / a plain n8n node (same engine, expression, helper, credential)",
				measured: `${ours.toFixed(2)}× (${extraPerItem >= 0 ? '+' : '−'}${Math.abs(extraPerItem).toFixed(0)} µs per item); CPU ${oursCpu.toFixed(2)}×`,
				goal: `≤ ${GOAL.toFixed(2)}×`,
				verdict: verdict(ours <= GOAL),
				details: [`node / plain n8n node per round: wall ${t.node.map((v, i) => (v / t.plainNode[i]).toFixed(2)).join(', ')}; CPU ${t.cpu.node.map((v, i) => (v / t.cpu.plainNode[i]).toFixed(2)).join(', ')}`],
			},
			...(await measureAnswerBounds()),
		];
	} finally {
		await server.stop();
	}
}

/** Wall time of one synchronous call (ms). */
function timed(fn: () => unknown): number {
	const start = performance.now();
	fn();
	return performance.now() - start;
}

/** The longest event-loop block while `work` runs (ms): the longest gap between two turns of a setImmediate ticker. */
async function longestBlock(work: () => Promise<unknown>): Promise<number> {
	let last = performance.now();
	let worst = 0;
	let running = true;
	const tick = () => {
		const now = performance.now();
		worst = Math.max(worst, now - last);
		last = now;
		if (running) setImmediate(tick);
	};
	setImmediate(tick);
	await new Promise((resolve) => setImmediate(resolve));
	last = performance.now();
	worst = 0;
	await work();
	running = false;
	await new Promise((resolve) => setImmediate(resolve));
	return Math.max(worst, performance.now() - last);
}

const HOSTILE_SECRETS = secretForms(['bench-token-7e1d9a', 'bench-relay-5a7c1e', 'bench-user-2b8d6f', 'bench-header-9f2e4c'], { user: 'alice', password: 'bench-pass-3c5b8f' });

/** What the one door does to a success answer after reading it: shape check, parse, redact and cut every string. */
async function believeAnswer(text: string, secrets: string[]): Promise<unknown> {
	const reading = await believe(text, 'application/json', 200, secrets);
	if (reading.failure) throw new Error('the bench answer is beyond the bounds');
	return reading.body;
}

/**
 * Figures 1d and 1e: the cost of the bounds and of redacting successful answers, per item (a finished job with a
 * 20 KB log, with the secret forms of five keys and without any), and the longest block of the event loop while a
 * capped answer is believed (the worst shapes the bounds let through).
 */
export async function measureAnswerBounds(): Promise<Figure[]> {
	const job = JSON.stringify({ id: 'j1', executionStatus: 'COMPLETED', flowName: 'sales', runProfileName: 'default', startTime: 1, endTime: 2, log: buildBenchLog(20_000) });
	const rounds = 2000;
	const run = async (secrets: string[]) => {
		const start = performance.now();
		for (let i = 0; i < rounds; i++) await believeAnswer(job, secrets);
		return ((performance.now() - start) / rounds) * 1000;
	};
	await run(HOSTILE_SECRETS);
	const pairs: Array<[number, number]> = [];
	for (let i = 0; i < 5; i++) pairs.push([await run(HOSTILE_SECRETS), await run([])]);
	const withSecrets = median(pairs.map(([a]) => a));
	const without = median(pairs.map(([, b]) => b));
	const parseOnly = median(Array.from({ length: 200 }, () => timed(() => JSON.parse(job)) * 1000));
	const MiB = 1024 * 1024;
	const shapes: Record<string, string> = {
		'8 MiB list of 100 jobs with 80 KiB logs': JSON.stringify(Array.from({ length: 100 }, (_, n) => ({ id: `j${n}`, log: 'x'.repeat(LIST_KEPT_WHOLE_BYTES / 100 - 200) }))),
		'100,000 empty objects (the value cap)': `[${'{},'.repeat(MAX_ANSWER_VALUES / 2 - 1)}{}]`,
		'4 MiB job, one string': JSON.stringify({ id: 'j', log: 'y'.repeat(MAX_JOB_ANSWER_BYTES - 100) }),
		'8 MiB of 2 Mi-character strings (cut)': JSON.stringify(Array.from({ length: 3 }, () => 'z'.repeat(2 * MiB + 100))),
		'8 MiB of blanks inside one job': `{"id":${' '.repeat(LIST_KEPT_WHOLE_BYTES - 100)}"j"}`,
	};
	const blocks: string[] = [];
	let worst = 0;
	for (const [name, text] of Object.entries(shapes)) {
		await believeAnswer(text, HOSTILE_SECRETS);
		// The fastest of 5: the least disturbed by other work on the machine.
		let block = Infinity;
		for (let i = 0; i < 5; i++) block = Math.min(block, await longestBlock(() => believeAnswer(text, HOSTILE_SECRETS)));
		worst = Math.max(worst, block);
		blocks.push(`${name}: longest block ${block.toFixed(0)} ms`);
	}
	return [
		{
			id: '1d',
			name: 'Bounds and redaction of a successful answer, per item (finished job, 20 KB log): with the secret forms of 5 keys / without',
			measured: `${(withSecrets / without).toFixed(2)}× (${withSecrets.toFixed(0)} µs vs ${without.toFixed(0)} µs; JSON.parse alone ${parseOnly.toFixed(0)} µs)`,
			goal: '(context)',
			verdict: 'info',
			details: pairs.map(([a, b]) => `round: ${a.toFixed(0)} µs with, ${b.toFixed(0)} µs without`),
		},
		{
			id: '1e',
			name: 'Longest event-loop block while a capped answer is checked, parsed, redacted and cut',
			measured: `${worst.toFixed(0)} ms`,
			goal: '< 100 ms',
			verdict: verdict(worst < 100),
			details: blocks,
		},
	];
}

function buildBenchLog(chars: number): string {
	const line = '2026-01-05 09:00:00.120 [worker-1] PERFORMANCE Node node_1 (Read orders): elapsed 0.248 seconds, rows 12000, 48387.10 rows/s\n';
	return line.repeat(Math.ceil(chars / line.length)).slice(0, chars);
}
