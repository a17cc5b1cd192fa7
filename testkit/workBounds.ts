/**
 * The answers of issue 33's table, all within the stated bounds (docs/guarantees.md): escape-dense logs at every size
 * bound, served as exact bytes by the hostile server. Each row runs one node path in a child process (testkit/
 * heapCapped.ts), which reports the longest event-loop block in CPU time and the CPU the run took; the server counts
 * the requests, so an answer asked for again shows. bench/figures/workBounds.ts prints the rows, the soak tier proves them.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { ChildOutcome, ChildRun } from './heapCapped';
import { runHeapCapped } from './heapCapped';
import { startHostileServer } from './hostileServer';
import { jobId, listedJob } from './largeLists';

const MiB = 1024 * 1024;

/** URL-encoded text with line breaks: every character sits in an escape of some form (`\n` in JSON, `%41` in URLs). */
export const URL_LINES = '%41\n';
/** The same, URL-encoded twice. */
export const URL_TWICE_LINES = '%2541\n';

/** A log whose JSON text (quotes included) is at most `rawBytes`, of `unit` repeated. */
export function denseLog(unit: string, rawBytes: number): string {
	const perUnit = JSON.stringify(unit).length - 2;
	return unit.repeat(Math.floor((rawBytes - 2) / perUnit));
}

function jobText(n: number, log: string): string {
	return JSON.stringify({ ...listedJob(jobId(n), 'COMPLETED', 0, n), log });
}

/** A list of `jobs` finished jobs whose logs are `unit` repeated, the whole text at most `totalBytes`. */
export function denseListText(jobs: number, totalBytes: number, unit: string): string {
	const frame = `[${Array.from({ length: jobs }, (_, n) => jobText(n, '')).join(',')}]`.length;
	const log = JSON.stringify(denseLog(unit, Math.floor((totalBytes - frame) / jobs) + 2));
	const parts = Array.from({ length: jobs }, (_, n) => jobText(n, '').replace('"log":""', `"log":${log}`));
	return `[${parts.join(',')}]`;
}

/** One job's answer of at most `totalBytes`, its log `unit` repeated. */
export function denseJobText(totalBytes: number, unit: string): string {
	const frame = jobText(0, '').length;
	return jobText(0, '').replace('"log":""', `"log":${JSON.stringify(denseLog(unit, totalBytes - frame + 2))}`);
}

export interface WorkRow {
	id: string;
	/** The answer, as the table names it. */
	answer: string;
	path: string;
	/** The answer's text: lists for every list request (an empty one for the active list), a job for a read. */
	build: () => { text: string; list: boolean };
	run: Omit<ChildRun, 'credentials'>;
}

const TRIGGER: INodeParameters = { triggerOn: 'anyChange', startFrom: 'existing' };
const GET_MANY: INodeParameters = { resource: 'job', operation: 'getMany', scope: 'history', returnAll: true };

export function workRows(options: { huge: boolean }): WorkRow[] {
	const keptWhole = () => ({ text: denseListText(1, 8 * MiB, URL_LINES), list: true });
	const streamed12 = () => ({ text: denseListText(12, 12 * MiB, URL_TWICE_LINES), list: true });
	const huge = () => ({ text: denseListText(100, 250 * MiB, URL_LINES), list: true });
	const rows: WorkRow[] = [
		{ id: 'a', answer: '8.0 MiB history list (kept whole), one `%41\\n` log', path: 'Job ID list', build: keptWhole, run: { target: 'listSearch', parameters: { authentication: 'jobExecutionApi' } } },
		{ id: 'b', answer: '8.0 MiB history list (kept whole), one `%41\\n` log', path: 'one trigger poll', build: keptWhole, run: { target: 'trigger', parameters: TRIGGER } },
		{
			id: 'c',
			answer: '4.0 MiB job, `%41\\n` log',
			path: 'Get (v2, Simplify on)',
			build: () => ({ text: denseJobText(4 * MiB, URL_LINES), list: false }),
			run: { target: 'action', typeVersion: 2, parameters: { resource: 'job', operation: 'get', jobId: jobId(0) } },
		},
		{ id: 'd', answer: '12 MiB streamed list, 12 jobs with 1 MiB `%2541\\n` logs', path: 'Get Many', build: streamed12, run: { target: 'action', parameters: GET_MANY } },
	];
	if (!options.huge) return rows;
	return [
		...rows,
		{ id: 'e', answer: '250 MiB list, 100 jobs with 2.5 MiB `%41\\n` logs', path: 'Get Many', build: huge, run: { target: 'action', parameters: GET_MANY } },
		{ id: 'f', answer: '250 MiB list, 100 jobs with 2.5 MiB `%41\\n` logs', path: 'one trigger poll', build: huge, run: { target: 'trigger', parameters: TRIGGER } },
	];
}

export interface WorkOutcome extends ChildOutcome {
	bytes: number;
	/** Requests the server got for the answer: 1 unless the node asked again. */
	asked: number;
	/** CPU per KiB of the answer, µs. */
	cpuUsPerKiB: number;
}

/**
 * Runs one row against a hostile server serving its answer, in a child process from `root` (the repository, or a
 * copy holding older node code). `limits`: the transport's limits (the production ones when left out).
 */
export async function runWorkRow(
	row: WorkRow,
	built: { text: string; list: boolean },
	options: { root?: string; limits?: ChildRun['limits']; timeoutMs?: number } = {},
): Promise<WorkOutcome> {
	const bytes = Buffer.from(built.text);
	let asked = 0;
	const server = await startHostileServer((request) => {
		const isList = request.target.startsWith('/api/v1/jobs?') || request.target === '/api/v1/jobs';
		if (isList && request.target.includes('filter=active')) return { kind: 'raw', text: '[]' };
		if (isList === built.list) asked++;
		return isList === built.list ? { kind: 'raw', text: built.text } : { kind: 'raw', text: built.list ? '[]' : '{}' };
	});
	try {
		const outcome = await runHeapCapped(
			{ ...row.run, limits: options.limits, credentials: { jobExecutionApi: { baseUrl: server.url, authType: 'bearerToken', token: 'work-bound-token-7%2B/x' } } },
			{ heapMiB: 2048, timeoutMs: options.timeoutMs ?? 600_000, root: options.root },
		);
		const cpuUsPerKiB = outcome.cpuMs === undefined ? NaN : Math.round(((outcome.cpuMs * 1000) / (bytes.length / 1024)) * 10) / 10;
		return { ...outcome, bytes: bytes.length, asked, cpuUsPerKiB };
	} finally {
		await server.close();
	}
}
