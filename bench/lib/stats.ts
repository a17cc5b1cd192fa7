/** Small statistics for noisy machines: medians of repeated, interleaved rounds. */

export function median(values: number[]): number {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function min(values: number[]): number {
	return values.reduce((a, b) => Math.min(a, b), Infinity);
}

/** Wall time of `run` in milliseconds (high resolution). */
export async function timeMs(run: () => Promise<unknown>): Promise<number> {
	const start = process.hrtime.bigint();
	await run();
	return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Sync variant, for pure functions. */
export function timeSyncMs(run: () => unknown): number {
	const start = process.hrtime.bigint();
	run();
	return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * Runs each contender once per round for `rounds` rounds, rotating which goes first, so drifting machine load
 * hits all alike. Returns each contender's wall times and the bench process's CPU times in ms, one per round.
 */
export async function interleavedRounds<Name extends string>(
	rounds: number,
	contenders: Record<Name, () => Promise<unknown>>,
): Promise<Record<Name, number[]> & { cpu: Record<Name, number[]> }> {
	const names = Object.keys(contenders) as Name[];
	const perName = () => Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Name, number[]>;
	const wall = perName();
	const cpu = perName();
	for (let round = 0; round < rounds; round++) {
		for (let k = 0; k < names.length; k++) {
			const name = names[(round + k) % names.length];
			const before = process.cpuUsage();
			wall[name].push(await timeMs(contenders[name]));
			const used = process.cpuUsage(before);
			cpu[name].push((used.user + used.system) / 1000);
		}
	}
	return Object.assign(wall, { cpu });
}

/** Median of the per-round ratios a[i] / b[i]: each ratio compares runs made seconds apart. */
export function medianRatio(a: number[], b: number[]): number {
	return median(a.map((value, i) => value / b[i]));
}

export function formatMs(ms: number): string {
	return ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(2)} ms`;
}

export function formatBytes(bytes: number): string {
	if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
	if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
	return `${bytes} B`;
}
