import { sleep } from 'n8n-workflow';

/**
 * Ends attempts at their deadlines with one n8n sleep for all the attempts of a run, instead of a sleep, a race and
 * an AbortSignal per attempt: in Node 20 an AbortSignal listener costs microseconds to add, remove or fire, and a
 * node reading 1,000 items paid that for every one of them. Attempts and their readers hear of the end through
 * plain callbacks (AttemptStop); only the request helper gets a real AbortSignal, aborted when an attempt is late.
 */

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
	at: number;
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

	constructor(private readonly now: () => number = Date.now) {}

	/** Calls `late` at `at` (epoch ms) unless `finish` comes first. */
	add(at: number, late: () => void): Deadline {
		const entry = { at, late, done: false };
		this.entries.push(entry);
		if (at < this.wakeAt) this.schedule(at);
		return entry;
	}

	finish(entry: Deadline): void {
		if (entry.done) return;
		entry.done = true;
		this.finishedCount++;
		if (this.finishedCount > SWEEP_AFTER && this.finishedCount * 2 > this.entries.length) this.sweep();
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
		const due = this.entries.filter((entry) => !entry.done && entry.at <= now);
		for (const entry of due) entry.done = true;
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
