// Jobs and their simulated lifecycle. No timers: advance(now) replays, in time order, every event
// (job end, queued job start) up to the clock's time, on each request. Every operation works on indexes
// (a heap of running jobs by end, FIFO queue, finished jobs by submission), so its cost does not grow with
// the number of jobs kept or queued.
import { randomUUID } from 'crypto';

import type { Clock } from './clock';
import { Deque, MinHeap } from './indexes';
import { endOf, LogCache, statusOf } from './jobStatus';
import type { HeldJob, JobStatus, ListFilter, StoredJob, SubmitInput } from './jobTypes';

export interface JobStoreOptions {
	clock: Clock;
	stepMs?: number;
	concurrency?: number;
	maxJobs?: number;
	maxQueued?: number;
	// Bytes of the data-file records of all kept jobs (see recordBytes): past it the oldest finished jobs are
	// forgotten, and a submission that would need more while only waiting and running jobs are kept is refused.
	maxStoredBytes?: number;
	// Keep the changes since the last takeChanges() (jobs started, jobs forgotten) for the data file's journal.
	journal?: boolean;
}

export const LIST_CAP = 100;
export const DEFAULT_MAX_JOBS = 10_000;
export const DEFAULT_MAX_QUEUED = 10_000;
export const DEFAULT_MAX_STORED_BYTES = 1024 * 1024 * 1024;

// Refused for now (503 with Retry-After): `maxQueued` jobs already wait, or waiting and running jobs fill the
// stored bytes. Either clears as jobs finish.
export class QueueFullError extends Error {}

// What changed since the last takeChanges(): the data file's journal appends exactly this.
export interface StoreChanges {
	// Jobs staged since, each with its record's JSON text (made once, at stage, to count its bytes).
	jobs: { job: HeldJob; text: string }[];
	// Queued jobs that started since (their start time).
	started: HeldJob[];
	// Ids of jobs forgotten since (retention).
	forgotten: string[];
}

const bySeq = (job: StoredJob) => job.seq;

export function copyOf(job: HeldJob): StoredJob {
	const copy: StoredJob & { log?: string } = { ...job, parameters: job.parameters.map((p) => ({ ...p })) };
	delete copy.log;
	return copy;
}

// Bytes a job's record takes in the data file: its JSON text in UTF-8 inside `{"job":…}` and a newline.
export function recordBytes(text: string): number {
	return Buffer.byteLength(text) + 9;
}

// Merges lists sorted by seq into one sorted list.
function mergeBySeq(lists: HeldJob[][]): HeldJob[] {
	const at = lists.map(() => 0);
	const out: HeldJob[] = [];
	for (;;) {
		let best = -1;
		for (let k = 0; k < lists.length; k++) {
			if (at[k] < lists[k].length && (best === -1 || lists[k][at[k]].seq < lists[best][at[best]].seq)) best = k;
		}
		if (best === -1) return out;
		out.push(lists[best][at[best]++]);
	}
}

export class JobStore {
	readonly clock: Clock;
	readonly stepMs: number;
	readonly concurrency: number;
	readonly maxJobs: number;
	readonly maxQueued: number;
	readonly maxStoredBytes: number;
	// Visible jobs only: a staged job is in none of these until commit().
	private readonly byId = new Map<string, HeldJob>();
	private readonly running = new MinHeap<HeldJob>((a, b) => {
		const ea = endOf(a) as number;
		const eb = endOf(b) as number;
		return ea < eb || (ea === eb && a.seq < b.seq);
	});
	private readonly queue = new Deque<HeldJob>();
	// Terminal jobs in submission order: the oldest is evicted first.
	private readonly finished = new Deque<HeldJob>();
	// Submitted, waiting for their write: counted for slots and the queue limit, shown to no reader.
	private readonly staged = new Map<string, HeldJob>();
	private stagedStarted = 0;
	// Record bytes of each kept or staged job; their sum, and the part held by finished jobs (which can be evicted).
	private readonly bytes = new WeakMap<HeldJob, number>();
	private storedBytes = 0;
	private finishedBytes = 0;
	private readonly journal: boolean;
	private changes: StoreChanges = { jobs: [], started: [], forgotten: [] };
	// Logs of finished jobs with large parameters, most recently read (jobStatus.ts).
	private readonly logs = new LogCache();
	private nextSeq = 1;
	private processedUntil = -Infinity;

	constructor(options: JobStoreOptions) {
		this.clock = options.clock;
		this.stepMs = options.stepMs ?? 1000;
		this.concurrency = options.concurrency ?? 4;
		this.maxJobs = options.maxJobs ?? DEFAULT_MAX_JOBS;
		this.maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED;
		this.maxStoredBytes = options.maxStoredBytes ?? DEFAULT_MAX_STORED_BYTES;
		this.journal = options.journal ?? false;
		const limits = { stepMs: this.stepMs, concurrency: this.concurrency, maxJobs: this.maxJobs, maxQueued: this.maxQueued, maxStoredBytes: this.maxStoredBytes };
		for (const [name, value] of Object.entries(limits)) {
			if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
		}
	}

	// Replays job ends up to `now`; each end hands its slot to the earliest queued job at that exact time.
	advance(now: number = this.clock.now()): void {
		for (let next = this.running.peek(); next !== undefined && (endOf(next) as number) <= now; next = this.running.peek()) {
			this.running.pop();
			this.finished.insertSorted(next, bySeq);
			this.finishedBytes += this.bytes.get(next) ?? 0;
			// A job committed after its own end frees its slot no earlier than what readers were already shown.
			this.fillSlots(Math.max(endOf(next) as number, this.processedUntil));
		}
		// Free slots can exist after a restore with queued jobs, or after a refused staged job; they start now.
		this.fillSlots(Math.max(now, this.processedUntil));
		this.processedUntil = Math.max(this.processedUntil, now);
	}

	private fillSlots(at: number): void {
		while (this.running.size + this.stagedStarted < this.concurrency && this.queue.length > 0) {
			const job = this.queue.shift() as HeldJob;
			job.startTime = at;
			if (this.journal) this.changes.started.push(job);
			this.running.push(job);
		}
	}

	// First half of a submission: the job gets its id, its place and (if a slot is free) its start time, but no
	// reader sees it until commit(). Throws QueueFullError when maxQueued jobs already wait.
	stage(input: SubmitInput): StoredJob {
		const now = this.clock.now();
		this.advance(now);
		const startsNow = this.running.size + this.stagedStarted < this.concurrency && this.queue.length === 0 && this.staged.size === this.stagedStarted;
		if (!startsNow && this.queue.length + this.staged.size - this.stagedStarted >= this.maxQueued) {
			throw new QueueFullError(`the queue is full (${this.maxQueued} jobs waiting); try again later`);
		}
		const flow = input.flow;
		const job: HeldJob = {
			id: randomUUID(), seq: this.nextSeq++, submittedAt: now,
			flowFileName: flow.flowFileName, flowId: flow.flowId, flowName: flow.flowName,
			runProfileName: input.runProfileName, notificationEnabled: input.notificationEnabled,
			parameters: input.parameters.map((p) => ({ ...p })),
			steps: flow.steps, stepMs: flow.stepMs ?? this.stepMs, outcome: flow.outcome, nodes: flow.nodes, reason: flow.reason,
			startTime: startsNow ? now : null,
		};
		// The job has no log yet: its own text is its record (copyOf would only copy it).
		const text = JSON.stringify(job);
		const size = recordBytes(text);
		// Finished jobs make room when evicted; waiting and running ones cannot.
		if (this.storedBytes - this.finishedBytes + size > this.maxStoredBytes) {
			this.nextSeq--;
			throw new QueueFullError(
				`the store is full: waiting and running jobs take ${this.storedBytes - this.finishedBytes} bytes, this job ${size}, ` +
					`at most ${this.maxStoredBytes} are stored (--max-stored-bytes); try again later`,
			);
		}
		this.bytes.set(job, size);
		this.storedBytes += size;
		this.staged.set(job.id, job);
		if (startsNow) this.stagedStarted++;
		if (this.journal) this.changes.jobs.push({ job, text });
		return job;
	}

	// Second half: the job is durable, readers may see it. Returns whether it runs (200) or waits (202).
	commit(id: string): boolean {
		const job = this.unstage(id);
		if (!job) throw new Error(`job ${id} is not staged`);
		this.byId.set(job.id, job);
		if (job.startTime !== null) this.running.push(job);
		else this.queue.insertSorted(job, bySeq);
		this.advance();
		this.evict();
		return job.startTime !== null;
	}

	// The write failed: the job never existed for any reader.
	discard(id: string): void {
		const job = this.unstage(id);
		if (!job) return;
		this.storedBytes -= this.bytes.get(job) ?? 0;
		this.advance();
	}

	private unstage(id: string): HeldJob | undefined {
		const job = this.staged.get(id);
		if (!job) return undefined;
		this.staged.delete(id);
		if (job.startTime !== null) this.stagedStarted--;
		return job;
	}

	// Retention: beyond maxJobs or maxStoredBytes, the oldest terminal jobs go first (queued and running jobs are kept).
	private evict(): void {
		while ((this.byId.size > this.maxJobs || this.storedBytes > this.maxStoredBytes) && this.finished.length > 0) {
			const job = this.finished.shift() as HeldJob;
			this.byId.delete(job.id);
			this.logs.delete(job);
			const size = this.bytes.get(job) ?? 0;
			this.storedBytes -= size;
			this.finishedBytes -= size;
			if (this.journal) this.changes.forgotten.push(job.id);
		}
	}

	// The changes since the last call, handed to the data file's journal (empty unless `journal`).
	takeChanges(): StoreChanges {
		this.advance();
		const taken = this.changes;
		this.changes = { jobs: [], started: [], forgotten: [] };
		return taken;
	}

	// Bytes of the records of kept and staged jobs (the figure maxStoredBytes bounds).
	bytesStored(): number {
		return this.storedBytes;
	}

	// Ids of submitted jobs waiting for their write (shown to no reader yet).
	stagedIds(): string[] {
		return [...this.staged.keys()];
	}

	has(id: string): boolean {
		return this.byId.has(id);
	}

	count(): number {
		return this.byId.size;
	}

	private visibleInSeqOrder(): HeldJob[] {
		const running = [...this.running.values()].sort((a, b) => a.seq - b.seq);
		return mergeBySeq([[...this.finished.oldestFirst()], running, [...this.queue.oldestFirst()]]);
	}

	// Copies of the visible jobs in submission order (tests, benchmarks).
	all(): StoredJob[] {
		this.advance();
		return this.visibleInSeqOrder().map(copyOf);
	}

	status(id: string): JobStatus | undefined {
		const now = this.clock.now();
		this.advance(now);
		const job = this.byId.get(id);
		return job ? statusOf(job, now, this.logs) : undefined;
	}

	// Newest submission first, at most LIST_CAP.
	list(filter?: ListFilter): JobStatus[] {
		return this.listLazily(filter).map((status) => status());
	}

	// The same list at one fixed moment, each JobStatus built when asked for: a large list is built (and its
	// logs written) piece by piece while other requests run.
	listLazily(filter?: ListFilter): (() => JobStatus)[] {
		const now = this.clock.now();
		this.advance(now);
		// Active jobs, newest first; their status is taken now (a queued job may start before it is sent).
		const active: { seq: number; status: () => JobStatus }[] = [];
		if (filter !== 'history') {
			const take = (job: HeldJob) => {
				const status = statusOf(job, now, this.logs);
				active.push({ seq: job.seq, status: () => status });
			};
			for (const job of this.queue.newestFirst()) {
				if (active.length === LIST_CAP) break;
				take(job);
			}
			const running = [...this.running.values()].sort((a, b) => b.seq - a.seq);
			for (const job of running.slice(0, LIST_CAP - active.length)) take(job);
		}
		const finished: { seq: number; status: () => JobStatus }[] = [];
		if (filter !== 'active') {
			for (const job of this.finished.newestFirst()) {
				if (finished.length === LIST_CAP) break;
				finished.push({ seq: job.seq, status: () => statusOf(job, now, this.logs) });
			}
		}
		const out: (() => JobStatus)[] = [];
		for (let a = 0, f = 0; out.length < LIST_CAP && (a < active.length || f < finished.length); ) {
			const takeActive = f === finished.length || (a < active.length && active[a].seq > finished[f].seq);
			out.push(takeActive ? active[a++].status : finished[f++].status);
		}
		return out;
	}

	// Rebuilds the state from persisted jobs (submission order by seq). The store takes the objects over, as
	// loadDataFile made them (copying 100,000 jobs would double the start-up's garbage).
	// `sizeOf` gives each job's record bytes as the file held it (default: measured again).
	restore(jobs: StoredJob[], sizeOf: (job: StoredJob) => number = (job) => recordBytes(JSON.stringify(job))): void {
		let sorted = true;
		for (let i = 1; i < jobs.length && sorted; i++) sorted = jobs[i - 1].seq < jobs[i].seq;
		for (const job of sorted ? jobs : [...jobs].sort((a, b) => a.seq - b.seq)) {
			const size = sizeOf(job);
			this.bytes.set(job, size);
			this.storedBytes += size;
			this.byId.set(job.id, job);
			if (job.startTime === null) this.queue.push(job);
			else this.running.push(job);
			this.nextSeq = Math.max(this.nextSeq, job.seq + 1);
		}
		this.advance();
		this.evict();
	}
}

// A store without a data file (benchmarks, tests): nothing to save, so a job may be shown as it is submitted. A
// store with a journal has no submit(): its jobs are staged, saved, then committed (submitDurably), so no reader
// can see a job the data file does not hold.
export class MemoryJobStore extends JobStore {
	constructor(options: Omit<JobStoreOptions, 'journal'>) {
		super({ ...options, journal: false });
	}

	// stage() and commit() at once.
	submit(input: SubmitInput): { job: StoredJob; started: boolean } {
		const job = this.stage(input);
		return { job, started: this.commit(job.id) };
	}
}

// Submits on any store: staged, saved by `persist` (the data file's write; nothing without one), then shown to
// readers; a failed save discards the job, which no reader ever saw.
export async function submitDurably(store: JobStore, persist: () => Promise<void>, input: SubmitInput): Promise<{ job: StoredJob; started: boolean }> {
	const job = store.stage(input);
	try {
		await persist();
	} catch (err) {
		store.discard(job.id);
		throw err;
	}
	return { job, started: store.commit(job.id) };
}
