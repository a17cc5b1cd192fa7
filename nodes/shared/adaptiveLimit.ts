/**
 * How many requests a version 2 node keeps in flight: an AIMD limit, as TCP paces its window. It starts small,
 * doubles per round trip while answers come back fast and ok, then grows by one per round trip; it stops growing
 * while answers are slow (the service, or n8n itself, is queueing) and halves on a 429, a 503 or a timeout. It
 * never passes its bound, and after a Retry-After nothing new starts until that time. Pure: the clock is passed in.
 * A slow answer holds the limit rather than cutting it: on a busy n8n host every answer looks slow, and cutting then
 * would fall to one at a time while the service is idle; the service's own refusals and timeouts cut it.
 */

/** What one answer says about the service's load. */
export type AnswerSignal =
	/** A success, or a refusal of the request itself (4xx but 429): its time counts. */
	| 'ok'
	/** 429, 503, a timeout or a dropped connection: the service is overwhelmed. */
	| 'busy'
	/** No answer, an unusable one or a server error: no change. */
	| 'neutral';

/**
 * When a request left, and its number: answers to requests sent before the last cut neither cut again (one cut
 * per round trip, not one per request of the same burst) nor grow the limit back.
 */
export interface PaceTicket {
	sentAt: number;
	seq: number;
}

/** The transport reports every attempt to this (ResolvedConnection.pace). */
export interface RequestPace {
	sent(): PaceTicket;
	answered(ticket: PaceTicket, signal: AnswerSignal, retryAfterMs?: number): void;
}

/** Requests in flight at the start, before any answer says how fast the service is. */
export const INITIAL_IN_FLIGHT = 4;
/** The bound of version 2's default: never more requests in flight than this. */
export const DEFAULT_MAX_IN_FLIGHT = 50;
/** An answer is slow (the limit stops growing) past twice the fastest seen plus this (ms): jitter on a LAN is not load. */
const SLOW_SLACK_MS = 10;
/** The longest pause a Retry-After imposes on items not started yet (a longer one fails the calls that meet it, saying when). */
export const MAX_PAUSE_MS = 60_000;

export class AdaptiveLimit implements RequestPace {
	private limit: number;
	/** Requests sent so far; the count at the last cut of any kind, and at the last halving. */
	private sentCount = 0;
	private lastCut = 0;
	private lastHalving = 0;
	private slowStart = true;
	private fastestMs = Infinity;
	private pausedUntil = 0;

	constructor(
		/** The most in flight, whatever the answers say. */
		readonly max: number,
		private readonly now: () => number = Date.now,
		initial = INITIAL_IN_FLIGHT,
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
		return { sentAt: this.now(), seq: this.sentCount++ };
	}

	answered(ticket: PaceTicket, signal: AnswerSignal, retryAfterMs?: number): void {
		if (signal === 'neutral') return;
		if (signal === 'busy') {
			if (retryAfterMs !== undefined && retryAfterMs <= MAX_PAUSE_MS) this.pausedUntil = Math.max(this.pausedUntil, this.now() + retryAfterMs);
			// A slowdown cut before does not spare the halving: only an earlier halving does.
			if (ticket.seq >= this.lastHalving) {
				this.cut(0.5);
				this.lastHalving = this.sentCount;
			}
			return;
		}
		const tookMs = this.now() - ticket.sentAt;
		this.fastestMs = Math.min(this.fastestMs, tookMs);
		if (tookMs > 2 * this.fastestMs + SLOW_SLACK_MS) {
			this.slowStart = false;
			return;
		}
		// Answers to requests sent before the last cut do not undo it.
		if (ticket.seq < this.lastCut) return;
		// Slow start: +1 per answer doubles the limit per round trip; after it, +1 per round trip.
		this.limit = Math.min(this.max, this.limit + (this.slowStart ? 1 : 1 / this.limit));
	}

	private cut(factor: number): void {
		this.slowStart = false;
		this.lastCut = this.sentCount;
		this.limit = Math.max(1, this.limit * factor);
	}
}
