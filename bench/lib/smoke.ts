/**
 * `BENCH_SMOKE=1`: a figure's code run end to end in a minute, not its figures. Rounds drop to one (no warm-up) and
 * batches shrink to a tenth (at least 20 items), so a change to a figure can be tried on a busy machine without the
 * full run; what it prints is no measurement, and BENCHMARKS.md must not keep it (docs/benchmarks.md).
 */
export const SMOKE = process.env.BENCH_SMOKE === '1';

/** The rounds of a figure: `full` in a real run, one in a smoke run. */
export function rounds(full: number): number {
	return SMOKE ? 1 : full;
}

/** Warm-up rounds before the measured ones: none in a smoke run. */
export function warmUps(full = 1): number {
	return SMOKE ? 0 : full;
}

/** A batch's size: `full` in a real run, a tenth of it (at least 20, at most `full`) in a smoke run. */
export function items(full: number): number {
	return SMOKE ? Math.min(full, Math.max(20, Math.round(full / 10))) : full;
}
