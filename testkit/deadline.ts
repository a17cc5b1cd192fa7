/**
 * A deadline proven without racing a loaded machine. A run is checked against the deadline it was configured with,
 * not an absolute figure: it must end before the point halfway between that deadline and the time it would take
 * without one (the fallback: a longer limit that would apply instead, or forever). Load on a shared 2-core machine
 * adds seconds, never that half; a lost or wrong deadline always crosses it. Counts (requests, reads) are checked
 * beside it wherever a deadline also bounds them.
 */
export function deadlineBound(deadlineMs: number, fallbackMs = Number.POSITIVE_INFINITY): number {
	if (!(fallbackMs > deadlineMs)) throw new Error('the fallback must be longer than the deadline, or the check proves nothing');
	// Without a finite fallback the run would never end: ten times the deadline (and at least 15 s) is still a bound.
	return Number.isFinite(fallbackMs) ? (deadlineMs + fallbackMs) / 2 : Math.max(deadlineMs * 10, deadlineMs + 15_000);
}

/**
 * A clock that can only run slow, for the upper side of a deadline: it adds the time between turns of the event loop
 * at least `tickMs` apart, each gap counted up to `tickMs`. It never reads more than the wall time since it started,
 * and a loop blocked or starved by other work makes it read less, never more: a run checked to end within so many ms
 * of it cannot fail for a loaded machine, only for a run that truly kept waiting past its deadline.
 */
export function slowOnlyClock(tickMs = 50): { readonly ms: number; stop(): number } {
	let counted = 0;
	let stopped = false;
	let last = performance.now();
	const count = () => {
		if (stopped) return counted;
		const now = performance.now();
		counted += Math.min(now - last, tickMs);
		last = now;
		return counted;
	};
	const timer = setInterval(count, tickMs);
	return {
		get ms() {
			return count();
		},
		stop() {
			clearInterval(timer);
			count();
			stopped = true;
			return counted;
		},
	};
}
