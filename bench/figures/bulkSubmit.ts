/**
 * Figure 2: 1,000 items submitted. The node (Batching → Concurrency) against axios running the same number of
 * submissions at once, plus the same two splitting contenders as figure 1 (axios with a new connection per
 * request, a plain n8n node), and the same comparison with the service 20 ms away.
 */
import { Agent } from 'http';

import type { AxiosInstance } from 'axios';

import { runActionNode } from '../../testkit/engine';
import { credentialsFor } from '../../testkit/fixtures';
import { BENCH_CATALOG, INSTANT_FLOW } from '../lib/catalog';
import type { Figure } from '../lib/figure';
import { verdict } from '../lib/figure';
import { PLAIN_NODE_TYPE } from '../lib/plainRequestNode';
import { rawClient } from '../lib/rawClient';
import { startRecordingFront } from '../../testkit/recordingFront';
import { startServerProcess } from '../lib/serverProcess';
import { formatMs, interleavedRounds, median, medianRatio } from '../lib/stats';

const ITEMS = 1000;
const CONCURRENCY = 10;
const ROUNDS = 9;
const GOAL = 0.9;
const BODY = { flowFileName: INSTANT_FLOW, runProfileName: 'default' };
/** Figure 2d: a service 20 ms away, as across a network, where waiting and not CPU sets the pace. */
const LATENCY_MS = 20;
const LATENCY_ITEMS = 200;

async function nodeSubmits(url: string, concurrency: number, items = ITEMS): Promise<void> {
	const result = await runActionNode({
		parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'submit', ...BODY, batching: { concurrency } },
		credentials: credentialsFor(url),
		items: Array.from({ length: items }, () => ({})),
	});
	if (result.error || result.items.length !== items) throw new Error(`node Submit failed: ${result.error?.message}`);
}

async function plainNodeSubmits(url: string, concurrency: number): Promise<void> {
	const result = await runActionNode({
		nodeType: PLAIN_NODE_TYPE,
		parameters: { method: 'POST', path: '/api/v1/jobs', body: JSON.stringify(BODY), concurrency },
		credentials: credentialsFor(url),
		items: Array.from({ length: ITEMS }, () => ({})),
	});
	if (result.error || result.items.length !== ITEMS) throw new Error(`plain node Submit failed: ${result.error?.message}`);
}

async function rawSubmits(client: AxiosInstance, concurrency: number, freshConnections: boolean, items = ITEMS): Promise<void> {
	let next = 0;
	const worker = async () => {
		while (next++ < items) {
			const { data } = await client.post('/api/v1/jobs', BODY, freshConnections ? { httpAgent: new Agent() } : {});
			if (!(data as { jobId?: string }).jobId) throw new Error('raw Submit failed');
		}
	};
	await Promise.all(Array.from({ length: concurrency }, worker));
}

export async function measureBulkSubmit(): Promise<Figure[]> {
	const server = await startServerProcess({ catalog: BENCH_CATALOG, concurrency: 10_000, stepMs: 1 });
	try {
		const client = rawClient(server.url);
		const contenders = {
			node: () => nodeSubmits(server.url, CONCURRENCY),
			plainNode: () => plainNodeSubmits(server.url, CONCURRENCY),
			rawFresh: () => rawSubmits(client, CONCURRENCY, true),
			raw: () => rawSubmits(client, CONCURRENCY, false),
		};
		await interleavedRounds(3, contenders); // warm-up: the JIT takes a few thousand items
		const t = await interleavedRounds(ROUNDS, contenders);
		const serial = await interleavedRounds(3, { node: () => nodeSubmits(server.url, 1), raw: () => rawSubmits(client, 1, false) });
		const distant = await startRecordingFront(server.url, { latencyMs: LATENCY_MS });
		const distantClient = rawClient(distant.url);
		const far = await interleavedRounds(2, {
			serial: () => nodeSubmits(distant.url, 1, LATENCY_ITEMS),
			node: () => nodeSubmits(distant.url, CONCURRENCY, LATENCY_ITEMS),
			raw: () => rawSubmits(distantClient, CONCURRENCY, false, LATENCY_ITEMS),
		});
		await distant.close();
		const farRate = (times: number[]) => `${Math.round(LATENCY_ITEMS / (median(times) / 1000)).toLocaleString('en')}/s`;
		const cpuPerItem = (times: number[]) => `${((median(times) / ITEMS) * 1000).toFixed(0)} µs`;
		const throughput = (times: number[]) => `${Math.round(ITEMS / (median(times) / 1000)).toLocaleString('en')}/s`;
		const ratio = medianRatio(t.raw, t.node);
		const ours = medianRatio(t.plainNode, t.node);
		return [
			{
				id: '2',
				name: `Bulk submit: ${ITEMS.toLocaleString('en')} items at concurrency ${CONCURRENCY}, node throughput / raw axios (keep-alive)`,
				measured: `${ratio.toFixed(2)}× (${throughput(t.node)} vs ${throughput(t.raw)})`,
				goal: `≥ ${GOAL}×`,
				verdict: verdict(ratio >= GOAL),
				details: [
					`throughput: node ${throughput(t.node)}, plain n8n node ${throughput(t.plainNode)}, axios new connection each ${throughput(t.rawFresh)}, axios keep-alive ${throughput(t.raw)}`,
					`CPU of the bench process per item: node ${cpuPerItem(t.cpu.node)}, plain n8n node ${cpuPerItem(t.cpu.plainNode)}, axios new connection each ${cpuPerItem(t.cpu.rawFresh)}, axios keep-alive ${cpuPerItem(t.cpu.raw)}`,
					`one at a time (the default): node ${throughput(serial.node)} (${formatMs(median(serial.node))}), axios ${throughput(serial.raw)}; node / axios ${medianRatio(serial.raw, serial.node).toFixed(2)}×; concurrency ${CONCURRENCY} speeds the node up ${(median(serial.node) / median(t.node)).toFixed(1)}×`,
				],
			},
			{
				id: '2b',
				name: "… of which n8n's request helper opening a connection per request: axios new connection each / keep-alive",
				measured: `${medianRatio(t.raw, t.rawFresh).toFixed(2)}×`,
				goal: '(context)',
				verdict: 'info',
			},
			{
				id: '2c',
				name: "… our code's share: node throughput / a plain n8n node's at the same concurrency",
				measured: `${ours.toFixed(2)}×`,
				goal: `≥ ${GOAL}×`,
				verdict: verdict(ours >= GOAL),
			},
			{
				id: '2d',
				name: `… with the service ${LATENCY_MS} ms away (${LATENCY_ITEMS} items): node at concurrency ${CONCURRENCY} / raw axios at ${CONCURRENCY}`,
				measured: `${medianRatio(far.raw, far.node).toFixed(2)}× (${farRate(far.node)} vs ${farRate(far.raw)}; one at a time ${farRate(far.serial)})`,
				goal: '(context)',
				verdict: 'info',
			},
		];
	} finally {
		await server.stop();
	}
}
