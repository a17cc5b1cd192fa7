/**
 * Figure A: what a user weighs. Get and Submit on 1,000 items through the Job Execution node against n8n's own
 * HTTP Request node (n8n-nodes-base 2.41.1) configured by hand for the same calls, native and relay: same engine,
 * same server (its own process), the same secrets in n8n's generic credential a user would pick without this
 * package (Bearer Auth; Custom Auth for the relay's two key headers). Both nodes run as a user leaves them: the
 * HTTP Request node sends all items at once, ours (version 2) side by side under its adaptive limit. On loopback
 * (rows A1, A2) and with the service 5 and 20 ms away (rows A3, A4: the server holds every answer that long).
 * The split: the bench process's CPU per item (what each node's request path costs) against the wall time
 * (which also holds how many requests are in flight), and the plain n8n node (engine + helper, none of our code)
 * against ours both one item at a time.
 */
import { runActionNode } from '../../testkit/engine';
import type { Interface } from '../../testkit/fixtures';
import { BENCH_CATALOG, INSTANT_FLOW } from '../lib/catalog';
import type { Figure } from '../lib/figure';
import { verdict } from '../lib/figure';
import { allCredentials, httpRequestNode, INSTANT_FLOW_ID } from '../lib/httpRequestNode';
import type { Operation } from '../lib/httpRequestNode';
import { loadN8nBaseNodes } from '../lib/n8nBaseNodes';
import { PLAIN_NODE_TYPE } from '../lib/plainRequestNode';
import { rawClient, submitJobs } from '../lib/rawClient';
import { startServerProcess } from '../lib/serverProcess';
import { interleavedRounds, median, medianRatio } from '../lib/stats';
import { runWorkflow } from '../lib/workflowRunner';

const ITEMS = 1000;
const ROUNDS = 5;
/** How far away the service is in rows A3 and A4 (ms per answer). */
const LATENCIES_MS = [5, 20];
const GOAL = 1.0;
/** Our code's share per item: the node's CPU over a plain n8n node's sending the same call (as figure 1c). */
const OUR_SHARE_GOAL = 1.15;

function ourParameters(kind: Interface, operation: Operation) {
	const authentication = kind === 'native' ? 'jobExecutionApi' : 'jobExecutionRelayApi';
	if (operation === 'get') return { authentication, resource: 'job', operation: 'get', jobId: '={{ $json.jobId }}' };
	const flow = kind === 'native' ? { flowFileName: INSTANT_FLOW } : { flowId: INSTANT_FLOW_ID };
	return { authentication, resource: 'job', operation: 'submit', ...flow, runProfileName: 'default' };
}

function itemsFor(operation: Operation, jobIds: string[]) {
	return operation === 'get' ? jobIds.map((jobId) => ({ jobId })) : jobIds.map(() => ({}));
}

/** Our node as a user leaves it (version 2's defaults), or one item at a time (`oneAtATime`, for the split). */
async function ourNode(url: string, kind: Interface, operation: Operation, jobIds: string[], oneAtATime = false): Promise<void> {
	const parameters = { ...ourParameters(kind, operation), ...(oneAtATime ? { batching: { concurrency: 1 } } : {}) };
	const result = await runActionNode({ typeVersion: 2, parameters, credentials: allCredentials(url), items: itemsFor(operation, jobIds) });
	if (result.error || result.items.length !== jobIds.length) throw new Error(`Job Execution ${operation} (${kind}) failed: ${result.error?.message ?? result.items.length}`);
}

async function theirNode(url: string, kind: Interface, operation: Operation, jobIds: string[]): Promise<void> {
	const node = httpRequestNode('HTTP Request', kind, url, operation);
	const result = await runWorkflow({ id: 'http-request', nodes: [node], connections: {} }, { credentials: allCredentials(url), start: node.name, items: itemsFor(operation, jobIds) });
	const output = result.runsOf(node.name)[0]?.data?.main?.[0] ?? [];
	const wrong = output.find((item) => typeof item.json.jobId !== 'string' && typeof item.json.id !== 'string');
	if (result.error || output.length !== jobIds.length || wrong) throw new Error(`HTTP Request ${operation} (${kind}) failed: ${result.error?.message ?? JSON.stringify(wrong?.json)}`);
}

async function plainNode(url: string, kind: Interface, operation: Operation, jobIds: string[]): Promise<void> {
	const relay = kind === 'relay';
	const body = JSON.stringify(relay ? { flowId: INSTANT_FLOW_ID, runProfileName: 'default' } : { flowFileName: INSTANT_FLOW, runProfileName: 'default' });
	const result = await runActionNode({
		nodeType: PLAIN_NODE_TYPE,
		parameters: operation === 'get' ? { method: 'GET', path: '=/api/v1/jobs/{{ $json.jobId }}', concurrency: 1, relay } : { method: 'POST', path: '/api/v1/jobs', body, concurrency: 1, relay },
		credentials: allCredentials(url),
		items: itemsFor(operation, jobIds),
	});
	if (result.error || result.items.length !== jobIds.length) throw new Error(`plain node ${operation} failed: ${result.error?.message}`);
}

const perItemUs = (times: number[]) => (median(times) / ITEMS) * 1000;
const us = (value: number) => `${value.toFixed(0)} µs`;
const signed = (value: number) => `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(0)} µs`;
const labelOf = (operation: Operation) => (operation === 'get' ? 'Get' : 'Submit');

type Times = Awaited<ReturnType<typeof interleavedRounds<'node' | 'httpRequest'>>>;

/** The row "ours at defaults / HTTP Request at defaults, time per item", with its wall and CPU details. */
function defaultsRow(id: string, what: string, t: Times): Figure {
	const ratio = medianRatio(t.node, t.httpRequest);
	return {
		id,
		name: `${what}: Job Execution node / n8n's HTTP Request node, both at their defaults, time per item`,
		measured: `${ratio.toFixed(2)}× (${us(perItemUs(t.node))} vs ${us(perItemUs(t.httpRequest))} per item); CPU ${medianRatio(t.cpu.node, t.cpu.httpRequest).toFixed(2)}×`,
		goal: `≤ ${GOAL.toFixed(1)}×`,
		verdict: verdict(ratio <= GOAL),
		details: [
			`wall per item: Job Execution ${us(perItemUs(t.node))}, HTTP Request ${us(perItemUs(t.httpRequest))}; per round ${t.node.map((v, i) => (v / t.httpRequest[i]).toFixed(2)).join(', ')}`,
			`CPU of the bench process per item: Job Execution ${us(perItemUs(t.cpu.node))}, HTTP Request ${us(perItemUs(t.cpu.httpRequest))}`,
		],
	};
}

/** Loopback: ours and HTTP Request at their defaults, and the split of the CPU with both nodes one item at a time. */
async function compareOnLoopback(url: string, kind: Interface, operation: Operation, jobIds: string[], loaded: string): Promise<Figure[]> {
	const contenders = {
		node: () => ourNode(url, kind, operation, jobIds),
		httpRequest: () => theirNode(url, kind, operation, jobIds),
		oneAtATime: () => ourNode(url, kind, operation, jobIds, true),
		plainNode: () => plainNode(url, kind, operation, jobIds),
	};
	await interleavedRounds(1, contenders); // warm-up
	const t = await interleavedRounds(ROUNDS, contenders);
	const id = `A${operation === 'get' ? 1 : 2}${kind === 'native' ? 'a' : 'c'}`;
	const row = defaultsRow(id, `${labelOf(operation)} on ${ITEMS.toLocaleString('en')} items (${kind}, loopback)`, t);
	if (operation === 'get' && kind === 'native') row.details?.unshift(`n8n's own nodes: ${loaded}`);
	const ours = perItemUs(t.cpu.oneAtATime) - perItemUs(t.cpu.plainNode);
	const helpers = perItemUs(t.cpu.plainNode) - perItemUs(t.cpu.httpRequest);
	// Our code's share: the node's CPU over the plain node's (same engine, helper, credential, call), per round.
	const oursRatio = medianRatio(t.cpu.oneAtATime, t.cpu.plainNode);
	return [
		row,
		{
			id: id.replace(/[ac]$/, (letter) => (letter === 'a' ? 'b' : 'd')),
			name: `… split of the CPU per item (${kind} ${labelOf(operation)}, one item at a time): our code (node / plain n8n node, and node − plain node) / n8n's helper for community nodes vs the HTTP Request node's (plain node − HTTP Request)`,
			measured: `${oursRatio.toFixed(2)}× (${signed(ours)}) / ${signed(helpers)}`,
			goal: `ours ≤ ${OUR_SHARE_GOAL.toFixed(2)}×`,
			verdict: verdict(oursRatio <= OUR_SHARE_GOAL),
			details: [
				`CPU per item, one at a time: Job Execution ${us(perItemUs(t.cpu.oneAtATime))}, plain n8n node ${us(perItemUs(t.cpu.plainNode))}; node / plain node per round ${t.cpu.oneAtATime.map((v, i) => (v / t.cpu.plainNode[i]).toFixed(2)).join(', ')}`,
			],
		},
	];
}

/** A service `latencyMs` away: ours and HTTP Request at their defaults only. */
async function compareAtLatency(url: string, kind: Interface, operation: Operation, jobIds: string[], latencyMs: number, id: string): Promise<Figure> {
	const contenders = { node: () => ourNode(url, kind, operation, jobIds), httpRequest: () => theirNode(url, kind, operation, jobIds) };
	await interleavedRounds(1, contenders); // warm-up
	const t = await interleavedRounds(ROUNDS, contenders);
	return defaultsRow(id, `${labelOf(operation)} on ${ITEMS.toLocaleString('en')} items (${kind}), service ${latencyMs} ms away`, t);
}

/** Rows A3 (Get) and A4 (Submit): a, b native and relay at the first latency; c, d at the second. */
async function measureAtLatencies(): Promise<Figure[]> {
	const figures: Figure[] = [];
	for (const [l, latencyMs] of LATENCIES_MS.entries()) {
		const server = await startServerProcess({ catalog: BENCH_CATALOG, concurrency: 10_000, stepMs: 1, latencyMs });
		try {
			const jobIds = await submitJobs(rawClient(server.url), ITEMS, INSTANT_FLOW, 50);
			for (const operation of ['get', 'submit'] as const) {
				for (const [k, kind] of (['native', 'relay'] as const).entries()) {
					const id = `A${operation === 'get' ? 3 : 4}${'abcd'[l * 2 + k]}`;
					figures.push(await compareAtLatency(server.url, kind, operation, jobIds, latencyMs, id));
				}
			}
		} finally {
			await server.stop();
		}
	}
	return figures.sort((a, b) => (a.id < b.id ? -1 : 1));
}

export async function measureVsHttpRequest(): Promise<Figure[]> {
	const loaded = await loadN8nBaseNodes();
	const server = await startServerProcess({ catalog: BENCH_CATALOG, concurrency: 10_000, stepMs: 1 });
	const figures: Figure[] = [];
	try {
		const jobIds = await submitJobs(rawClient(server.url), ITEMS, INSTANT_FLOW);
		for (const operation of ['get', 'submit'] as const) {
			for (const kind of ['native', 'relay'] as const) figures.push(...(await compareOnLoopback(server.url, kind, operation, jobIds, loaded)));
		}
	} finally {
		await server.stop();
	}
	return [...figures, ...(await measureAtLatencies())];
}
