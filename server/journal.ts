// The --data file's writer: an append-only journal (dataFile.ts describes its lines). A write appends only what
// changed (the new jobs, the starts, the forgotten ids) and is fsynced before the submission is answered; writes
// are serialised and callers arriving meanwhile share the next one (group commit). When dead records outweigh
// the kept ones, the file is rewritten from the kept jobs, streamed by chunks into a temp file while appends go
// on, then swapped in by rename.
// Fenced: a server whose lock was taken over (it was paused, then woke) must not write after its successor read
// the file. Every write checks the lock before it and again before it is acknowledged; the file is reached by path
// only twice (opening it, renaming a new one over it), each after a check, and a rename's temp file is created
// before that check: a successor removes leftover temp files before it reads, so a rename from a stale check fails.
// docs/reference-service.md ("The data file's lock") gives the whole argument.
import { randomBytes } from 'crypto';
import { close, fsync, ftruncate, open, rename, rmSync, unlink, write } from 'fs';
import { basename, dirname, join } from 'path';

import { JOURNAL_HEADER } from './dataFile';
import { DataFileLockLostError } from './dataFileLock';
import { copyOf } from './jobStore';
import type { StoreChanges } from './jobStore';
import type { HeldJob } from './jobTypes';

// The file is rewritten once it holds more than twice the kept records and at least this much more.
export const DEFAULT_COMPACT_SLACK_BYTES = 64 * 1024 * 1024;
// Compaction writes by chunks of about this size.
const CHUNK_CHARS = 1024 * 1024;

// The fs calls used, looked up at each call (tests replace one to inject a failure).
const fsCall = {
	open: (path: string, flags: string) => new Promise<number>((done, fail) => open(path, flags, (e, fd) => (e ? fail(e) : done(fd)))),
	write: (fd: number, buf: Buffer, at: number) =>
		new Promise<number>((done, fail) => write(fd, buf, 0, buf.length, at, (e, n) => (e ? fail(e) : done(n)))),
	fsync: (fd: number) => new Promise<void>((done, fail) => fsync(fd, (e) => (e ? fail(e) : done()))),
	truncate: (fd: number, size: number) => new Promise<void>((done, fail) => ftruncate(fd, size, (e) => (e ? fail(e) : done()))),
	close: (fd: number) => new Promise<void>((done, fail) => close(fd, (e) => (e ? fail(e) : done()))),
	rename: (from: string, to: string) => new Promise<void>((done, fail) => rename(from, to, (e) => (e ? fail(e) : done()))),
	unlink: (path: string) => new Promise<void>((done) => unlink(path, () => done())),
};
export const journalFs = fsCall;

// Writes all of `buf` at `at` (a write may take less than asked).
async function writeAll(fd: number, buf: Buffer, at: number): Promise<void> {
	for (let done = 0; done < buf.length; ) done += await fsCall.write(fd, buf.subarray(done), at + done);
}

function tempPathOf(path: string): string {
	return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

const startLine = (job: HeldJob) => `{"start":${JSON.stringify(job.id)},"at":${job.startTime}}\n`;
const forgetLine = (id: string) => `{"forget":${JSON.stringify(id)}}\n`;

export interface JournalOptions {
	path: string;
	// The store's changes since the last call (StoreChanges).
	changes: () => StoreChanges;
	// The jobs the file holds at start (restored from it) and their record bytes.
	loaded: Iterable<[HeldJob, number]>;
	// Bytes of the file up to its last whole record.
	size: number;
	compactSlackBytes?: number;
	// Throws when this server no longer owns the file (DataFileLock.check): nothing more is written or acknowledged.
	fence?: () => void;
}

export class JobJournal {
	readonly path: string;
	writes = 0;
	compactions = 0;
	private fd = -1;
	private size: number;
	// Jobs the file keeps, with their record bytes: what a compaction writes.
	private readonly kept = new Map<string, { job: HeldJob; bytes: number }>();
	private keptBytes = 0;
	// Start and forget lines of a failed write, tried again with the next.
	private retry: string[] = [];
	// A failed write left bytes past `size` that could not be cut yet.
	private uncut = false;
	// Lines appended while a compaction runs, copied to its file before the swap.
	private tail: string[] | undefined;
	private compacting: Promise<void> | undefined;
	private readonly slack: number;
	// After a failed compaction, the size the file must reach before the next try.
	private compactAfter = 0;
	// Serialises the writes and the swap; `next` is the write callers may still join.
	private chain: Promise<unknown> = Promise.resolve();
	private next: Promise<void> | undefined;

	private constructor(private readonly options: JournalOptions) {
		this.path = options.path;
		this.size = options.size;
		this.slack = options.compactSlackBytes ?? DEFAULT_COMPACT_SLACK_BYTES;
		for (const [job, bytes] of options.loaded) {
			this.kept.set(job.id, { job, bytes });
			this.keptBytes += bytes;
		}
	}

	// Opens the file for appending after `size` (cutting an unfinished last record); `rewrite` first rewrites it
	// whole from the loaded jobs (a file in the older format, or one mostly made of dead records).
	static async open(options: JournalOptions & { rewrite: boolean }): Promise<JobJournal> {
		const journal = new JobJournal(options);
		if (options.rewrite || options.size === 0) {
			await journal.rewrite();
		} else {
			const fd = await fsCall.open(options.path, 'r+');
			try {
				// After the open: a file opened before a takeover is the one the successor replaces, never its new one.
				journal.fence();
				await fsCall.truncate(fd, options.size);
			} catch (err) {
				await fsCall.close(fd);
				throw err;
			}
			journal.fd = fd;
		}
		return journal;
	}

	// Resolves once a write that started after this call is on disk: the jobs staged before it are saved.
	save(): Promise<void> {
		if (!this.next) {
			const next = this.chain.then(() => {
				this.next = undefined;
				return this.append();
			});
			this.next = next;
			this.chain = next.catch(() => undefined);
		}
		return this.next;
	}

	// Writes what is left (starts and retention since the last submission), waits for a running compaction.
	async close(): Promise<void> {
		try {
			await this.save();
			await this.compacting;
		} finally {
			await this.exclusive(async () => {
				if (this.fd !== -1) await fsCall.close(this.fd);
				this.fd = -1;
			});
		}
	}

	private fence(): void {
		this.options.fence?.();
	}

	// Bytes of the file and of its kept job records.
	stats(): { fileBytes: number; keptBytes: number; keptJobs: number; compacting: boolean } {
		return { fileBytes: this.size, keptBytes: this.keptBytes, keptJobs: this.kept.size, compacting: this.compacting !== undefined };
	}

	private exclusive<T>(step: () => Promise<T>): Promise<T> {
		const run = this.chain.then(step);
		this.chain = run.catch(() => undefined);
		return run;
	}

	// One write: the changes as lines, at the end of the file, fsynced. On failure the file is cut back to its
	// size before (no trace of the refused jobs) and the starts and forgets wait for the next write.
	private async append(): Promise<void> {
		const changes = this.options.changes();
		const jobLines = changes.jobs.map(({ text }) => `{"job":${text}}\n`);
		const other = [...this.retry, ...changes.started.map(startLine), ...changes.forgotten.map(forgetLine)];
		this.retry = [];
		if (jobLines.length + other.length === 0) return;
		const buf = Buffer.from(jobLines.join('') + other.join(''), 'utf8');
		try {
			this.fence();
			// A failed write whose remains could not be cut: cut them first, or write nothing after them.
			if (this.uncut) await fsCall.truncate(this.fd, this.size);
			this.uncut = false;
			await writeAll(this.fd, buf, this.size);
			await fsCall.fsync(this.fd);
			// Checked again once on disk: a takeover during the write is seen before the write is acknowledged.
			this.fence();
		} catch (err) {
			this.retry = other;
			// A server that lost its lock touches the file no more, not even to cut.
			if (err instanceof DataFileLockLostError) throw err;
			this.uncut = await fsCall.truncate(this.fd, this.size).then(() => false, () => true);
			throw err;
		}
		this.size += buf.length;
		this.writes++;
		changes.jobs.forEach(({ job }, i) => this.keep(job, Buffer.byteLength(jobLines[i])));
		for (const id of changes.forgotten) this.forget(id);
		this.tail?.push(...jobLines, ...other);
		if (!this.compacting && this.size > Math.max(2 * this.keptBytes + this.slack, this.compactAfter)) {
			this.compacting = this.compact().finally(() => (this.compacting = undefined));
		}
	}

	private keep(job: HeldJob, bytes: number): void {
		this.kept.set(job.id, { job, bytes });
		this.keptBytes += bytes;
	}

	private forget(id: string): void {
		const held = this.kept.get(id);
		if (!held) return;
		this.kept.delete(id);
		this.keptBytes -= held.bytes;
	}

	// The kept jobs' records into a new file, by chunks; returns its size.
	private async writeKept(fd: number, jobs: HeldJob[]): Promise<number> {
		let at = 0;
		let pending = `${JOURNAL_HEADER}\n`;
		for (const job of jobs) {
			const line = `{"job":${JSON.stringify(copyOf(job))}}\n`;
			const held = this.kept.get(job.id);
			if (held?.job === job) held.bytes = Buffer.byteLength(line);
			pending += line;
			if (pending.length >= CHUNK_CHARS) {
				const buf = Buffer.from(pending, 'utf8');
				await writeAll(fd, buf, at);
				at += buf.length;
				pending = '';
			}
		}
		const buf = Buffer.from(pending, 'utf8');
		await writeAll(fd, buf, at);
		return at + buf.length;
	}

	// Rewrites the file from the kept jobs while appends go on (their lines are copied after), then swaps it in.
	// A failure leaves the current file as it was; the next try waits until the file has grown by the slack again.
	private async compact(): Promise<void> {
		const jobs = await this.exclusive(async () => {
			this.tail = [];
			return [...this.kept.values()].map((held) => held.job);
		});
		const tmp = tempPathOf(this.path);
		let fd = -1;
		try {
			fd = await fsCall.open(tmp, 'w');
			let size = await this.writeKept(fd, jobs);
			await this.exclusive(async () => {
				const tail = Buffer.from((this.tail ?? []).join(''), 'utf8');
				await writeAll(fd, tail, size);
				size += tail.length;
				await this.swap(fd, tmp, size);
				fd = -1;
			});
			this.compactions++;
		} catch {
			if (fd !== -1) await fsCall.close(fd).catch(() => undefined);
			await fsCall.unlink(tmp);
			this.compactAfter = this.size + this.slack;
		} finally {
			this.tail = undefined;
		}
	}

	// The new file replaces the old one: synced, renamed over it, the directory synced; appends go to it.
	private async swap(fd: number, tmp: string, size: number): Promise<void> {
		await fsCall.fsync(fd);
		this.fence();
		await fsCall.rename(tmp, this.path);
		const dir = await fsCall.open(dirname(this.path), 'r');
		await fsCall.fsync(dir).finally(() => fsCall.close(dir));
		if (this.fd !== -1) await fsCall.close(this.fd);
		this.fd = fd;
		this.size = size;
		this.keptBytes = 0;
		for (const held of this.kept.values()) this.keptBytes += held.bytes;
	}

	// At start: the file rewritten whole from the loaded jobs (synchronous callers wait for it).
	private async rewrite(): Promise<void> {
		const tmp = tempPathOf(this.path);
		const fd = await fsCall.open(tmp, 'w');
		try {
			const size = await this.writeKept(fd, [...this.kept.values()].map((held) => held.job));
			await this.swap(fd, tmp, size);
		} catch (err) {
			await fsCall.close(fd).catch(() => undefined);
			rmSync(tmp, { force: true });
			throw err;
		}
	}
}
