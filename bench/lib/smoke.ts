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

/**
 * `BENCH_ROWS=D1a,D2a`: only the rows named of the figures that read it (figure D), at full size, for a quick look at
 * one change; like a smoke run it writes nothing, since a block of some rows would drop the others.
 */
export const ROWS = (process.env.BENCH_ROWS ?? '').split(',').map((row) => row.trim()).filter(Boolean);

/** Whether the row `id` runs: every row, unless BENCH_ROWS names some. */
export function rowWanted(id: string): boolean {
	return ROWS.length === 0 || ROWS.includes(id);
}
