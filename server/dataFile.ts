// Reading the --data file. Today's format is a journal, one JSON record a line: a header, then `{"job":…}` (a
// job as submitted), `{"start":id,"at":ms}` (a queued job started), `{"forget":id}` (retention dropped it).
// The format before it (one `{"version":1,"jobs":[…]}` object) is still read; the server then rewrites it.
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, rmSync } from 'fs';
import { basename, dirname, join } from 'path';

import { OUTCOMES } from './catalog';
import type { JobParameter, StoredJob } from './jobTypes';

export const JOURNAL_HEADER = '{"format":"job-execution-journal","version":2}';

// The temp files of this data file (`.<name>.<pid>.<hex>.tmp`): an interrupted write (kill -9) leaves one.
function isTempOf(name: string, entry: string): boolean {
	return entry.startsWith(`.${name}.`) && entry.endsWith('.tmp');
}

// Removes the temp files a killed process left next to the data file; returns how many.
export function removeLeftoverTempFiles(path: string): number {
	const dir = dirname(path);
	const name = basename(path);
	if (!existsSync(dir)) return 0;
	const leftovers = readdirSync(dir).filter((entry) => isTempOf(name, entry));
	for (const entry of leftovers) rmSync(join(dir, entry), { force: true });
	return leftovers.length;
}

const FORMAT_VERSION = 1;

export class DataFileError extends Error {}

function check(cond: boolean, path: string, what: string): asserts cond {
	if (!cond) throw new DataFileError(`data file ${path} is corrupt: ${what}`);
}

function validJob(raw: unknown, at: string, path: string): StoredJob {
	check(typeof raw === 'object' && raw !== null && !Array.isArray(raw), path, `${at} is not an object`);
	const j = raw as Record<string, unknown>;
	for (const key of ['id', 'flowFileName', 'flowId', 'flowName', 'runProfileName']) {
		check(typeof j[key] === 'string' && j[key] !== '', path, `${at}.${key} must be a non-empty string`);
	}
	for (const key of ['seq', 'submittedAt', 'steps', 'stepMs']) {
		check(Number.isInteger(j[key]), path, `${at}.${key} must be an integer`);
	}
	check((j.steps as number) >= 1 && (j.stepMs as number) >= 1, path, `${at}.steps and stepMs must be positive`);
	check(j.startTime === null || Number.isInteger(j.startTime), path, `${at}.startTime must be an integer or null`);
	check(typeof j.notificationEnabled === 'boolean', path, `${at}.notificationEnabled must be a boolean`);
	check(OUTCOMES.includes(j.outcome as never), path, `${at}.outcome is invalid`);
	check(Array.isArray(j.parameters), path, `${at}.parameters must be an array`);
	const parameters = (j.parameters as unknown[]).map((p, k) => {
		const q = p as Record<string, unknown>;
		check(
			typeof q === 'object' && q !== null && typeof q.name === 'string' && typeof q.value === 'string' &&
				['string', 'integer', 'float'].includes(q.type as string),
			path,
			`${at}.parameters[${k}] is invalid`,
		);
		return { name: q.name, type: q.type, value: q.value } as JobParameter;
	});
	check(j.nodes === undefined || (Array.isArray(j.nodes) && j.nodes.every((n) => typeof n === 'string')), path, `${at}.nodes is invalid`);
	check(j.reason === undefined || typeof j.reason === 'string', path, `${at}.reason is invalid`);
	return {
		id: j.id as string,
		seq: j.seq as number,
		submittedAt: j.submittedAt as number,
		flowFileName: j.flowFileName as string,
		flowId: j.flowId as string,
		flowName: j.flowName as string,
		runProfileName: j.runProfileName as string,
		notificationEnabled: j.notificationEnabled as boolean,
		parameters,
		steps: j.steps as number,
		stepMs: j.stepMs as number,
		outcome: j.outcome as StoredJob['outcome'],
		nodes: j.nodes as string[] | undefined,
		reason: j.reason as string | undefined,
		startTime: j.startTime as number | null,
	};
}

function parse(text: string, path: string, where: string): unknown {
	try {
		return JSON.parse(text);
	} catch (err) {
		throw new DataFileError(`data file ${path} is corrupt: ${where}${(err as Error).message}`);
	}
}

// The format before the journal: read whole (such a file was written as one string, so it is below V8's limit).
function loadSnapshotFile(path: string): StoredJob[] {
	const parsed = parse(readFileSync(path, 'utf8'), path, '');
	check(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed), path, 'root is not an object');
	const root = parsed as { version?: unknown; jobs?: unknown };
	check(root.version === FORMAT_VERSION, path, `unsupported version ${JSON.stringify(root.version)}`);
	check(Array.isArray(root.jobs), path, '"jobs" is not an array');
	const jobs = (root.jobs as unknown[]).map((raw, i) => validJob(raw, `jobs[${i}]`, path));
	const ids = new Set(jobs.map((j) => j.id));
	check(ids.size === jobs.length, path, 'duplicate job ids');
	return jobs;
}

export interface LoadedDataFile {
	// The kept jobs in submission order, each with the bytes of its record in the file.
	jobs: StoredJob[];
	bytes?: Map<StoredJob, number>;
	format: 'none' | 'journal' | 'snapshot';
	// Bytes up to the end of the last whole record; an unfinished last record (kill -9 mid-write) lies past it.
	goodBytes: number;
	tornBytes: number;
}

// Applies one journal line to the jobs read so far.
function applyRecord(jobs: Map<string, { job: StoredJob; bytes: number }>, text: string, bytes: number, path: string, line: number): void {
	const at = `line ${line}`;
	const record = parse(text, path, `${at}: `);
	check(typeof record === 'object' && record !== null && !Array.isArray(record), path, `${at} is not an object`);
	const r = record as Record<string, unknown>;
	if (r.job !== undefined) {
		const job = validJob(r.job, `${at}.job`, path);
		check(!jobs.has(job.id), path, `${at}: duplicate job id`);
		jobs.set(job.id, { job, bytes });
	} else if (typeof r.start === 'string') {
		check(Number.isInteger(r.at), path, `${at}.at must be an integer`);
		const held = jobs.get(r.start);
		if (held) held.job.startTime = r.at as number;
	} else if (typeof r.forget === 'string') {
		jobs.delete(r.forget);
	} else {
		check(false, path, `${at} is no job, start or forget record`);
	}
}

const CHUNK_BYTES = 8 * 1024 * 1024;

// Calls `onLine` for each newline-terminated line, reading the file by chunks into one buffer (never the whole
// file at once; a line longer than the buffer grows it); returns the offset after the last newline.
function eachLine(path: string, onLine: (buf: Buffer, start: number, end: number, line: number) => void): { goodBytes: number; size: number } {
	const fd = openSync(path, 'r');
	try {
		let buf = Buffer.allocUnsafe(CHUNK_BYTES);
		let filled = 0;
		let offset = 0;
		let line = 0;
		for (;;) {
			if (filled === buf.length) buf = Buffer.concat([buf, Buffer.allocUnsafe(buf.length)]);
			const n = readSync(fd, buf, filled, buf.length - filled, null);
			if (n === 0) return { goodBytes: offset, size: offset + filled };
			filled += n;
			let start = 0;
			for (let nl = buf.indexOf(10, start); nl !== -1 && nl < filled; nl = buf.indexOf(10, start)) {
				onLine(buf, start, nl, ++line);
				start = nl + 1;
			}
			offset += start;
			buf.copy(buf, 0, start, filled);
			filled -= start;
		}
	} finally {
		closeSync(fd);
	}
}

// Reads the data file; a missing or empty file is an empty store, anything unreadable is a startup error
// except an unfinished last record, which no client was ever told of (its write had not returned).
export function readDataFile(path: string): LoadedDataFile {
	const empty: LoadedDataFile = { jobs: [], format: 'none', goodBytes: 0, tornBytes: 0 };
	if (!existsSync(path)) return empty;
	const first = Buffer.alloc(JOURNAL_HEADER.length);
	const fd = openSync(path, 'r');
	const start = first.toString('utf8', 0, readSync(fd, first, 0, first.length, 0));
	closeSync(fd);
	// Not the header, nor an unfinished one: the file is in the format before the journal.
	if (!JOURNAL_HEADER.startsWith(start)) return { ...empty, jobs: loadSnapshotFile(path), format: 'snapshot' };
	const jobs = new Map<string, { job: StoredJob; bytes: number }>();
	const { goodBytes, size } = eachLine(path, (buf, start, end, line) => {
		if (line === 1) check(buf.toString('utf8', start, end) === JOURNAL_HEADER, path, 'line 1 is not the journal header');
		else applyRecord(jobs, buf.toString('utf8', start, end), end - start + 1, path, line);
	});
	if (goodBytes === 0) return { ...empty, tornBytes: size };
	const held = [...jobs.values()].sort((a, b) => a.job.seq - b.job.seq);
	return { jobs: held.map((h) => h.job), bytes: new Map(held.map((h) => [h.job, h.bytes])), format: 'journal', goodBytes, tornBytes: size - goodBytes };
}

// The kept jobs of a data file (tests, tools).
export function loadDataFile(path: string): StoredJob[] {
	return readDataFile(path).jobs;
}
