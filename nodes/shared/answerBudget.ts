/**
 * The answer bytes one version 2 execution reads at once, across all its requests in flight.
 *
 * More requests in flight must not mean more memory without end: 1,000 job answers of up to 4 MiB each would be
 * 4 GiB. Once an answer's headers are in, it reserves what it may hold (its Content-Length when the body is sent as
 * is, else the answer cap) before its body is read, and gives it back once the body is believed. At the bound an
 * answer waits, unread (its bytes stay in the socket), until earlier ones give theirs back, in the order they came:
 * it never fails for want of budget, and its attempt's own deadline still ends it.
 */

/** The most answer bytes one execution reads at once: 32 answers at the 4 MiB cap, any number of small ones. */
export const MAX_ANSWER_BYTES_HELD = 128 * 1024 * 1024;

/** Gives back a reservation (once; later calls do nothing). */
export type Release = () => void;

export class AnswerBudget {
	private held = 0;
	private readonly waiters: Array<{ bytes: number; go: () => void }> = [];
	private most = 0;

	constructor(readonly bytes = MAX_ANSWER_BYTES_HELD) {}

	/** Bytes reserved now. */
	reserved(): number {
		return this.held;
	}

	/** The most bytes ever reserved at once (for tests). */
	peak(): number {
		return this.most;
	}

	/** Resolves once `bytes` (at most the whole budget) are reserved: at once when they fit and no one waits. */
	reserve(bytes: number): Release | Promise<Release> {
		const want = Math.min(Math.max(0, bytes), this.bytes);
		if (this.waiters.length === 0 && this.held + want <= this.bytes) return this.take(want);
		return new Promise<Release>((resolve) => this.waiters.push({ bytes: want, go: () => resolve(this.take(want)) }));
	}

	private take(bytes: number): Release {
		this.held += bytes;
		this.most = Math.max(this.most, this.held);
		let given = false;
		return () => {
			if (given) return;
			given = true;
			this.held -= bytes;
			this.letGo();
		};
	}

	/** Waiters go in order while the first fits: a large answer is never passed over for ever by small ones. */
	private letGo(): void {
		while (this.waiters.length > 0 && this.held + this.waiters[0].bytes <= this.bytes) this.waiters.shift()?.go();
	}
}

/** What an answer may hold once read: its Content-Length when its body comes as is and within `cap`, else `cap`. */
export function answerReservation(contentLength: string, contentEncoding: string, cap: number): number {
	const declared = /^\d{1,15}$/.test(contentLength.trim()) ? Number(contentLength.trim()) : undefined;
	const asIs = contentEncoding.trim() === '' || contentEncoding.trim().toLowerCase() === 'identity';
	return asIs && declared !== undefined ? Math.min(declared, cap) : cap;
}
