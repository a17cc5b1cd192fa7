/**
 * Figure 10: the list reader's cost (issue 29 §4). One poll of the trigger whose history list holds 100 finished jobs
 * with 1 MiB logs (about 100 MiB on the wire, served as exact bytes from this process), run in a child process as
 * n8n main would run it: the poll's time, the child's resident memory growth over its loaded baseline, and the
 * longest event-loop block, in CPU time (waiting for a core on a loaded machine does not count) and in wall time.
 */
import { existsSync } from 'fs';
import { dirname, join } from 'path';

import { runHeapCapped } from '../../testkit/heapCapped';
import { startHostileServer } from '../../testkit/hostileServer';
import { listText, LOG_1_MIB } from '../../testkit/largeLists';
import type { Figure } from '../lib/figure';
import { verdict } from '../lib/figure';

const BLOCK_GOAL_MS = 100;
const GROWTH_GOAL_MIB = 600;

/** The repository (the child transpiles its TypeScript sources), wherever the compiled bench runs from. */
function repositoryRoot(): string {
	let dir = __dirname;
	while (!existsSync(join(dir, 'testkit', 'heapCappedChild.ts')) && dirname(dir) !== dir) dir = dirname(dir);
	return dir;
}

export async function measureListReader(): Promise<Figure[]> {
	const numbers = Array.from({ length: 100 }, (_, n) => n);
	const history = listText(numbers, LOG_1_MIB);
	const server = await startHostileServer((request) => ({ kind: 'raw', text: request.target.endsWith('filter=history') ? history : '[]' }));
	try {
		const outcome = await runHeapCapped(
			{
				target: 'trigger',
				parameters: { triggerOn: 'anyChange', startFrom: 'existing' },
				credentials: { jobExecutionApi: { baseUrl: server.url, authType: 'bearerToken', token: 'bench-token-4f1a' } },
				// Time is measured, not bounded: on a loaded machine the poll may need more than the call's 60 s.
				limits: { attemptMs: 280_000, callMs: 280_000 },
			},
			{ heapMiB: 1024, timeoutMs: 300_000, root: repositoryRoot() },
		);
		const growth = (outcome.peakRssMiB ?? 0) - (outcome.baseRssMiB ?? 0);
		const block = outcome.maxCpuBlockMs ?? Infinity;
		const ok = outcome.code === 0 && outcome.error === undefined && outcome.items === 100 && block <= BLOCK_GOAL_MS && growth <= GROWTH_GOAL_MIB;
		return [
			{
				id: '10',
				name: 'List reader: one trigger poll, history list of 100 jobs with 1 MiB logs',
				measured: `${outcome.elapsedMs} ms, +${growth} MiB resident, longest block ${block} ms CPU (${outcome.maxBlockMs} ms wall)`,
				goal: `every block ≤ ${BLOCK_GOAL_MS} ms; memory growth ≤ ${GROWTH_GOAL_MIB} MiB`,
				verdict: verdict(ok),
				details: [
					`${(Buffer.byteLength(history) / 2 ** 20).toFixed(1)} MiB list; ${outcome.items} events (Start From: existing), each log cut at 65,536 characters with its cutInList marker; ` +
						`child baseline ${outcome.baseRssMiB} MiB, peak ${outcome.peakRssMiB} MiB${outcome.error ? `; error: ${outcome.error}` : ''}`,
				],
			},
		];
	} finally {
		await server.close();
	}
}
