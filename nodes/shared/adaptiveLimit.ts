/**
 * How many requests a version 2 node keeps in flight, and the slots that hold them to it.
 *
 * The limit counts requests, not items: an item asks for a slot for each request it sends and holds none between
 * them (a wait sleeping until its next read holds nothing), so a batch of waits submits every job at once.
 *
 * AdaptiveLimit is an AIMD limit, as TCP paces its window: it starts at its first burst (firstBurst: the bound for
 * reads, INITIAL_IN_FLIGHT for submissions), grows by one per ok answer (doubling per round trip) up to its bound,
 * then, after the first cut, by one per round trip. It is cut by the service's word only: a 429, a 503, a timeout or
 * a dropped connection halves it (once per round trip), and a Retry-After holds every new request, not only new
 * items, for that long. How long an answer took is not read as load: it holds n8n's own queueing too (on a busy n8n
 * host the event loop reads every answer late), and nothing in an answer tells the two apart, while a service that
 * queues past what it can take says so (429, 503) or stalls into a timeout, and both cut. Pure: the clock is passed in.
 */
import { sleep } from 'n8n-workflow';

/** What one answer says about the service's load. */
export type AnswerSignal =
	/** A success, or a refusal of the request itself (4xx but 429). */
	| 'ok'
	/** 429, 503, a timeout or a dropped connection: the service is overwhelmed. */
	| 'busy'
	/** No answer, an unusable one or a server error: no change. */
	| 'neutral';

/**
 * A request's number: answers to requests sent before the last cut neither cut again (one cut per round trip, not
 * one per request of the same burst) nor grow the limit back.
 */
export interface PaceTicket {
	seq: number;
}

/** The transport asks this for a slot before each attempt and reports how it went (ResolvedConnection.pace). */
export interface RequestPace {
	/** A slot at once, when one is free and no request waits for one; else undefined (ask slot()). */
	takeNow(): PaceTicket | undefined;
	/** Resolves when the request may be sent; undefined when the execution was cancelled (send nothing). */
	slot(): Promise<PaceTicket | undefined>;
	/** The attempt ended: its slot is free, and what it said about the service is heard. */
	answered(ticket: PaceTicket, signal: AnswerSignal, retryAfterMs?: number): void;
}

/**
 * Submissions in flight at the start, before any answer says how the service copes: six, the connections a browser
 * opens to one host (HTTP/1.1 practice in Chrome, Firefox and Safari), which any web service takes from one client.
 * A refused submission is never sent again (it may have created a job), so its first burst is kept that small; a
 * service that cannot take it answers 429 or 503, and the limit halves after one round trip.
 */
export const INITIAL_IN_FLIGHT = 6;
/**
 * Where a limit of submissions starts (firstBurst). The bench sets it to the bound for one contender (to tell the
 * ramp's share of the time per item); the nodes never change it.
 */
export const limitStart = { inFlight: INITIAL_IN_FLIGHT };

/**
 * The first burst of a batch under `bound`, by what a refusal costs. Reads start at the bound: a refused read is read
 * again after its backoff, and the limit halves once per round trip on the refusals, so a burst the service cannot
 * take costs retries, never a job (and a batch of reads meets no ramp). Submissions start at INITIAL_IN_FLIGHT.
 */
export function firstBurst(bound: number, readsOnly: boolean): number {
	return readsOnly ? bound : Math.min(bound, limitStart.inFlight);
}
/** The bound of version 2's default: never more requests in flight than this. */
export const DEFAULT_MAX_IN_FLIGHT = 50;
/**
 * The most items of one execution started and not yet ended (version 2): a wait sleeping between its reads holds
 * no slot but holds its item, so a batch of that many waits has every job submitted at once; beyond it, items start
 * as others end, and 10,000 items never all hold memory at once.
 */
export const MAX_ITEMS_AT_ONCE = 1000;
/** The longest pause a Retry-After imposes on new requests (a longer one fails the calls that meet it, saying when). */
export const MAX_PAUSE_MS = 60_000;

export class AdaptiveLimit {
	private limit: number;
	/** Requests sent so far; the count at the last halving. */
	private sentCount = 0;
	private lastHalving = 0;
	private halved = false;
	private pausedUntil = 0;

	constructor(
		/** The most in flight, whatever the answers say. */
		readonly max: number,
		private readonly now: () => number = Date.now,
		initial = limitStart.inFlight,
	) {
		this.limit = Math.max(1, Math.min(initial, max));
	}

	/** How many may be in flight now (a whole number from 1 to max). */
	allowed(): number {
		return Math.max(1, Math.min(this.max, Math.floor(this.limit)));
	}

	/** Milliseconds until new requests may start (a Retry-After), 0 when they may start now. */
	pauseLeft(): number {
		return Math.max(0, this.pausedUntil - this.now());
	}

	sent(): PaceTicket {
		return { seq: this.sentCount++ };
	}

	answered(ticket: PaceTicket, signal: AnswerSignal, retryAfterMs?: number): void {
		if (signal === 'neutral') return;
		if (signal === 'busy') {
			if (retryAfterMs !== undefined && retryAfterMs <= MAX_PAUSE_MS) this.pausedUntil = Math.max(this.pausedUntil, this.now() + retryAfterMs);
			if (ticket.seq >= this.lastHalving) {
				this.halved = true;
				this.lastHalving = this.sentCount;
				this.limit = Math.max(1, this.limit / 2);
			}
			return;
		}
		// Answers to requests sent before the last cut do not undo it.
		if (ticket.seq < this.lastHalving) return;
		// Slow start: +1 per answer doubles the limit per round trip; after a cut, +1 per round trip.
		this.limit = Math.min(this.max, this.limit + (this.halved ? 1 / this.limit : 1));
	}
}

/** How slots wait out a Retry-After (n8n's sleep; tests pass their own). */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * The slots of one execution: a request is sent when fewer than `limit.allowed()` are in flight and no Retry-After
 * lasts; the others wait in the order they asked. A slot freed, or a limit grown, lets waiters go at once. Once the
 * execution is cancelled every waiter is let go without a slot, to send nothing.
 */
export class InFlightLimit implements RequestPace {
	private inFlight = 0;
	private readonly waiters: Array<(ticket: PaceTicket | undefined) => void> = [];
	private pauseTimer: Promise<void> | undefined;
	private change: { promise: Promise<void>; resolve: () => void } | undefined;

	constructor(
		readonly limit: AdaptiveLimit,
		private readonly cancel?: AbortSignal,
		private readonly wait: Sleep = sleep,
	) {
		cancel?.addEventListener('abort', () => this.letGo(), { once: true });
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

	async slot(): Promise<PaceTicket | undefined> {
		if (this.cancel?.aborted) return undefined;
		const now = this.takeNow();
		if (now) return now;
		const ticket = new Promise<PaceTicket | undefined>((resolve) => this.waiters.push(resolve));
		this.pump();
		this.changed();
		return await ticket;
	}

	answered(ticket: PaceTicket, signal: AnswerSignal, retryAfterMs?: number): void {
		this.inFlight--;
		this.limit.answered(ticket, signal, retryAfterMs);
		this.pump();
		this.changed();
	}

	private free(): boolean {
		return this.inFlight < this.limit.allowed() && this.limit.pauseLeft() === 0;
	}

	private take(): PaceTicket {
		this.inFlight++;
		return this.limit.sent();
	}

	/** Lets waiters go while there is room; during a pause, one sleep for all of them. */
	private pump(): void {
		if (this.cancel?.aborted) return this.letGo();
		while (this.waiters.length > 0 && this.free()) this.waiters.shift()?.(this.take());
		const pause = this.limit.pauseLeft();
		if (this.waiters.length === 0 || pause === 0 || this.pauseTimer) return;
		this.pauseTimer = this.wait(pause, this.cancel)
			.catch(() => undefined)
			.then(() => {
				this.pauseTimer = undefined;
				this.pump();
				this.changed();
			});
	}

	private letGo(): void {
		for (const waiter of this.waiters.splice(0)) waiter(undefined);
		this.changed();
	}
}
