// Time source of the simulation. The server never uses timers for job progress: every request
// reads the clock and the store catches up, so tests drive time with a ManualClock.
export interface Clock {
	now(): number;
}

export const systemClock: Clock = {
	now: () => Date.now(),
};

// 2026-11-21 10:15:00.000 UTC: a fixed, readable default start for manual clocks.
export const DEFAULT_MANUAL_START = Date.UTC(2026, 10, 21, 10, 15, 0, 0);

export class ManualClock implements Clock {
	private current: number;

	constructor(start: number = DEFAULT_MANUAL_START) {
		this.current = Math.trunc(start);
	}

	now(): number {
		return this.current;
	}

	advance(ms: number): number {
		if (!Number.isFinite(ms) || ms < 0) throw new Error('ManualClock.advance needs a finite, non-negative number');
		this.current += Math.trunc(ms);
		return this.current;
	}

	// Moving backwards is allowed but the store never undoes what it already processed.
	set(ms: number): number {
		if (!Number.isFinite(ms)) throw new Error('ManualClock.set needs a finite number');
		this.current = Math.trunc(ms);
		return this.current;
	}
}
