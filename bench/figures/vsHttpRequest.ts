/**
 * Figure A: what a user weighs. Get and Submit on 1,000 items through the Job Execution node against n8n's own
 * HTTP Request node (n8n-nodes-base 2.41.1) configured by hand for the same calls, native and relay: same engine,
 * same server (its own process), the same secrets in n8n's generic credential a user would pick without this
 * package (Bearer Auth; Custom Auth for the relay's two key headers). Both nodes run as a user leaves them: the
 * HTTP Request node sends all items at once, ours one at a time (Get) or at its Concurrency (Submit, default 1).
 * The split: the bench process's CPU per item (what each node's request path costs) against the wall time
 * (which also holds how many requests are in flight), and the plain n8n node (engine + helper, none of our code).
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

async function ourNode(url: string, kind: Interface, operation: Operation, jobIds: string[]): Promise<void> {
	const result = await runActionNode({ parameters: ourParameters(kind, operation), credentials: allCredentials(url), items: itemsFor(operation, jobIds) });
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

async function compare(url: string, kind: Interface, operation: Operation, jobIds: string[], loaded: string): Promise<Figure[]> {
	const contenders = {
		node: () => ourNode(url, kind, operation, jobIds),
		httpRequest: () => theirNode(url, kind, operation, jobIds),
		plainNode: () => plainNode(url, kind, operation, jobIds),
	};
	await interleavedRounds(1, contenders); // warm-up
	const t = await interleavedRounds(ROUNDS, contenders);
	const ratio = medianRatio(t.node, t.httpRequest);
	const cpuRatio = medianRatio(t.cpu.node, t.cpu.httpRequest);
	const us = (value: number) => `${value.toFixed(0)} µs`;
	const label = operation === 'get' ? 'Get' : 'Submit';
	const details = [
		...(operation === 'get' && kind === 'native' ? [`n8n's own nodes: ${loaded}`] : []),
		`wall per item: Job Execution ${us(perItemUs(t.node))}, HTTP Request ${us(perItemUs(t.httpRequest))}, plain n8n node ${us(perItemUs(t.plainNode))}; per round ${t.node.map((v, i) => (v / t.httpRequest[i]).toFixed(2)).join(', ')}`,
		`CPU of the bench process per item: Job Execution ${us(perItemUs(t.cpu.node))}, HTTP Request ${us(perItemUs(t.cpu.httpRequest))}, plain n8n node ${us(perItemUs(t.cpu.plainNode))}; ratio ${cpuRatio.toFixed(2)}×`,
	];
	const id = `A${operation === 'get' ? 1 : 2}${kind === 'native' ? 'a' : 'c'}`;
	const ours = perItemUs(t.cpu.node) - perItemUs(t.cpu.plainNode);
	const helpers = perItemUs(t.cpu.plainNode) - perItemUs(t.cpu.httpRequest);
	// Our code's share: the node's CPU over the plain node's (same engine, helper, credential, call), per round.
	const oursRatio = medianRatio(t.cpu.node, t.cpu.plainNode);
	const signed = (value: number) => `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(0)} µs`;
	return [
		{
			id,
			name: `${label} on ${ITEMS.toLocaleString('en')} items (${kind}): Job Execution node / n8n's HTTP Request node, time per item`,
			measured: `${ratio.toFixed(2)}× (${us(perItemUs(t.node))} vs ${us(perItemUs(t.httpRequest))} per item); CPU ${cpuRatio.toFixed(2)}×`,
			goal: `≤ ${GOAL.toFixed(1)}×`,
			verdict: verdict(ratio <= GOAL),
			details,
		},
		{
			id: id.replace(/[ac]$/, (letter) => (letter === 'a' ? 'b' : 'd')),
			name: `… split of the CPU per item (${kind} ${label}): our code (node / plain n8n node, and node − plain node) / n8n's helper for community nodes vs the HTTP Request node's (plain node − HTTP Request)`,
			measured: `${oursRatio.toFixed(2)}× (${signed(ours)}) / ${signed(helpers)}`,
			goal: `ours ≤ ${OUR_SHARE_GOAL.toFixed(2)}×`,
			verdict: verdict(oursRatio <= OUR_SHARE_GOAL),
			details: [`node / plain n8n node, CPU per round: ${t.cpu.node.map((v, i) => (v / t.cpu.plainNode[i]).toFixed(2)).join(', ')}`],
		},
	];
}

export async function measureVsHttpRequest(): Promise<Figure[]> {
	const loaded = await loadN8nBaseNodes();
	const server = await startServerProcess({ catalog: BENCH_CATALOG, concurrency: 10_000, stepMs: 1 });
	try {
		const jobIds = await submitJobs(rawClient(server.url), ITEMS, INSTANT_FLOW);
		const figures: Figure[] = [];
		for (const operation of ['get', 'submit'] as const) {
			for (const kind of ['native', 'relay'] as const) figures.push(...(await compare(server.url, kind, operation, jobIds, loaded)));
		}
		return figures;
	} finally {
		await server.stop();
	}
}
