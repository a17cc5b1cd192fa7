/**
 * The answer bytes one version 2 execution reads at once, across all its requests in flight.
 *
 * More requests in flight must not mean more memory without end: 1,000 job answers of up to 4 MiB each would be
 * 4 GiB. A request reserves its answer's likely size with its slot, before it is sent (InFlightLimit, adaptiveLimit.ts):
 * the largest job answer of the execution so far, at least the first estimate. One whose estimate does not fit waits
 * for its slot, unsent, as under the in-flight limit: an answer never waits, unread, on its call's time for others'.
 * Once an answer's headers are in, its reservation becomes what it may hold (its Content-Length when the body comes as
 * is, else the answer cap): a smaller one gives the rest back; a larger one waits only until the difference fits,
 * before any new request and in the order they came, holding nothing meanwhile, so the answers waiting to grow never
 * hold the budget from one another: once the answers being read are done, the first of them goes. All of it is given
 * back when the attempt ends.
 */

/** The most answer bytes one execution reads at once: 32 answers at the 4 MiB cap, any number of small ones. */
export const MAX_ANSWER_BYTES_HELD = 128 * 1024 * 1024;
/** What a request reserves before any job answer was read: small answers keep up to 2,048 in flight. */
export const FIRST_ANSWER_ESTIMATE = 64 * 1024;

/** The budget and the first estimate: tests scale both down together with their answers; the nodes never change them. */
export const answerBudgetSize = { bytes: MAX_ANSWER_BYTES_HELD, firstEstimate: FIRST_ANSWER_ESTIMATE };

/** One request's share of the budget, from its slot to the end of its attempt. */
export class AnswerHold {
	bytes = 0;
	released = false;
	/** While it waits to grow: the bytes it waits for, and how it is told they are reserved. */
	wants = 0;
	go: (() => void) | undefined;

	constructor(private readonly budget: AnswerBudget) {}

	/** The answer's headers are in: it may hold `bytes`. Resolves once they are reserved (at once when they fit). */
	resize(bytes: number): void | Promise<void> {
		return this.budget.resize(this, bytes);
	}

	/** Gives everything back (once; later calls do nothing); a wait to grow ends at once. */
	release(): void {
		this.budget.release(this);
	}
}

export class AnswerBudget {
	private held = 0;
	private most = 0;
	private largest = 0;
	private readonly growing: AnswerHold[] = [];
	/** Told when bytes were given back (InFlightLimit then lets waiting requests go). */
	onFreed: () => void = () => undefined;

	constructor(
		readonly bytes = answerBudgetSize.bytes,
		private readonly firstEstimate = answerBudgetSize.firstEstimate,
	) {}

	/** Bytes reserved now. */
	reserved(): number {
		return this.held;
	}

	/** The most bytes ever reserved at once (for tests). */
	peak(): number {
		return this.most;
	}

	/** What a new request reserves: the largest answer reserved so far, at least the first estimate, at most the budget. */
	estimate(): number {
		return Math.min(this.bytes, Math.max(this.firstEstimate, this.largest));
	}

	/** How many requests' estimates the budget holds at once (at least one). */
	room(): number {
		return Math.max(1, Math.floor(this.bytes / this.estimate()));
	}

	/** Whether a new request may take its estimate now: no answer waits to grow, and it fits (it does when nothing is held). */
	fits(): boolean {
		return this.growing.length === 0 && this.held + this.estimate() <= this.bytes;
	}

	/** A new request's estimate, reserved (the caller asked fits()). */
	take(): AnswerHold {
		const hold = new AnswerHold(this);
		this.add(hold, this.estimate());
		return hold;
	}

	resize(hold: AnswerHold, bytes: number): void | Promise<void> {
		const want = Math.min(Math.max(0, bytes), this.bytes);
		this.largest = Math.max(this.largest, want);
		if (hold.released) return;
		const shrinks = want <= hold.bytes;
		if (shrinks || (this.growing.length === 0 && this.held - hold.bytes + want <= this.bytes)) {
			this.add(hold, want - hold.bytes);
			if (shrinks) this.letGo();
			return;
		}
		// It waits holding nothing: waiting answers never hold the budget from one another.
		this.add(hold, -hold.bytes);
		return new Promise<void>((resolve) => {
			hold.wants = want;
			hold.go = resolve;
			this.growing.push(hold);
			this.letGo();
		});
	}

	release(hold: AnswerHold): void {
		if (hold.released) return;
		hold.released = true;
		const at = this.growing.indexOf(hold);
		if (at !== -1) this.growing.splice(at, 1);
		this.wake(hold);
		this.add(hold, -hold.bytes);
		this.letGo();
	}

	private add(hold: AnswerHold, bytes: number): void {
		hold.bytes += bytes;
		this.held += bytes;
		this.most = Math.max(this.most, this.held);
	}

	private wake(hold: AnswerHold): void {
		const go = hold.go;
		hold.go = undefined;
		go?.();
	}

	/** Answers waiting to grow go in order while the first fits (a large one is never passed over), then new requests. */
	private letGo(): void {
		while (this.growing.length > 0 && this.held + this.growing[0].wants <= this.bytes) {
			const hold = this.growing.shift() as AnswerHold;
			this.add(hold, hold.wants);
			this.wake(hold);
		}
		if (this.growing.length === 0) this.onFreed();
	}
}

/** What an answer may hold once read: its Content-Length when its body comes as is and within `cap`, else `cap`. */
export function answerReservation(contentLength: string, contentEncoding: string, cap: number): number {
	const declared = /^\d{1,15}$/.test(contentLength.trim()) ? Number(contentLength.trim()) : undefined;
	const asIs = contentEncoding.trim() === '' || contentEncoding.trim().toLowerCase() === 'identity';
	return asIs && declared !== undefined ? Math.min(declared, cap) : cap;
}
