/**
 * Job lists of the size real services send (issue 26 §1): up to 100 jobs whose logs reach 1 MiB, one performance
 * line per node and a stack trace on a failed step, as JSON text built once and served as is by the hostile server
 * (`{ kind: 'raw' }`), so a test controls every byte.
 */
import { jobStatus } from './hostileServer';

const KiB = 1024;

/** A job's log of exactly `bytes` UTF-8 bytes: per-node performance lines, a stack trace, escapes and non-ASCII. */
export function realisticLog(jobId: string, bytes: number): string {
	const head = `2026-01-05 09:00:00.000 [main] INFO Job ${jobId} started: flow "sales – Q1", run profile default\n`;
	const lines: string[] = [head];
	let size = Buffer.byteLength(head);
	for (let node = 1; size < bytes; node++) {
		const line =
			node % 50 === 0
				? `2026-01-05 09:00:${String(node % 60).padStart(2, '0')}.250 [pool-1-thread-${node % 8}] INFO Step ${node} failed: java.lang.IllegalStateException: row ${node}\n\tat com.example.Join.run(Join.java:${node})\n`
				: `2026-01-05 09:00:${String(node % 60).padStart(2, '0')}.125 [pool-1-thread-${node % 8}] PERFORMANCE Node 'Join ${node}' finished in 0.${node % 1000} seconds, ${node * 10} rows, ${node * 7} rows/s\n`;
		lines.push(line);
		size += Buffer.byteLength(line);
	}
	// Cut to the exact size on an ASCII character (every multi-byte character is in the head).
	return Buffer.from(lines.join('')).subarray(0, bytes).toString();
}

/** A finished job as a service lists it, with its log. */
export function listedJob(id: string, status: string, logBytes: number, n: number): Record<string, unknown> {
	const end = 1_767_603_600_000 + n * 1000;
	return {
		...jobStatus(id, status, { start: end - 60_000, end: status === 'RUNNING' ? undefined : end }),
		log: status === 'RUNNING' ? null : realisticLog(id, logBytes),
		startTimeFormatted: '2026-01-05 09:00:00.000',
	};
}

export function jobId(n: number): string {
	return `7c2f0000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

/**
 * The JSON text of a list of the jobs numbered `numbers`, each finished (or as `status` says) with a log of
 * `logBytes`; one log is built and shared, with the job's id written into it, so 100 MiB is built in a second.
 */
export function listText(numbers: number[], logBytes: number, status = 'COMPLETED'): string {
	const placeholder = 'J'.repeat(jobId(0).length);
	const shared = status === 'RUNNING' ? '' : JSON.stringify(realisticLog(placeholder, logBytes));
	const parts = numbers.map((n) => {
		const job = listedJob(jobId(n), status, 0, n);
		const text = JSON.stringify({ ...job, log: null });
		return status === 'RUNNING' ? text : text.replace('"log":null', `"log":${shared.replace(placeholder, jobId(n))}`);
	});
	return `[${parts.join(',')}]`;
}

export const LOG_100_KIB = 100 * KiB;
export const LOG_1_MIB = 1024 * KiB;
