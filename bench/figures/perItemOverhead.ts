/**
 * Figure 1: Get on 1,000 items through the node in n8n's engine, against the same 1,000 GETs made one after
 * another by axios. Two more contenders split the gap: axios opening a new connection per request (what n8n's
 * request helper does: it builds a new agent for every request) and a plain n8n node (engine + helper, none
 * of our code). All read finished jobs (full JobStatus with its log) from the server in its own process.
 */
import { Agent } from 'http';

import type { AxiosInstance } from 'axios';

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
				measured: `${ours.toFixed(2)}× (${extraPerItem >= 0 ? '+' : '−'}${Math.abs(extraPerItem).toFixed(0)} µs per item)`,
				goal: `≤ ${GOAL.toFixed(2)}×`,
				verdict: verdict(ours <= GOAL),
			},
		];
	} finally {
		await server.stop();
	}
}
