/**
 * How many requests a version 2 node keeps in flight, and the slots that hold them to it.
 *
 * The limit counts requests, not items: an item asks for a slot for each request it sends and holds none between
 * them (a wait sleeping until its next read holds nothing), so a batch of waits submits every job at once.
 *
 * AdaptiveLimit is a loss-based limit, as TCP paces its window and as Netflix's concurrency-limits recommends for a
 * client (its AIMD), with five changes for a batch: (1) a cut needs a rate of busy answers, not one (a lone 503 among
 * ok answers is an error, not overload: BUSY_SHARE_TO_CUT of a window of answers); (2) a cut goes to the share the
 * service answered ok, or to the requests it is still working on if more, not to half; (3) growth past a cut's level
 * is a probe, taken back one step by a busy answer and held for a window, so the limit stays at what the service
 * takes instead of refusing a request each round;
 * (4) a Retry-After pauses new requests once per burst, and the node resumes at the number of that burst the service
 * accepted, never growing past it again; (5) a refusal a cut has answered is resent at its next slot, its retry
 * delay cut short (withdrawn, backOff): the cut is its backoff, and a delay would only hold its item past the batch's
 * end. It starts at its first burst (firstBurst), grows by one per ok answer
 * (doubling per round trip) up to its bound, and by one per round trip after a cut. How
 * long an answer took is not read as load: on a busy n8n host most of a round trip is n8n's own queueing, and nothing
 * in an answer tells the two apart, while a service that queues past what it can take says so (429, 503) or stalls
 * into a timeout. Pure: the clock is passed in.
 */
import { sleep } from 'n8n-workflow';

import type { AnswerBudget, AnswerHold } from './answerBudget';

/** What one answer says about the service's load. */
export type AnswerSignal =
	/** A success, or a refusal of the request itself (4xx but 429). */
	| 'ok'
	/** 429, 503, a timeout or a dropped connection: the service is overwhelmed. */
	| 'busy'
	/** No answer, an unusable one or a server error: no change. */
	| 'neutral';

/**
 * A request's number: answers to requests sent before the last cut neither cut again (one cut per window of answers,
 * not one per request of the same burst) nor grow the limit back.
 */
export interface PaceTicket {
	seq: number;
	/** The limit when it was sent (a probe past the last cut's level is told by it). */
	atLimit?: number;
	/** Its share of the execution's answer budget (answerBudget.ts), given back when it is answered. */
	answer?: AnswerHold;
}

/** No slot: a Retry-After pause lasts longer than the call can wait (`refusedFor` ms), so it fails now, saying when. */
export interface PaceRefusal {
	refusedFor: number;
	/** The status of the answer that asked for the pause (429 or 503). */
	statusCode: number;
}

/** The transport asks this for a slot before each attempt and reports how it went (ResolvedConnection.pace). */
export interface RequestPace {
	/** A slot at once, when one is free and no request waits for one; else undefined (ask slot()). */
	takeNow(): PaceTicket | undefined;
	/**
	 * Resolves when the request may be sent; undefined when the execution was cancelled (send nothing); a refusal
	 * when a pause would outlast `pauseBudgetMs`, the time the call may still spend waiting on the service.
	 */
	slot(pauseBudgetMs?: number): Promise<PaceTicket | PaceRefusal | undefined>;
	/** The attempt ended: its slot is free, and what it said about the service is heard. */
	answered(ticket: PaceTicket, signal: AnswerSignal, retryAfterMs?: number, statusCode?: number): void;
	/** The limit has come down below what it was when `ticket` was sent: a cut answered its overload (withdrawn()). */
	withdrawn(ticket: PaceTicket): boolean;
	/** A busy refusal's retry delay: `ms`, or less, ending when a cut withdraws `ticket` (or the execution is cancelled). */
	backOff(ticket: PaceTicket, ms: number, cancel?: AbortSignal): Promise<void>;
}

/**
 * Submissions in flight at the start, before any answer says how the service copes: six, the connections a browser
 * opens to one host (HTTP/1.1 practice in Chrome, Firefox and Safari), which any web service takes from one client.
 * A submission that may have created a job is never sent again, so its first burst is kept that small (issue 34).
 */
export const INITIAL_IN_FLIGHT = 6;
/**
 * Where a limit of submissions starts (firstBurst). The bench sets it to the bound for one contender (to tell the
 * ramp's share of the time per item); the nodes never change it.
 */
export const limitStart = { inFlight: INITIAL_IN_FLIGHT };

/**
 * Reads in flight at the start: version 2's fixed bound before the limit could grow past it. A refused read is read
 * again, but each refusal spends one of its call's retries: a first burst of 1,000 against a service that takes 8
 * would spend one of every item's at once, while from 50 the limit doubles per round trip to 1,000 within 5.
 */
export const INITIAL_READS_IN_FLIGHT = 50;

/**
 * The first burst of a batch under `bound`, by what a refusal costs: reads at INITIAL_READS_IN_FLIGHT (a refused read
 * is read again after its backoff, never a job), submissions at INITIAL_IN_FLIGHT; never past the bound.
 */
export function firstBurst(bound: number, readsOnly: boolean): number {
	return Math.min(bound, readsOnly ? INITIAL_READS_IN_FLIGHT : limitStart.inFlight);
}
/**
 * The most items of one execution started and not yet ended (version 2): a wait sleeping between its reads holds
 * no slot but holds its item, so a batch of that many waits has every job submitted at once; beyond it, items start
 * as others end, and 10,000 items never all hold memory at once.
 */
export const MAX_ITEMS_AT_ONCE = 1000;
/**
 * The bound of version 2's default (Concurrency not set): an item has one request in flight at a time, so no more
 * than MAX_ITEMS_AT_ONCE can be, and a batch of 1,000 items is never held back by the bound, only by the service.
 */
export const DEFAULT_MAX_IN_FLIGHT = MAX_ITEMS_AT_ONCE;
/** The longest pause a Retry-After imposes on new requests (a longer one fails the calls that meet it, saying when). */
export const MAX_PAUSE_MS = 60_000;
/**
 * What a call must keep after waiting out a pause for the wait to be of use: an attempt needs time to be answered.
 * A request whose call would keep less is refused at once (it fails, saying when), never sent at the last moment.
 */
export const MIN_LEFT_AFTER_PAUSE_MS = 1000;
/** The window a cut reads: the last answers to requests sent since the last cut, at least this many (or the limit). */
export const MIN_WINDOW = 20;
/** A cut needs more than this share of the window busy, and at least MIN_BUSY_TO_CUT busy answers in it. */
export const BUSY_SHARE_TO_CUT = 1 / 5;
export const MIN_BUSY_TO_CUT = 2;

/** What a Retry-After pause remembers: the burst it answers and how much of it the service accepted. */
interface Pause {
	/** Requests with seq below `until` (and from `from` on) were the burst in flight when the pause began. */
	from: number;
	until: number;
	accepted: number;
	statusCode: number;
}

export class AdaptiveLimit {
	private limit: number;
	/** Requests sent so far, and the count at the last cut: answers to earlier requests neither cut nor grow it. */
	private sentCount = 0;
	private lastCut = 0;
	private cut = false;
	/** The level the last cut went to: growth past it is a probe, taken back by one busy answer. */
	private cutLevel = 0;
	/** No growth from answers to requests sent before this one (a probe was taken back: a window of answers first). */
	private growFrom = 0;
	/** The most the limit may grow to after a Retry-After: what the service accepted then. */
	private ceiling: number;
	/** Answers to requests sent since the last cut, oldest first (true: busy), at most windowSize() of them. */
	private window: Array<{ seq: number; busy: boolean }> = [];
	/** Requests sent and not answered yet, and the newest one a status answer refused since the last cut. */
	private readonly unanswered = new Set<number>();
	private newestRefused = -1;
	private busyInWindow = 0;
	private pausedUntil = 0;
	private pause: Pause | undefined;
	/** Requests sent before this one belong to the burst of the last pause: their Retry-After pauses nothing again. */
	private pauseSeq = 0;
	private pauseStatus = 429;

	constructor(
		/** The most in flight, whatever the answers say. */
		readonly max: number,
		readonly now: () => number = Date.now,
		initial = limitStart.inFlight,
	) {
		this.limit = Math.max(1, Math.min(initial, max));
		this.ceiling = max;
	}

	/** How many may be in flight now (a whole number from 1 to max). */
	allowed(): number {
		this.resume();
		return Math.max(1, Math.min(this.max, Math.floor(this.limit)));
	}

	/** Milliseconds until new requests may start (a Retry-After), 0 when they may start now. */
	pauseLeft(): number {
		this.resume();
		return Math.max(0, this.pausedUntil - this.now());
	}

	/** The status of the answer that asked for the last pause. */
	pausedBy(): number {
		return this.pauseStatus;
	}

	sent(): PaceTicket {
		this.unanswered.add(this.sentCount);
		return { seq: this.sentCount++, atLimit: Math.floor(this.limit) };
	}

	/**
	 * The limit allows fewer than when `ticket` was sent: a cut (or a probe taken back) has answered the overload its
	 * refusal was part of. Resent at its next slot, under the lower limit, it needs no backoff of its own: the cut is it.
	 */
	withdrawn(ticket: PaceTicket): boolean {
		return ticket.atLimit !== undefined && this.allowed() < ticket.atLimit;
	}

	answered(ticket: PaceTicket, signal: AnswerSignal, retryAfterMs?: number, statusCode?: number): void {
		this.unanswered.delete(ticket.seq);
		this.resume();
		if (signal === 'neutral') return;
		const pause = this.pause;
		if (pause && signal === 'ok' && ticket.seq >= pause.from && ticket.seq < pause.until) pause.accepted++;
		if (signal === 'busy' && retryAfterMs !== undefined && retryAfterMs > 0 && retryAfterMs <= MAX_PAUSE_MS && ticket.seq >= this.pauseSeq) {
			this.startPause(retryAfterMs, statusCode ?? 429);
		}
		// Answers to requests sent before the last cut (or pause) neither cut again nor undo it.
		if (ticket.seq < this.lastCut) return;
		this.window.push({ seq: ticket.seq, busy: signal === 'busy' });
		if (signal === 'busy' && statusCode !== undefined) this.newestRefused = Math.max(this.newestRefused, ticket.seq);
		if (signal === 'busy') this.busyInWindow++;
		if (this.window.length > this.windowSize() && this.window.shift()?.busy) this.busyInWindow--;
		if (this.cutOnRate()) return;
		if (signal === 'busy') return this.probeRefused(ticket);
		if (ticket.seq < this.growFrom) return;
		// Slow start: +1 per answer doubles the limit per round trip; after a cut, +1 per round trip.
		this.limit = Math.min(this.max, this.ceiling, this.limit + (this.cut ? 1 / this.limit : 1));
	}

	/**
	 * After a cut, growth past its level probes the service: a busy answer to a request sent above that level takes
	 * the limit back to one below the level it was sent at (never below the cut's level, so a lone one cuts nothing
	 * the service took) and holds growth for a window of answers, so the limit stays at what the service takes.
	 */
	private probeRefused(ticket: PaceTicket): void {
		const at = ticket.atLimit ?? Infinity;
		if (!this.cut || at <= this.cutLevel) return;
		this.limit = Math.max(this.cutLevel, Math.min(this.limit, at - 1));
		this.growFrom = this.sentCount + this.windowSize();
	}

	private windowSize(): number {
		return Math.max(MIN_WINDOW, Math.floor(this.limit));
	}

	/**
	 * A rate of busy answers cuts the limit to what the service took: the share answered ok, or the requests still in
	 * flight that were sent before one it has already refused, if more (a service that refuses what it cannot take at
	 * once answers those refusals before the work it took: a burst's fast refusals fill the window while the requests
	 * it accepted are still at work). A lone busy answer, or a thin window, cuts nothing.
	 */
	private cutOnRate(): boolean {
		const busy = this.busyInWindow;
		const enough = this.window.length >= Math.min(MIN_WINDOW, Math.floor(this.limit));
		if (this.pause || !enough || busy < MIN_BUSY_TO_CUT || busy <= BUSY_SHARE_TO_CUT * this.window.length) return false;
		this.cutTo(Math.max(this.limit * (1 - busy / this.window.length), this.takenBeforeRefused()));
		return true;
	}

	/** Requests in flight sent before the newest one the service refused since the last cut: the work it took. */
	private takenBeforeRefused(): number {
		let taken = 0;
		for (const seq of this.unanswered) if (seq < this.newestRefused) taken++;
		return taken;
	}

	private cutTo(limit: number): void {
		this.limit = Math.max(1, Math.min(this.limit, limit));
		this.cutLevel = Math.floor(this.limit);
		this.cut = true;
		this.lastCut = this.sentCount;
		this.window = [];
		this.busyInWindow = 0;
		this.newestRefused = -1;
	}

	/** One pause per burst: the ok answers of the requests then in flight (the last `allowed()` sent) are counted. */
	private startPause(retryAfterMs: number, statusCode: number): void {
		const from = this.sentCount - Math.floor(this.limit);
		const accepted = this.window.filter((answer) => !answer.busy && answer.seq >= from).length;
		this.pause = { from, until: this.sentCount, accepted, statusCode };
		this.pauseSeq = this.sentCount;
		this.pauseStatus = statusCode;
		this.pausedUntil = this.now() + retryAfterMs;
		this.cutTo(this.limit);
	}

	/** Once a pause is over the limit is what the service accepted of its burst, and never grows past it again. */
	private resume(): void {
		const pause = this.pause;
		if (!pause || this.now() < this.pausedUntil) return;
		this.pause = undefined;
		if (pause.accepted > 0) this.ceiling = Math.min(this.ceiling, pause.accepted);
		this.cutTo(Math.max(1, Math.min(this.ceiling, pause.accepted)));
		this.limit = Math.max(1, Math.min(this.ceiling, pause.accepted));
		this.cutLevel = Math.floor(this.limit);
	}
}

/** How slots wait out a Retry-After (n8n's sleep; tests pass their own). */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** A request waiting for a slot, and how long it may still wait out pauses (its call's time on the service). */
interface Waiter {
	go: (slot: PaceTicket | PaceRefusal | undefined) => void;
	pauseBudget: number;
}

/**
 * The slots of one execution: a request is sent when fewer than `limit.allowed()` are in flight and no Retry-After
 * lasts; the others wait in the order they asked. A slot freed, or a limit grown, lets waiters go at once. A pause
 * longer than a waiter's call can wait refuses that waiter at once (the call fails saying when), so a batch whose
 * every answer asks for such a pause ends within about one pause. With an answer budget, a slot also takes the
 * request's estimate of its answer (answerBudget.ts): a request whose estimate does not fit waits for its slot. Once
 * the execution is cancelled every waiter is let go without a slot, to send nothing.
 */
export class InFlightLimit implements RequestPace {
	private inFlight = 0;
	private readonly waiters: Waiter[] = [];
	private pauseTimer: Promise<void> | undefined;
	private change: { promise: Promise<void>; resolve: () => void } | undefined;
	/** Busy refusals waiting out their retry delay, each woken early once a cut withdraws its request. */
	private readonly backingOff = new Map<PaceTicket, () => void>();

	constructor(
		readonly limit: AdaptiveLimit,
		private readonly cancel?: AbortSignal,
		private readonly wait: Sleep = sleep,
		private readonly answers?: AnswerBudget,
	) {
		cancel?.addEventListener('abort', () => this.letGo(), { once: true });
		if (answers)
			answers.onFreed = () => {
				this.pump();
				this.changed();
			};
	}

	/** How many requests may be in flight now: the limit, and no more estimates than the answer budget holds. */
	room(): number {
		return Math.min(this.limit.allowed(), this.answers?.room() ?? Infinity);
	}

	/** Requests sent and not yet answered. */
	running(): number {
		return this.inFlight;
	}

	/** Requests waiting for a slot. */
	waiting(): number {
		return this.waiters.length;
	}

	/** Resolves at the next request that asks for a slot, gets one or ends, or at changed(): the item loop's cue. */
	async nextChange(): Promise<void> {
		if (!this.change) {
			let resolve = () => {};
			const promise = new Promise<void>((done) => (resolve = done));
			this.change = { promise, resolve };
		}
		return await this.change.promise;
	}

	changed(): void {
		const change = this.change;
		this.change = undefined;
		change?.resolve();
	}

	takeNow(): PaceTicket | undefined {
		if (this.cancel?.aborted || this.waiters.length > 0 || !this.free()) return undefined;
		this.changed();
		return this.take();
	}

	async slot(pauseBudgetMs = Infinity): Promise<PaceTicket | PaceRefusal | undefined> {
		if (this.cancel?.aborted) return undefined;
		const now = this.takeNow();
		if (now) return now;
		// Joining a pause that has begun: its budget meets the rest of it now (the waiters then were met at its start).
		const pause = this.pauseTimer ? this.limit.pauseLeft() : 0;
		if (pause > 0 && pauseBudgetMs - pause < MIN_LEFT_AFTER_PAUSE_MS) return { refusedFor: pause, statusCode: this.limit.pausedBy() };
		const ticket = new Promise<PaceTicket | PaceRefusal | undefined>((go) => this.waiters.push({ go, pauseBudget: pauseBudgetMs - pause }));
		this.pump();
		this.changed();
		return await ticket;
	}

	withdrawn(ticket: PaceTicket): boolean {
		return this.limit.withdrawn(ticket);
	}

	async backOff(ticket: PaceTicket, ms: number, cancel?: AbortSignal): Promise<void> {
		if (this.limit.withdrawn(ticket) || cancel?.aborted) return;
		const early = new AbortController();
		const wake = () => early.abort();
		cancel?.addEventListener('abort', wake, { once: true });
		this.backingOff.set(ticket, wake);
		try {
			await this.wait(ms, early.signal).catch(() => undefined);
		} finally {
			this.backingOff.delete(ticket);
			cancel?.removeEventListener('abort', wake);
		}
	}

	answered(ticket: PaceTicket, signal: AnswerSignal, retryAfterMs?: number, statusCode?: number): void {
		this.inFlight--;
		this.limit.answered(ticket, signal, retryAfterMs, statusCode);
		ticket.answer?.release();
		// A cut ends the delays of the refusals it answered: they are resent under the lower limit (withdrawn).
		for (const [waiting, wake] of this.backingOff) if (this.limit.withdrawn(waiting)) wake();
		this.pump();
		this.changed();
	}

	private free(): boolean {
		return this.inFlight < this.limit.allowed() && this.limit.pauseLeft() === 0 && (this.answers?.fits() ?? true);
	}

	private take(): PaceTicket {
		this.inFlight++;
		const ticket = this.limit.sent();
		if (this.answers) ticket.answer = this.answers.take();
		return ticket;
	}

	/** Lets waiters go while there is room; during a pause, one sleep for all of them. */
	private pump(): void {
		if (this.cancel?.aborted) return this.letGo();
		while (this.waiters.length > 0 && this.free()) this.waiters.shift()?.go(this.take());
		const pause = this.limit.pauseLeft();
		if (this.waiters.length === 0 || pause === 0 || this.pauseTimer) return;
		this.refuseBeyond(pause);
		this.pauseTimer = this.wait(pause, this.cancel)
			.catch(() => undefined)
			.then(() => {
				this.pauseTimer = undefined;
				this.pump();
				this.changed();
			});
	}

	/** At a pause's start: each waiter either waits it out (its budget spent by as much) or, too short for it, is refused now. */
	private refuseBeyond(pause: number): void {
		const refusal: PaceRefusal = { refusedFor: pause, statusCode: this.limit.pausedBy() };
		for (const waiter of this.waiters.splice(0)) {
			if (waiter.pauseBudget - pause < MIN_LEFT_AFTER_PAUSE_MS) {
				waiter.go(refusal);
				continue;
			}
			waiter.pauseBudget -= pause;
			this.waiters.push(waiter);
		}
		this.changed();
	}

	private letGo(): void {
		for (const waiter of this.waiters.splice(0)) waiter.go(undefined);
		this.changed();
	}
}
