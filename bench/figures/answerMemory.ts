/**
 * Row D6 (issue 46): 1,000 Gets of jobs whose answers are about 4 MiB each (the cap of one job answer), version 2 at
 * its defaults, the service 20 ms away. All 1,000 may be in flight at once, and 1,000 answers at the cap would be
 * 4 GiB: the execution reads at most MAX_ANSWER_BYTES_HELD of answers at once (nodes/shared/answerBudget.ts), the
 * rest wait unsent. Measured in a child process of its own (bench/lib/answerMemoryChild.ts) whose V8 heap is capped at
 * HEAP_CAP_MIB, under a tenth of the answers together: a node holding every answer would die of it. The goal is that
 * the batch reads every item within that cap; resident memory before the batch and at its peak is printed beside the
 * bound on answer bytes (it is not that bound: each answer held is also a string and a parsed job on the heap, and a
 * freed Buffer's pages may stay resident). The service is a small server in this process, every answer the same log.
 */
import { spawn } from 'child_process';
import { createServer } from 'http';
import type { AddressInfo } from 'net';
import { join } from 'path';

import { MAX_JOB_ANSWER_BYTES } from '../../nodes/shared/transport/answer';
import type { Figure } from '../lib/figure';
import { verdict } from '../lib/figure';

const LATENCY_MS = 20;
const HEAP_CAP_MIB = 384;
/** A realistic log line as it sits in the JSON answer (its newline escaped). */
const LINE = '2026-01-05 09:00:00.123 [main] INFO  node sales-by-region: 12345 rows written, 4321.0 rows/s\\n';

/** A server answering every job read with a finished job whose log fills the answer to 1 KiB under the cap. */
async function startLargeJobService(): Promise<{ url: string; close: () => Promise<void> }> {
	const log = Buffer.from(LINE.repeat(Math.floor((MAX_JOB_ANSWER_BYTES - 1024) / LINE.length)));
	const server = createServer((req, res) => {
		const id = decodeURIComponent((req.url ?? '').split('?')[0].split('/').pop() ?? '');
		const head = Buffer.from(`${JSON.stringify({ id, jobName: id, flowName: 'sales', runProfileName: 'default', executionStatus: 'COMPLETED', startTime: 1767603600000, endTime: 1767603660000 }).slice(0, -1)},"log":"`);
		const tail = Buffer.from('"}');
		setTimeout(() => {
			res.writeHead(200, { 'content-type': 'application/json', 'content-length': head.length + log.length + tail.length });
			res.write(head);
			res.write(log);
			res.end(tail);
		}, LATENCY_MS);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
	};
}

interface ChildFigures {
	baseMiB: number;
	peakMiB: number;
	ms: number;
	items: number;
	error?: string;
}

const mib = (value: number) => `${value.toFixed(0)} MiB`;

async function runChild(url: string, count: number): Promise<ChildFigures> {
	const child = spawn(process.execPath, ['--expose-gc', `--max-old-space-size=${HEAP_CAP_MIB}`, join(__dirname, '..', 'lib', 'answerMemoryChild.js'), url, String(count)], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, N8N_LOG_LEVEL: 'silent' } });
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
	const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
	const line = stdout.split('\n').find((text) => text.startsWith('RESULT '));
	if (!line) return { baseMiB: NaN, peakMiB: NaN, ms: NaN, items: 0, error: `the child died (exit ${code}): ${stderr.slice(-300)}` };
	return JSON.parse(line.slice('RESULT '.length)) as ChildFigures;
}

export async function measureAnswerMemory(count: number, boundBytes: number): Promise<Figure> {
	const service = await startLargeJobService();
	try {
		const run = await runChild(service.url, count);
		const growth = run.peakMiB - run.baseMiB;
		return {
			id: 'D6',
			name: `${count.toLocaleString('en')} Gets of jobs of ${(MAX_JOB_ANSWER_BYTES / 2 ** 20).toFixed(0)} MiB (1 KiB under the cap), version 2 at its defaults, service ${LATENCY_MS} ms away, in a child process with its V8 heap capped at ${HEAP_CAP_MIB} MiB: items read, and resident memory's growth over the batch`,
			measured: `${run.items} of ${count}; resident ${mib(run.baseMiB)} before, ${mib(run.peakMiB)} at the peak (+${mib(growth)}); the answers together ${mib((count * MAX_JOB_ANSWER_BYTES) / 2 ** 20)}, the answer bytes an execution reads at once ${mib(boundBytes / 2 ** 20)}`,
			goal: `every item read within the ${HEAP_CAP_MIB} MiB heap`,
			verdict: verdict(!run.error && run.items === count),
			details: [`the batch took ${(run.ms / 1000).toFixed(1)} s; items out ${run.items}${run.error ? `; the execution failed: ${run.error}` : ''}`],
		};
	} finally {
		await service.close();
	}
}
