/**
 * Soak tier: issue 33's table (testkit/workBounds.ts), each row run alone in a child process with the transport's own
 * limits, as n8n would run it: an 8.0 MiB history list kept whole holding one `%41\n` log (Job ID list, one trigger
 * poll), one Get of a 4.0 MiB job with such a log (version 2, Simplify on), a 12 MiB streamed list of 1 MiB `%2541\n`
 * logs (Get Many), and 100 jobs with 2.5 MiB `%41\n` logs, 250 MiB (Get Many, one trigger poll). Each row: read
 * once (never asked for again), no error, no event-loop block past 100 ms of CPU; and the CPU per KiB of the biggest
 * answer within twice that of the 12 MiB one (linear in the bytes: a ratio inside one run, not a time).
 */
import { runWorkRow, workRows } from '../../testkit/workBounds';
import type { WorkOutcome } from '../../testkit/workBounds';

const BLOCK_GOAL_MS = 100;

test('every row of the table: read once, longest block within 100 ms of CPU, CPU linear in the bytes', async () => {
	const outcomes = new Map<string, WorkOutcome>();
	const lines: string[] = [];
	for (const row of workRows({ huge: true })) {
		const outcome = await runWorkRow(row, row.build());
		outcomes.set(row.id, outcome);
		lines.push(
			`${row.id} ${row.answer}, ${row.path}: ${(outcome.bytes / 2 ** 20).toFixed(1)} MiB, longest block ${outcome.maxCpuBlockMs} ms CPU, ` +
				`${outcome.cpuUsPerKiB} µs CPU/KiB, asked ${outcome.asked}x, ${outcome.elapsedMs} ms${outcome.error ? `, error: ${outcome.error}` : ''}`,
		);
	}
	process.stdout.write(`work per answer:\n${lines.join('\n')}\n`);
	for (const [id, outcome] of outcomes) {
		expect({ id, code: outcome.code, signal: outcome.signal, error: outcome.error, asked: outcome.asked }).toEqual({ id, code: 0, signal: null, error: undefined, asked: 1 });
		const block = outcome.maxCpuBlockMs ?? Infinity;
		expect({ id, block: block <= BLOCK_GOAL_MS ? 'within' : block }).toEqual({ id, block: 'within' });
	}
	const small = outcomes.get('d') as WorkOutcome;
	for (const id of ['e', 'f']) expect((outcomes.get(id) as WorkOutcome).cpuUsPerKiB).toBeLessThanOrEqual(2 * small.cpuUsPerKiB);
}, 3_600_000);
