/**
 * Figure 9: the reference server's --data journal at scale. A submission must cost the same whether the store
 * holds 10,000 jobs at the parameter limit (64 Ki characters of parameters each) or 10,000 small ones; the memory
 * at the documented maximum of stored bytes, and the start-up on such a file, are measured and stated.
 * The data files are written here in the server's own journal format (as it writes them), then each server
 * process starts on its file.
 */
import type { ChildProcess } from 'child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'fs';
import { Agent, request } from 'http';
import { tmpdir } from 'os';
import { join } from 'path';

import { DEFAULT_MAX_JOBS, DEFAULT_MAX_STORED_BYTES, FIELD_LIMITS, JOURNAL_HEADER, recordBytes } from '../../server';
import type { Catalog, StoredJob } from '../../server';
import type { Figure } from '../lib/figure';
import { verdict } from '../lib/figure';
import { killServer, spawnServer } from '../lib/serverProcess';
import { formatBytes } from '../lib/stats';

/** BENCHMARKS.md's block of this figure, written whenever figure 9 runs. */
export const STORAGE_START_MARKER = '<!-- bench:server-storage:start (written by npm run bench -- 9; edit outside the markers) -->';
export const STORAGE_END_MARKER = '<!-- bench:server-storage:end -->';

const RATIO_GOAL = 1.25;
const ROUNDS = 10;
const PER_ROUND = 100;
const FLOW = '/Shared/Flows/instant.flow';
const CATALOG: Catalog = { flows: [{ flowFileName: FLOW, steps: 1, stepMs: 1, outcome: 'COMPLETED' }] };
const SMALL_PARAMETERS = [{ name: 'region', type: 'string' as const, value: 'EMEA' }];
// Eight parameters whose names and values together are exactly the stated limit (FIELD_LIMITS.parametersTotal).
const FULL_PARAMETERS = Array.from({ length: 8 }, (_, i) => ({ name: `p${i}`, type: 'string' as const, value: String(i).repeat(FIELD_LIMITS.parametersTotal / 8 - 2) }));
const BODY = JSON.stringify({ flowFileName: FLOW, runProfileName: 'default', parameters: SMALL_PARAMETERS });
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function storedJob(seq: number, parameters: StoredJob['parameters'], now: number): StoredJob {
	return {
		id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`, seq, submittedAt: now - 60_000, flowFileName: FLOW,
		flowId: '6c1f8e0a-0b8e-4b8e-9c1e-3d2f1a0b9c8d', flowName: 'instant', runProfileName: 'default', notificationEnabled: false,
		parameters, steps: 1, stepMs: 1, outcome: 'COMPLETED', startTime: now - 60_000,
	};
}

/** A journal of `count` finished jobs, written by chunks; returns the bytes of its job records. */
function writeJournal(file: string, count: number, parameters: StoredJob['parameters']): number {
	const now = Date.now();
	const fd = openSync(file, 'w');
	let stored = 0;
	try {
		let pending = `${JOURNAL_HEADER}\n`;
		for (let seq = 1; seq <= count; seq++) {
			const text = JSON.stringify(storedJob(seq, parameters, now));
			stored += recordBytes(text);
			pending += `{"job":${text}}\n`;
			if (pending.length > 4 * 1024 * 1024) {
				writeSync(fd, pending);
				pending = '';
			}
		}
		writeSync(fd, pending);
	} finally {
		closeSync(fd);
	}
	return stored;
}

interface Started {
	url: string;
	child: ChildProcess;
	startMs: number;
}

async function startOn(directory: string, dataFile: string, extra: string[] = []): Promise<Started> {
	const catalogFile = join(directory, 'catalog.json');
	writeFileSync(catalogFile, JSON.stringify(CATALOG));
	const started = process.hrtime.bigint();
	const { url, child } = await spawnServer(['--port', '0', '--catalog', catalogFile, '--concurrency', '4', '--data', dataFile, ...extra]);
	return { url, child, startMs: Number(process.hrtime.bigint() - started) / 1e6 };
}


/** Resident and peak resident bytes of a process (Linux /proc). */
function memoryOf(pid: number): { rss: number; peak: number } {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
	return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

function send(url: string, method: 'GET' | 'POST', path: string, body?: string): Promise<number> {
	return new Promise((resolve, reject) => {
		const req = request(`${url}${path}`, { method, agent, headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {} }, (res) => {
			res.resume();
			res.on('end', () => resolve(res.statusCode ?? 0));
		});
		req.on('error', reject);
		req.end(body);
	});
}

/** Milliseconds of each of `n` submissions, one after the other (each answered after its record is fsynced). */
async function submissions(url: string, n: number): Promise<{ ms: number[]; failures: number }> {
	const ms: number[] = [];
	let failures = 0;
	for (let i = 0; i < n; i++) {
		const started = process.hrtime.bigint();
		const status = await send(url, 'POST', '/api/v1/jobs', BODY);
		ms.push(Number(process.hrtime.bigint() - started) / 1e6);
		if (status !== 200 && status !== 202) failures++;
	}
	return { ms, failures };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

/** 9a: the same small submission into 10,000 full jobs and into 10,000 small ones, rounds alternating. */
async function costAtTenThousand(directory: string) {
	const fullFile = join(directory, 'full.jobs');
	const smallFile = join(directory, 'small.jobs');
	const fullBytes = writeJournal(fullFile, DEFAULT_MAX_JOBS, FULL_PARAMETERS);
	writeJournal(smallFile, DEFAULT_MAX_JOBS, SMALL_PARAMETERS);
	const full = await startOn(directory, fullFile);
	const small = await startOn(directory, smallFile);
	try {
		await submissions(full.url, 50); // warm-up, both alike
		await submissions(small.url, 50);
		const ms: Record<'full' | 'small', number[]> = { full: [], small: [] };
		let failures = 0;
		for (let round = 0; round < ROUNDS; round++) {
			for (const [name, server] of round % 2 ? ([['small', small], ['full', full]] as const) : ([['full', full], ['small', small]] as const)) {
				const measured = await submissions(server.url, PER_ROUND);
				ms[name].push(...measured.ms);
				failures += measured.failures;
			}
		}
		return { ms, failures, fullBytes, fullStartMs: full.startMs, fullMemory: memoryOf(full.child.pid as number), fileBytes: statSync(fullFile).size };
	} finally {
		await killServer(full.child);
		await killServer(small.child);
	}
}

/** 9b and 9c: a file at the documented maximum of stored bytes, jobs at the parameter limit; start, submit, read. */
async function atMaximum(directory: string) {
	const file = join(directory, 'maximum.jobs');
	const perJob = recordBytes(JSON.stringify(storedJob(1, FULL_PARAMETERS, Date.now())));
	const count = Math.floor(DEFAULT_MAX_STORED_BYTES / perJob);
	const stored = writeJournal(file, count, FULL_PARAMETERS);
	const server = await startOn(directory, file, ['--max-jobs', String(count + 1000)]);
	try {
		const afterStart = memoryOf(server.child.pid as number);
		const measured = await submissions(server.url, 200);
		for (let i = 0; i < 5; i++) await send(server.url, 'GET', '/api/v1/jobs?filter=history');
		return { count, stored, startMs: server.startMs, afterStart, afterUse: memoryOf(server.child.pid as number), submitMs: median(measured.ms), failures: measured.failures };
	} finally {
		await killServer(server.child);
	}
}

export async function measureServerStorage(): Promise<Figure[]> {
	const directory = mkdtempSync(join(tmpdir(), 'job-execution-bench-storage-'));
	try {
		const cost = await costAtTenThousand(directory);
		const max = await atMaximum(directory);
		const [fullMs, smallMs] = [median(cost.ms.full), median(cost.ms.small)];
		// Flat both ways: the larger median over the smaller.
		const ratio = Math.max(fullMs, smallMs) / Math.min(fullMs, smallMs);
		const ms = (v: number) => `${v.toFixed(2)} ms`;
		return [
			{
				id: '9a',
				name: `Reference server --data: a submission with ${DEFAULT_MAX_JOBS.toLocaleString('en')} jobs stored at the parameter limit / ${DEFAULT_MAX_JOBS.toLocaleString('en')} small ones`,
				measured: `${ms(fullMs)} / ${ms(smallMs)} (median), ratio ${ratio.toFixed(2)}× (larger over smaller)`,
				goal: `flat within ${RATIO_GOAL}×`,
				verdict: verdict(ratio <= RATIO_GOAL && cost.failures === 0),
				details: [
					`${ROUNDS} alternating rounds of ${PER_ROUND} small submissions, one at a time, each answered after its record is fsynced (each also forgets the oldest job: retention ${DEFAULT_MAX_JOBS.toLocaleString('en')}); means ${ms(mean(cost.ms.full))} / ${ms(mean(cost.ms.small))}; ${cost.failures} failures`,
					`the full store: ${formatBytes(cost.fullBytes)} of job records (file ${formatBytes(cost.fileBytes)}), started in ${(cost.fullStartMs / 1000).toFixed(1)} s, RSS ${formatBytes(cost.fullMemory.rss)} (peak ${formatBytes(cost.fullMemory.peak)})`,
				],
			},
			{
				id: '9b',
				name: `Reference server --data: memory at the maximum of stored bytes (${formatBytes(DEFAULT_MAX_STORED_BYTES)}: ${max.count.toLocaleString('en')} jobs at the parameter limit)`,
				measured: `RSS ${formatBytes(max.afterUse.rss)} after 200 submissions and 5 lists (${formatBytes(max.afterStart.rss)} after start, peak ${formatBytes(max.afterUse.peak)})`,
				goal: '(stated)',
				verdict: max.failures === 0 ? 'info' : 'miss',
				details: [`${formatBytes(max.stored)} of job records; a submission at this level took ${ms(max.submitMs)} (median of 200); ${max.failures} failures`],
			},
			{
				id: '9c',
				name: `Reference server --data: start on a full data file (${formatBytes(max.stored)} of job records)`,
				measured: `${(max.startMs / 1000).toFixed(1)} s to listening`,
				goal: '(stated)',
				verdict: 'info',
				details: ['spawn to the URL line on stdout; the file is read by chunks of 8 MiB, one record a line'],
			},
		];
	} finally {
		agent.destroy();
		rmSync(directory, { recursive: true, force: true });
	}
}
