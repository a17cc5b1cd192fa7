/** One row of the benchmark table. */
export interface Figure {
	/** Figure number from the issue, with a letter when a figure has several rows (e.g. "4c"). */
	id: string;
	name: string;
	measured: string;
	goal: string;
	/** 'info' when the row has no goal of its own (context for another row). */
	verdict: 'pass' | 'miss' | 'info';
	/** Raw numbers behind the row, printed under the table. */
	details?: string[];
}

export function verdict(ok: boolean): 'pass' | 'miss' {
	return ok ? 'pass' : 'miss';
}
