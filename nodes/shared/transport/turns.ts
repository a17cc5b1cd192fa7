/**
 * When a long reading gives the event loop a turn: after a budget of work (characters read, or searched over every
 * view built). A reading's first turns come sooner, FIRST_TURN_WORK and doubling up to WORK_PER_TURN: code not yet
 * compiled in this process costs several times more per character (an escape-dense log's first 64 Ki characters took
 * 65-87 ms of CPU, the next 64 Ki 10), and a reading cannot know whether it is the process's first.
 */
export const WORK_PER_TURN = 256 * 1024;
export const FIRST_TURN_WORK = 16 * 1024;

/** Counts one reading's work, and says when the event loop is due a turn. */
export class Turns {
	private since = 0;
	private budget = FIRST_TURN_WORK;

	add(work: number): void {
		this.since += work;
	}

	/** Whether the event loop is owed a turn (the count goes on). */
	owed(): boolean {
		return this.since >= this.budget;
	}

	/** Whether the event loop is due a turn (and the count starts again, under a budget twice as large up to WORK_PER_TURN). */
	due(): boolean {
		if (!this.owed()) return false;
		this.since = 0;
		this.budget = Math.min(2 * this.budget, WORK_PER_TURN);
		return true;
	}

	/** Work left before the next turn: how much of a text a reader takes at once (at least 1). */
	room(): number {
		return Math.max(1, this.budget - this.since);
	}
}
