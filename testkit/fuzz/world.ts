/**
 * The jobs the fuzzing service lists to the trigger, poll by poll. Sane jobs start, run for a poll or two and end
 * with spec-shaped integer times; the history list holds the last 100 to end, newest first, as the service's cap
 * says. The world faults add jobs that lie (skewed clocks, ISO or garbage times, huge statuses, long ids, duplicates,
 * impossible transitions, a job whose single read always fails) without ever pushing a sane job off a list before
 * a poll could see it: each poll ends at most 100 jobs.
 */
import { saneJob } from './bodies';
import type { Random } from './random';
import type { WorldFault } from './scenario';

/** How the fuzzer holds the trigger to account for a job. */
export type JobKind = 'sane' | 'odd' | 'chaotic';

interface WorldJob {
	id: string;
	kind: JobKind;
	status: string;
	start: unknown;
	end: unknown;
	/** Set when it ended: its place in the order of endings. */
	endedAt?: number;
	/** The poll it ended in. */
	endedPoll?: number;
	hidden?: boolean;
}

const DAY_MS = 86_400_000;
const TERMINAL = ['COMPLETED', 'ERROR', 'CANCELLED'];

/** 256 characters of 3 bytes each (katakana), unique by a counter in the last six. */
function longId(n: number): string {
	const digits = Array.from({ length: 6 }, (_, i) => String.fromCharCode(0x30a2 + (Math.floor(n / 80 ** i) % 80))).join('');
	return 'ア'.repeat(250) + digits;
}

export class World {
	private readonly jobs = new Map<string, WorldJob>();
	private endings = 0;
	private poll = -1;
	private counter = 0;
	/** The job whose single read always fails, once it fell off both lists. */
	unreadableId?: string;
	unreadableStatus = 500;

	constructor(
		private readonly random: Random,
		private readonly faults: WorldFault[],
		/** Polls in [1, hostileEnd) carry the world faults; the others are sane. */
		private readonly hostileEnd: number,
	) {}

	get kinds(): Map<string, JobKind> {
		return new Map([...this.jobs].map(([id, job]) => [id, job.kind]));
	}

	/** Sane jobs ended in poll `poll` or later, that the trigger must report exactly once. */
	saneEnded(): Array<{ id: string; poll: number }> {
		return [...this.jobs.values()].filter((job) => job.kind === 'sane' && job.endedPoll !== undefined).map((job) => ({ id: job.id, poll: job.endedPoll as number }));
	}

	private add(kind: JobKind, status: string, times: { start: unknown; end?: unknown }, id?: string): WorldJob {
		const job: WorldJob = { id: id ?? this.random.uuid(), kind, status, start: times.start, end: times.end ?? null };
		this.jobs.set(job.id, job);
		if (times.end !== undefined && times.end !== null) this.end(job, status, times.end);
		return job;
	}

	private end(job: WorldJob, status: string, end: unknown): void {
		job.status = status;
		job.end = end;
		job.endedAt = ++this.endings;
		job.endedPoll = this.poll;
	}

	/** Moves the world to poll `poll`: sane jobs start and end, the world faults add their jobs. */
	advance(poll: number): void {
		if (poll <= this.poll) return;
		this.poll = poll;
		const now = Date.now();
		for (const job of this.jobs.values()) {
			if (job.kind === 'sane' && job.endedAt === undefined && this.random.chance(0.6)) this.end(job, this.random.pick(TERMINAL), now);
		}
		for (let n = this.random.int(2, 5); n > 0; n--) this.add('sane', this.random.pick(['QUEUED', 'RUNNING']), { start: now });
		if (poll >= 1 && poll < this.hostileEnd) for (const fault of this.faults) this.applyFault(fault, poll, now);
		else this.hideHostile();
	}

	/** Outside the hostile polls, jobs that lie leave the active list (finished ones stay in history). */
	private hideHostile(): void {
		for (const job of this.jobs.values()) if (job.kind !== 'sane' && job.endedAt === undefined) job.hidden = true;
	}

	private applyFault(fault: WorldFault, poll: number, now: number): void {
		switch (fault.kind) {
			case 'skewedClock':
				for (let n = 0; n < 90; n++) {
					const garbage = fault.form === 'garbageFuture' && poll === 1 && n === 0;
					this.add('odd', 'COMPLETED', { start: now - 1000, end: garbage ? 8.64e15 : now + DAY_MS });
				}
				return;
			case 'isoTimes':
				for (let n = 0; n < 90; n++) this.add('odd', 'COMPLETED', { start: new Date(now - 1000).toISOString(), end: new Date(now).toISOString() });
				return;
			case 'longIds':
				for (let n = 0; n < 90; n++) this.add('odd', 'COMPLETED', { start: now - 1000, end: now }, longId(this.counter++));
				return;
			case 'hugeStatus':
				if (poll === 1) for (let n = 0; n < fault.count; n++) this.add('odd', `ARCHIVING-${'Z'.repeat(fault.length)}`, { start: now });
				return;
			case 'duplicates':
				for (let n = 0; n < 5; n++) this.add('chaotic', 'COMPLETED', { start: now, end: now }, `dup-${poll}-${n}`);
				return;
			case 'impossibleTransitions':
				this.transitions(poll, now);
				return;
			case 'unreadableJob':
				this.unreadableStatus = fault.status;
				if (poll === 1) this.unreadableId = this.add('chaotic', 'RUNNING', { start: now }).id;
				else if (this.unreadableId) (this.jobs.get(this.unreadableId) as WorldJob).hidden = true;
				return;
		}
	}

	/** A few jobs go COMPLETED, then RUNNING, then ERROR, then QUEUED: moves no service should report. */
	private transitions(poll: number, now: number): void {
		const order = ['COMPLETED', 'RUNNING', 'ERROR', 'QUEUED'];
		for (let n = 0; n < 3; n++) {
			const id = `flip-${n}-00000000-0000-4000-8000-000000000000`;
			const status = order[(poll - 1 + n) % order.length];
			const job = this.jobs.get(id) ?? this.add('chaotic', status, { start: now });
			job.status = status;
			job.end = TERMINAL.includes(status) ? now : null;
			job.endedAt = TERMINAL.includes(status) ? ++this.endings : undefined;
		}
	}

	private snapshot(job: WorldJob): Record<string, unknown> {
		return saneJob(job.id, job.status, { start: job.start, end: job.end });
	}

	/** Unfinished jobs, newest first: sane ones first, so that lying ones never hide them. */
	active(): Array<Record<string, unknown>> {
		const open = [...this.jobs.values()].filter((job) => job.endedAt === undefined && !job.hidden);
		const sane = open.filter((job) => job.kind === 'sane').reverse();
		const other = open.filter((job) => job.kind !== 'sane').reverse();
		const list = [...sane.slice(0, 100), ...other];
		// The service lists at most 100; jobs that lie about their status lie about the cap too (up to 500).
		const listed = list.slice(0, Math.max(100, Math.min(other.length, 500)));
		return this.withDuplicates(listed.map((job) => this.snapshot(job)));
	}

	/** The last 100 jobs to end, newest first. */
	history(): Array<Record<string, unknown>> {
		const ended = [...this.jobs.values()].filter((job) => job.endedAt !== undefined && !job.hidden);
		ended.sort((a, b) => (b.endedAt as number) - (a.endedAt as number));
		return this.withDuplicates(ended.slice(0, 100).map((job) => this.snapshot(job)));
	}

	/** Duplicated jobs appear twice in the same list, once running and once ended. */
	private withDuplicates(list: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
		const copies = list.filter((job) => String(job.id).startsWith('dup-')).map((job) => ({ ...job, executionStatus: 'RUNNING', endTime: null }));
		return copies.length === 0 ? list : [...list, ...copies];
	}

	/** A single read: the job, or undefined when the service does not know it. */
	read(id: string): Record<string, unknown> | undefined {
		const job = this.jobs.get(id);
		return job ? this.snapshot(job) : undefined;
	}
}
