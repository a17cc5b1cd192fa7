// The --data file: atomic writes (temp file in the same directory, then rename) with group commit.
import { randomBytes } from 'crypto';
import { existsSync, promises as fsp, readdirSync, readFileSync, rmSync } from 'fs';
import { basename, dirname, join } from 'path';

import { OUTCOMES } from './catalog';
import type { JobParameter, StoredJob } from './jobStore';

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

function validJob(raw: unknown, i: number, path: string): StoredJob {
	const at = `jobs[${i}]`;
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

// Reads the data file; a missing file is an empty store, anything unreadable is a startup error.
export function loadDataFile(path: string): StoredJob[] {
	if (!existsSync(path)) return [];
	let parsed: unknown;
	try {
		parsed = JSON.parse(readFileSync(path, 'utf8'));
	} catch (err) {
		throw new DataFileError(`data file ${path} is corrupt: ${(err as Error).message}`);
	}
	check(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed), path, 'root is not an object');
	const root = parsed as { version?: unknown; jobs?: unknown };
	check(root.version === FORMAT_VERSION, path, `unsupported version ${JSON.stringify(root.version)}`);
	check(Array.isArray(root.jobs), path, '"jobs" is not an array');
	const jobs = (root.jobs as unknown[]).map((raw, i) => validJob(raw, i, path));
	const ids = new Set(jobs.map((j) => j.id));
	check(ids.size === jobs.length, path, 'duplicate job ids');
	return jobs;
}

// One write at a time; callers that arrive during a write share the next one (group commit).
export class DataFileWriter {
	private writing: Promise<void> | null = null;
	private pending: Promise<void> | null = null;
	writes = 0;

	constructor(
		readonly path: string,
		// The `jobs` array as JSON text, taken synchronously when a write starts.
		private readonly snapshot: () => string,
	) {}

	// Resolves once a write that started after this call has reached the disk.
	save(): Promise<void> {
		if (this.pending) return this.pending;
		if (!this.writing) return this.start();
		const after = this.writing.catch(() => undefined);
		this.pending = after.then(() => {
			this.pending = null;
			return this.start();
		});
		return this.pending;
	}

	// Waits for whatever is in flight, then writes the current state.
	async flush(): Promise<void> {
		await this.save();
	}

	private start(): Promise<void> {
		// Snapshot now, synchronously, so the write holds every job submitted before this point.
		const text = `{"version":${FORMAT_VERSION},"jobs":${this.snapshot()}}`;
		const p = this.write(text).finally(() => {
			if (this.writing === p) this.writing = null;
		});
		this.writing = p;
		return p;
	}

	private async write(text: string): Promise<void> {
		const dir = dirname(this.path);
		const tmp = join(dir, `.${basename(this.path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
		try {
			const handle = await fsp.open(tmp, 'w');
			try {
				await handle.writeFile(text, 'utf8');
				await handle.sync();
			} finally {
				await handle.close();
			}
			await fsp.rename(tmp, this.path);
			this.writes++;
		} catch (err) {
			await fsp.rm(tmp, { force: true }).catch(() => undefined);
			throw err;
		}
	}
}
