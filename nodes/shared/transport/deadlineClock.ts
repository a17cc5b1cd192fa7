import { sleep } from 'n8n-workflow';

/**
 * Ends attempts at their deadlines with one n8n sleep for all the attempts of a run, instead of a sleep, a race and
 * an AbortSignal per attempt: in Node 20 an AbortSignal listener costs microseconds to add, remove or fire, and a
 * node reading 1,000 items paid that for every one of them. Attempts and their readers hear of the end through
 * plain callbacks (AttemptStop); only the request helper gets a real AbortSignal, aborted when an attempt is late.
 *
 * A deadline measures the service, never the node (docs/guarantees.md, "Deadlines"): it counts only the time n8n's
 * event loop spent waiting (idle, with nothing of n8n to run), so the CPU of the node's own reading and checking,
 * or of any other work of n8n, is not counted against the service. The caller stops the clock once an answer's last
 * byte is in: parsing and redaction are never timed.
 */

/**
 * Ms the event loop has waited since it started (idle in its poll phase): time in which no code of n8n ran. Where
 * the runtime has no such figure (a fake `performance`), the wall clock: every ms counts, as before.
 */
export function loopWaitedMs(): number {
	return typeof performance.eventLoopUtilization === 'function' ? performance.eventLoopUtilization().idle : Date.now();
}

/** Waiting time counted at the start of bounds shared by several calls (a trigger poll), by the bound's start. */
const marks = new Map<number, number>();
const MAX_MARKS = 256;

/**
 * The waiting time counted at wall time `startedAt` (epoch ms, just past): taken by the first call of a bound that
 * asks (as if the loop had waited since `startedAt`), and kept, so every call of one trigger poll counts from the
 * poll's start, and the node's own work between its calls is not counted either.
 */
export function waitedAtStart(startedAt: number, waited: () => number, now = Date.now()): number {
	let mark = marks.get(startedAt);
	if (mark === undefined) {
		mark = waited() - Math.max(0, now - startedAt);
		marks.set(startedAt, mark);
		if (marks.size > MAX_MARKS) marks.delete(marks.keys().next().value as number);
	}
	return mark;
}

/**
 * The wall time a limit may stretch to, as a multiple of it. Waiting time leaves n8n's busy time out, and an n8n whose
 * loop is almost never idle (other workflows at work) would stretch a limit without end: every attempt, call and poll
 * still ends within this many times its limit, however busy n8n is (docs/guarantees.md, "Deadlines").
 */
export const wallCeiling = { factor: 3 };

/** The wall time (epoch ms) by which a bound of `limitMs` begun at `startedAt` ends, however busy n8n is. */
export function wallCeilingAt(startedAt: number, limitMs: number): number {
	return startedAt + limitMs * wallCeiling.factor;
}

/** The reason every late attempt aborts its signal with: abort() without one builds a DOMException and its stack. */
const ATTEMPT_OVER = new Error('the attempt is over');

/** How a reader learns that its attempt is over. */
export interface StopNotice {
	readonly stopped: boolean;
	/** The one listener told when the attempt stops (a reader at a time); undefined removes it. */
	listen(listener: (() => void) | undefined): void;
}

/** One attempt's end: the helper's signal (built only when asked for), and the reader's listener, told once. */
export class AttemptStop implements StopNotice {
	stopped = false;
	private controller: AbortController | undefined;
	private listener: (() => void) | undefined;

	get signal(): AbortSignal {
		this.controller ??= new AbortController();
		if (this.stopped) this.controller.abort(ATTEMPT_OVER);
		return this.controller.signal;
	}

	listen(listener: (() => void) | undefined): void {
		this.listener = listener;
	}

	stop(): void {
		if (this.stopped) return;
		this.stopped = true;
		this.controller?.abort(ATTEMPT_OVER);
		const listener = this.listener;
		this.listener = undefined;
		listener?.();
	}
}

interface Deadline {
	/** The earliest wall time (epoch ms) it could be due: waiting time never runs faster than the wall clock. */
	at: number;
	/** The latest wall time (epoch ms) it can be due: wallCeiling.factor times its limit after it was added, or the ceiling it was given. */
	ceiling: number;
	/** Waiting time it allows, and the waiting time counted when it was added. */
	limitMs: number;
	waitedAtStart: number;
	late: () => void;
	done: boolean;
}

/** Finished entries kept before they are swept out (when they are also half the list): removal stays O(1) amortised. */
const SWEEP_AFTER = 64;

export class DeadlineClock {
	private entries: Deadline[] = [];
	private finishedCount = 0;
	private wakeAt = Infinity;
	/** Which sleep is the current one: an earlier deadline replaces a pending sleep, the replaced one wakes to nothing. */
	private generation = 0;
	private sleeper = new AbortController();

	/** `waited`: the waiting time counted (by default the event loop's idle time; a test may give its own clock). */
	constructor(
		private readonly now: () => number = Date.now,
		readonly waited: () => number = loopWaitedMs,
	) {}

	/**
	 * Calls `late` once `limitMs` of waiting time (or wallCeiling.factor times it in wall time) have passed, unless
	 * `finish` comes first; never past `ceilingAt` (epoch ms), the wall ceiling of the call and poll the attempt is
	 * part of: an attempt started just before its call's ceiling ends at the call's ceiling, not three limits later.
	 */
	add(limitMs: number, late: () => void, ceilingAt = Infinity): Deadline {
		const now = this.now();
		const ceiling = Math.min(wallCeilingAt(now, limitMs), ceilingAt);
		const entry = { at: Math.min(now + limitMs, ceiling), ceiling, limitMs, waitedAtStart: this.waited(), late, done: false };
		this.entries.push(entry);
		if (entry.at < this.wakeAt) this.schedule(entry.at);
		return entry;
	}

	finish(entry: Deadline): void {
		if (entry.done) return;
		entry.done = true;
		this.finishedCount++;
		if (this.finishedCount > SWEEP_AFTER && this.finishedCount * 2 > this.entries.length) this.sweep();
	}

	/** Entries kept: the pending, and finished ones until swept (past SWEEP_AFTER, never more than the pending again). */
	get held(): number {
		return this.entries.length;
	}

	/** Deadlines not finished nor passed. */
	get pending(): number {
		return this.entries.length - this.finishedCount;
	}

	/** The run is over: with nothing pending, the sleep ends now rather than at the last deadline. */
	close(): void {
		if (this.pending > 0) return;
		this.sweep();
		this.wakeAt = Infinity;
		this.generation++;
		this.sleeper.abort();
		this.sleeper = new AbortController();
	}

	private schedule(at: number): void {
		this.wakeAt = at;
		const generation = ++this.generation;
		sleep(Math.max(0, at - this.now()), this.sleeper.signal).then(
			() => {
				if (generation === this.generation) this.wake();
			},
			() => undefined,
		);
	}

	private wake(): void {
		this.wakeAt = Infinity;
		const now = this.now();
		const waited = this.waited();
		const due: Deadline[] = [];
		for (const entry of this.entries) {
			if (entry.done || entry.at > now) continue;
			const left = entry.limitMs - (waited - entry.waitedAtStart);
			// Busy time of the loop does not count: the entry is due once it waited its whole limit, or at its ceiling.
			if (left <= 0 || now >= entry.ceiling) {
				entry.done = true;
				due.push(entry);
			} else entry.at = Math.min(now + left, entry.ceiling);
		}
		this.sweep();
		const next = this.entries.reduce((soonest, entry) => Math.min(soonest, entry.at), Infinity);
		if (next !== Infinity) this.schedule(next);
		for (const entry of due) entry.late();
	}

	/** Drops finished and passed entries. */
	private sweep(): void {
		this.entries = this.entries.filter((entry) => !entry.done);
		this.finishedCount = 0;
	}
}
