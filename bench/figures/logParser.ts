/**
 * Figure 5: the job log parser on logs written by the reference server's log writer (entries, parameters,
 * node performance lines, the step results table), from 1,000 to 100,000 lines and at 10 MB.
 */
import { performance, PerformanceObserver } from 'perf_hooks';

import { formatJob } from '../../nodes/shared/jobOutput';
import { MAX_PARSED_LOG_CHARS, parseJobLog } from '../../nodes/shared/logParser';
import { buildJobLog } from '../../server/jobLog';
import type { Figure } from '../lib/figure';
import { verdict } from '../lib/figure';

const SPEED_GOAL_MB_S = 50;
const LINEAR_GOAL = 1.5;
const MB = 1_000_000;

function logWithSteps(steps: number): string {
	return buildJobLog({
		jobId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
		jobName: 'sales_nightly',
		flowId: '3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10',
		flowName: 'sales',
		flowFileName: '/Shared/Flows/sales.flow',
		notificationEnabled: true,
		parameters: [
			{ name: 'region', type: 'string', value: 'EMEA | north' },
			{ name: 'batchSize', type: 'integer', value: '500' },
			{ name: 'ratio', type: 'float', value: '0.25' },
		],
		steps,
		stepMs: 1500,
		outcome: 'ERROR',
		startTime: Date.UTC(2026, 10, 21, 10, 15),
		reason: 'disk full',
	});
}

/** The smallest log with at least `lines` lines or `bytes` characters (the writer emits about 3 lines per step). */
function logOfAtLeast(lines: number, bytes = 0): string {
	const sample = logWithSteps(1000);
	const linesPerStep = sample.split('\n').length / 1000;
	const bytesPerStep = sample.length / 1000;
	let steps = Math.max(1, Math.ceil(Math.max(lines / linesPerStep, bytes / bytesPerStep)));
	let log = logWithSteps(steps);
	while (log.split('\n').length < lines || log.length < bytes) log = logWithSteps((steps = Math.ceil(steps * 1.01)));
	return log;
}

interface ParseTime {
	lines: number;
	/** Median wall time of one parse, and the garbage collection that ran during it. */
	ms: number;
	gcMs: number;
}

/** Median parse time over `runs` runs after a warm-up, checking first that the parser understood every line. */
async function parseTime(log: string, runs: number): Promise<ParseTime> {
	const lineCount = log.split('\n').length;
	const parsed = parseJobLog(log);
	if (parsed.unknownLines.length > 0 || parsed.stepResults.length === 0 || parsed.entries.length > lineCount) {
		throw new Error('the parser did not understand the bench log');
	}
	for (let i = 0; i < 3; i++) parseJobLog(log);
	const collections: Array<{ start: number; duration: number }> = [];
	const observer = new PerformanceObserver((list) => {
		for (const entry of list.getEntries()) collections.push({ start: entry.startTime, duration: entry.duration });
	});
	observer.observe({ entryTypes: ['gc'] });
	const windows: Array<{ start: number; end: number }> = [];
	for (let i = 0; i < runs; i++) {
		const start = performance.now();
		parseJobLog(log);
		windows.push({ start, end: performance.now() });
		await new Promise((resolve) => setImmediate(resolve)); // lets the gc entries arrive
	}
	await new Promise((resolve) => setTimeout(resolve, 20));
	observer.disconnect();
	const measured = windows
		.map(({ start, end }) => ({
			ms: end - start,
			gcMs: collections.filter((gc) => gc.start >= start && gc.start <= end).reduce((sum, gc) => sum + gc.duration, 0),
		}))
		.sort((a, b) => a.ms - b.ms);
	return { lines: lineCount, ...measured[Math.floor(measured.length / 2)] };
}

const perLine = (t: ParseTime, ms = t.ms) => (ms * 1000) / t.lines;

const BLOCK_GOAL_MS = 100;

/** A log of `unit` repeated up to `chars` characters. */
const fill = (unit: string, chars: number) => unit.repeat(Math.max(1, Math.floor(chars / unit.length)));

/**
 * Figure 5c: the longest a job's Parse Log blocks the event loop (what formatJob does: the size check, the "is it
 * parsable" check, the parse), on the two logs of issue 20 and on adversarial logs just under the parse limit.
 */
function worstLogBlock(): Figure {
	const entry = '2026-01-05 09:00:00 [w] PERFORMANCE ';
	const logs: Record<string, string> = {
		'issue 20: one line padded with 40,000 blanks (the trigger)': `${entry}Node n1 (x): elapsed 0.25${' '.repeat(40_000)}x\n`,
		'issue 20: 12,000 lines "2026-01-05 09:00:00 [x" (Get)': '2026-01-05 09:00:00 [x\n'.repeat(12_000),
		'1 Mi characters of padded performance lines': fill(`${entry}Node n1 (x): elapsed 0.25${' '.repeat(4000)}x\n`, MAX_PARSED_LOG_CHARS),
		'1 Mi characters of unclosed threads': fill('2026-01-05 09:00:00 [x\n', MAX_PARSED_LOG_CHARS),
		'1 Mi characters of one-entry lines': fill('2026-01-05 09:00:00 [m] INFO Job a finished with status COMPLETED in 1 seconds\n', MAX_PARSED_LOG_CHARS),
		'1 Mi characters of "): " in a node name': `${entry}Node n1 (${'): '.repeat(MAX_PARSED_LOG_CHARS / 3 - 20)}\n`,
	};
	const details: string[] = [];
	let worst = 0;
	for (const [name, log] of Object.entries(logs)) {
		const job = { id: 'j', executionStatus: 'COMPLETED', log };
		formatJob(job, { parseLog: true });
		let fastest = Infinity;
		for (let i = 0; i < 5; i++) {
			const start = performance.now();
			formatJob(job, { parseLog: true });
			fastest = Math.min(fastest, performance.now() - start);
		}
		worst = Math.max(worst, fastest);
		details.push(`${name} (${log.length.toLocaleString('en')} chars): ${fastest.toFixed(1)} ms`);
	}
	return {
		id: '5c',
		name: `Log parser: longest event-loop block of one item's Parse Log (adversarial logs; above ${MAX_PARSED_LOG_CHARS.toLocaleString('en')} characters a log is kept raw)`,
		measured: `${worst.toFixed(1)} ms`,
		goal: `< ${BLOCK_GOAL_MS} ms`,
		verdict: verdict(worst < BLOCK_GOAL_MS),
		details,
	};
}

export async function measureLogParser(): Promise<Figure[]> {
	const tenMb = logOfAtLeast(0, 10 * MB);
	const big = await parseTime(tenMb, 7);
	const mbPerSecond = tenMb.length / MB / (big.ms / 1000);

	const sizes: ParseTime[] = [];
	for (const lines of [1_000, 10_000, 100_000]) sizes.push(await parseTime(logOfAtLeast(lines), lines >= 100_000 ? 7 : 25));
	const [smallest, , largest] = sizes;
	const parsing = (t: ParseTime) => perLine(t, t.ms - t.gcMs);
	// Linear: the parsing work per line does not grow with the log (GC is shown apart: see BENCHMARKS.md).
	const workGrowth = parsing(largest) / parsing(smallest);
	const totalGrowth = perLine(largest) / perLine(smallest);
	return [
		{
			id: '5a',
			name: `Log parser: throughput on a ${(tenMb.length / MB).toFixed(1)} MB log (${big.lines.toLocaleString('en')} lines)`,
			measured: `${mbPerSecond.toFixed(0)} MB/s (${big.ms.toFixed(0)} ms, of which GC ${big.gcMs.toFixed(0)} ms)`,
			goal: `≥ ${SPEED_GOAL_MB_S} MB/s`,
			verdict: verdict(mbPerSecond >= SPEED_GOAL_MB_S),
		},
		{
			id: '5b',
			name: 'Log parser: linear growth, parsing time per line at 100k lines / at 1k lines',
			measured: `${workGrowth.toFixed(2)}× (${sizes.map((t) => `${parsing(t).toFixed(2)}`).join(', ')} µs at 1k, 10k, 100k; with GC ${sizes.map((t) => `${perLine(t).toFixed(2)}`).join(', ')} µs: ${totalGrowth.toFixed(2)}×)`,
			goal: `linear (≤ ${LINEAR_GOAL}×)`,
			verdict: verdict(workGrowth <= LINEAR_GOAL),
			details: sizes.map((t) => `${t.lines.toLocaleString('en')} lines: ${t.ms.toFixed(2)} ms, of which GC ${t.gcMs.toFixed(2)} ms`),
		},
		worstLogBlock(),
	];
}
