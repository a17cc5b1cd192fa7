/**
 * `npm run bench`: every figure of the benchmark issue on loopback against the reference server, as ratios
 * measured within this run. Prints the table and writes it into BENCHMARKS.md. `npm run bench -- 1 5` runs
 * figures 1 and 5 only and leaves BENCHMARKS.md alone; `npm run bench -- A B C` rewrites only the comparison block,
 * and `npm run bench -- A` only its A rows (the others are kept, the block says from which run).
 * `--when-quiet` (or `--when-quiet=0.5`) first waits until the 1-minute load average is below 1 (or the value given),
 * so a run can be left to start on its own once the machine is idle. `BENCH_SMOKE=1` (bench/lib/smoke.ts) runs the
 * figures with one round and small batches to try their code, prints the table and writes nothing.
 */
import { join } from 'path';

import type { Figure } from './lib/figure';
import { ROWS, SMOKE as SMOKE_RUN } from './lib/smoke';

// n8n's logger would print every node error the figures provoke.
process.env.N8N_LOG_LEVEL ??= 'silent';
const SMOKE = SMOKE_RUN || ROWS.length > 0;
// A bench run is made on purpose to write figures: the blocks it measures in the docs pages too (testkit/measuredBlock.ts).
// A smoke run measures nothing worth keeping: it writes no figures anywhere.
if (SMOKE) process.env.UPDATE_DOCS = '0';
else process.env.UPDATE_DOCS ??= '1';

const FIGURES: Record<string, () => Promise<Figure[]>> = {
	'1': async () => (await import('./figures/perItemOverhead')).measurePerItemOverhead(),
	'2': async () => (await import('./figures/bulkSubmit')).measureBulkSubmit(),
	'3': async () => (await import('./figures/waitForCompletion')).measureWaitForCompletion(),
	'4': async () => (await import('./figures/trigger')).measureTrigger(),
	'5': async () => (await import('./figures/logParser')).measureLogParser(),
	'6': async () => (await import('./figures/referenceServer')).measureReferenceServer(),
	'8': async () => (await import('./figures/queuedSubmissions')).measureQueuedSubmissions(),
	'9': async () => (await import('./figures/serverStorage')).measureServerStorage(),
	'10': async () => (await import('./figures/listReader')).measureListReader(),
	'11': async () => (await import('./figures/redaction')).measureRedaction(),
	'12': async () => (await import('./figures/workBounds')).measureWorkBounds(),
	A: async () => (await import('./figures/vsHttpRequest')).measureVsHttpRequest(),
	B: async () => (await import('./figures/vsWaitLoop')).measureVsWaitLoop(),
	C: async () => (await import('./figures/vsPollingWorkflow')).measureVsPollingWorkflow(),
	D: async () => (await import('./figures/pushback')).measurePushback(),
};

/** Figures comparing the package with what users would build from n8n's own nodes: their own block, first. */
const ALTERNATIVES = ['A', 'B', 'C', 'D'];
/** The reference server's storage at scale: its own block, written whenever figure 9 runs (`npm run bench -- 9`). */
const STORAGE = ['9'];
/** Work per answer (redaction, list reading, issue 33's rows): their own block, written when both run (`npm run bench -- 11 12`). */
const WORK = ['11', '12'];
const WORK_START_MARKER = '<!-- bench:work-per-answer:start (written by npm run bench -- 11 12; edit outside the markers) -->';
const WORK_END_MARKER = '<!-- bench:work-per-answer:end -->';

async function main(): Promise<void> {
	const { describeMachine, loadAverage } = await import('./lib/machine');
	const { ALTERNATIVES_END_MARKER, ALTERNATIVES_START_MARKER, consoleTable, markdownResults, mergeResults, readBlock, writeBenchmarksFile } = await import('./lib/report');
	await import('./lib/plainRequestNode');

	const quietFlag = process.argv.slice(2).find((arg) => arg.startsWith('--when-quiet'));
	if (quietFlag) await untilQuiet(Number(quietFlag.split('=')[1] ?? 1));
	const selected = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
	const unknown = selected.filter((id) => !FIGURES[id]);
	if (unknown.length > 0) throw new Error(`unknown figure ${unknown.join(', ')}; figures: ${Object.keys(FIGURES).join(', ')}`);
	const started = Date.now();
	const loadAtStart = loadAverage();
	const figures: Figure[] = [];
	const alternatives: Figure[] = [];
	const storage: Figure[] = [];
	const work: Figure[] = [];
	for (const [id, measure] of Object.entries(FIGURES)) {
		if (selected.length > 0 && !selected.includes(id)) continue;
		const figureStart = Date.now();
		process.stderr.write(`figure ${id}… `);
		(ALTERNATIVES.includes(id) ? alternatives : STORAGE.includes(id) ? storage : WORK.includes(id) ? work : figures).push(...(await measure()));
		process.stderr.write(`${((Date.now() - figureStart) / 1000).toFixed(1)} s\n`);
	}
	const seconds = (Date.now() - started) / 1000;
	const header = [
		`Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC in ${seconds.toFixed(0)} s; load average (1/5/15 min) ${loadAtStart} at the start, ${loadAverage()} at the end.`,
		...describeMachine(),
	];
	process.stdout.write(`\n${header.join('\n')}\n\n${consoleTable([...alternatives, ...figures, ...work, ...storage])}\n`);
	const ranAlternatives = ALTERNATIVES.filter((id) => selected.length === 0 || selected.includes(id));
	const allOwn = selected.length === 0;
	const file = join(__dirname, '..', '..', 'BENCHMARKS.md');
	const alternativesBlock = { start: ALTERNATIVES_START_MARKER, end: ALTERNATIVES_END_MARKER };
	const blocks = ranAlternatives.length > 0 ? [{ ...alternativesBlock, results: mergeResults(readBlock(file, alternativesBlock), alternatives, header, ranAlternatives) }] : [];
	if (storage.length > 0) {
		const { STORAGE_END_MARKER, STORAGE_START_MARKER } = await import('./figures/serverStorage');
		blocks.push({ start: STORAGE_START_MARKER, end: STORAGE_END_MARKER, results: markdownResults(storage, header) });
	}
	if (WORK.every((id) => selected.length === 0 || selected.includes(id))) blocks.push({ start: WORK_START_MARKER, end: WORK_END_MARKER, results: markdownResults(work, header) });
	if (SMOKE) process.stdout.write('\nBENCH_SMOKE=1 or BENCH_ROWS: nothing written (a smoke run measures nothing worth keeping; some rows would drop the others)\n');
	else if (allOwn || blocks.length > 0) {
		writeBenchmarksFile(file, allOwn ? markdownResults(figures, header) : undefined, blocks);
		process.stdout.write(`\nwritten to ${file}\n`);
	}
}

/** Waits until the 1-minute load average is below `threshold`, saying so every minute. */
async function untilQuiet(threshold: number): Promise<void> {
	const { loadavg } = await import('os');
	for (let waited = 0; loadavg()[0] >= threshold; waited += 10) {
		if (waited % 60 === 0) process.stderr.write(`waiting for a quiet machine: load average ${loadavg()[0].toFixed(2)} ≥ ${threshold}\n`);
		await new Promise((resolve) => setTimeout(resolve, 10_000));
	}
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
	process.exitCode = 1;
});
