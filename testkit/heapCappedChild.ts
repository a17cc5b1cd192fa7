/** The child side of testkit/heapCapped.ts: one run of a node, then its figures on one `RESULT {json}` line. */
import { monitorEventLoopDelay } from 'node:perf_hooks';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { transportTiming } from '../nodes/shared/transport';
import { watchCpuBlocks } from './cpuBlocks';
import { runActionNode } from './engine';
import type { ChildRun } from './heapCapped';
import { searchList } from './listSearch';
import { createPoller } from './poller';

async function runTarget(run: ChildRun): Promise<{ items: IDataObject[]; error?: Error & { description?: string } }> {
	if (run.target === 'action') {
		const result = await runActionNode({ parameters: run.parameters, credentials: run.credentials, typeVersion: run.typeVersion });
		return { items: result.json, error: result.error };
	}
	try {
		if (run.target === 'trigger') {
			const emitted: INodeExecutionData[] | null = await createPoller(run.parameters, run.credentials).poll();
			return { items: (emitted ?? []).map((item) => item.json) };
		}
		const found = await searchList('searchJobs', run.parameters, run.credentials);
		return { items: found.results as unknown as IDataObject[] };
	} catch (error) {
		return { items: [], error: error as Error };
	}
}

function largestItemChars(items: IDataObject[]): number {
	let largest = 0;
	for (const item of items) {
		try {
			largest = Math.max(largest, JSON.stringify(item).length);
		} catch {
			return -1;
		}
	}
	return largest;
}

/** One Get against a closed port first: n8n-core loads and compiles its lazy parts then, not inside the figures. */
async function warmUp(): Promise<void> {
	const delays = transportTiming.retryDelaysMs;
	transportTiming.retryDelaysMs = [];
	await runActionNode({
		parameters: { resource: 'job', operation: 'get', jobId: 'warm-up' },
		credentials: { jobExecutionApi: { baseUrl: 'http://127.0.0.1:9', authType: 'bearerToken', token: 'warm-up-token' } },
	});
	transportTiming.retryDelaysMs = delays;
}

export async function main(argument: string): Promise<void> {
	const run = JSON.parse(argument) as ChildRun;
	if (run.retryDelaysMs) transportTiming.retryDelaysMs = run.retryDelaysMs;
	if (run.limits) Object.assign(transportTiming, run.limits);
	await warmUp();
	const baseRssMiB = Math.round(process.memoryUsage().rss / 2 ** 20);
	const delay = monitorEventLoopDelay({ resolution: 10 });
	delay.enable();
	const cpuBlocks = watchCpuBlocks();
	const started = Date.now();
	const cpuBefore = process.cpuUsage();
	const { items, error } = await runTarget(run);
	const cpu = process.cpuUsage(cpuBefore);
	const elapsedMs = Date.now() - started;
	delay.disable();
	const maxCpuBlockMs = Math.round(cpuBlocks.stop());
	const figures = {
		elapsedMs,
		baseRssMiB,
		maxCpuBlockMs,
		cpuMs: Math.round((cpu.user + cpu.system) / 1000),
		peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
		maxBlockMs: Math.round(delay.max / 1e6),
		error: error?.message,
		description: error?.description,
		items: items.length,
		largestItemChars: largestItemChars(items),
	};
	process.stdout.write(`RESULT ${JSON.stringify(figures)}\n`);
	process.exit(0);
}
