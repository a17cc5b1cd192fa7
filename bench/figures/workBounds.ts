/**
 * Figure 12: work bounded per answer (issue 33). Each row of the table (testkit/workBounds.ts: escape-dense logs
 * filling a 4 MiB job, an 8 MiB list kept whole, a 12 MiB streamed list, a 250 MiB list), and the list reader's cost per
 * KiB for plain and escape-dense lists of 100 MiB, each run in a child process with the transport's own limits: the
 * longest event-loop block in CPU time, the CPU per KiB of the answer, and how often the answer was asked for (1
 * unless the node gave a complete answer up and asked again). `BENCH_BEFORE=<git ref>` runs each row first on the node
 * code of that ref (the rest of the tree as it is now), so before and after come from one run.
 */
import { execFileSync } from 'child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'fs';
import { tmpdir } from 'os';
import { dirname, join } from 'path';

import { listText, LOG_1_MIB } from '../../testkit/largeLists';
import { runWorkRow, URL_LINES, workRows } from '../../testkit/workBounds';
import type { WorkOutcome, WorkRow } from '../../testkit/workBounds';
import type { Figure } from '../lib/figure';
import { verdict } from '../lib/figure';

const BLOCK_GOAL_MS = 100;
/** The stated constant of the CPU an answer costs, per KiB, whatever its text (docs/guarantees.md, "Work bounded per answer"). */
const CPU_GOAL_US_PER_KIB = 100;

function repositoryRoot(): string {
	let dir = __dirname;
	while (!existsSync(join(dir, 'testkit', 'heapCappedChild.ts')) && dirname(dir) !== dir) dir = dirname(dir);
	return dir;
}

/** A copy of the tree whose nodes/ and credentials/ come from `ref`: the harness is today's, the node code is not. */
function treeWithNodesFrom(ref: string): string {
	const root = repositoryRoot();
	const dir = mkdtempSync(join(tmpdir(), 'bench-before-'));
	for (const entry of ['testkit', 'server', 'package.json', 'tsconfig.json']) cpSync(join(root, entry), join(dir, entry), { recursive: true });
	symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
	execFileSync('sh', ['-c', `git -C "$1" archive "$2" nodes credentials | tar -x -C "$3"`, 'sh', root, ref, dir]);
	return dir;
}

/** The list reader's own rows: 100 jobs with 1 MiB logs, plain (realistic) or escape-dense, through Get Many. */
function listReadingRows(): WorkRow[] {
	const getMany = { target: 'action' as const, parameters: { resource: 'job', operation: 'getMany', scope: 'history', returnAll: true } };
	const dense = () => {
		const log = JSON.stringify(URL_LINES.repeat(Math.floor(LOG_1_MIB / 5)));
		return { text: listText(Array.from({ length: 100 }, (_, n) => n), 0).replace(/"log":"[^"]*"/g, `"log":${log}`), list: true };
	};
	return [
		{ id: 'g', answer: '100 MiB list, 100 jobs with 1 MiB realistic logs (plain)', path: 'Get Many', build: () => ({ text: listText(Array.from({ length: 100 }, (_, n) => n), LOG_1_MIB), list: true }), run: getMany },
		{ id: 'h', answer: '100 MiB list, 100 jobs with 1 MiB `%41\\n` logs (escape-dense)', path: 'Get Many', build: dense, run: getMany },
	];
}

function describe(outcome: WorkOutcome): string {
	const failed = outcome.error ? `; error: ${outcome.error.slice(0, 120)}` : outcome.code !== 0 ? `; child ended ${outcome.code ?? outcome.signal}` : '';
	return `longest block ${outcome.maxCpuBlockMs} ms CPU, ${outcome.cpuUsPerKiB} µs CPU/KiB, asked ${outcome.asked}×, ${outcome.elapsedMs} ms${failed}`;
}

export async function measureWorkBounds(): Promise<Figure[]> {
	const before = process.env.BENCH_BEFORE;
	const beforeRoot = before ? treeWithNodesFrom(before) : undefined;
	const figures: Figure[] = [];
	try {
		for (const row of [...workRows({ huge: true }), ...listReadingRows()]) {
			const built = row.build();
			// Before, then after, on the same bytes: the two figures of a row come from the same minutes of the machine.
			const old = beforeRoot ? await runWorkRow(row, built, { root: beforeRoot }) : undefined;
			const now = await runWorkRow(row, built, { root: repositoryRoot() });
			const ok = now.code === 0 && now.error === undefined && now.asked === 1 && (now.maxCpuBlockMs ?? Infinity) <= BLOCK_GOAL_MS && now.cpuUsPerKiB <= CPU_GOAL_US_PER_KIB;
			figures.push({
				id: `12${row.id}`,
				name: `Work per answer: ${row.answer} (${(now.bytes / 2 ** 20).toFixed(1)} MiB), ${row.path}`,
				measured: describe(now),
				goal: `every block ≤ ${BLOCK_GOAL_MS} ms CPU; ≤ ${CPU_GOAL_US_PER_KIB} µs CPU/KiB; read once`,
				verdict: verdict(ok),
				details: old ? [`before (${before}): ${describe(old)}`] : undefined,
			});
		}
	} finally {
		if (beforeRoot) rmSync(beforeRoot, { recursive: true, force: true });
	}
	return figures;
}
