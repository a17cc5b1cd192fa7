/** The flows the bench's servers run. */
import type { Catalog } from '../../server';

export const INSTANT_FLOW = '/Shared/Flows/instant.flow';
export const HOUR_FLOW = '/Shared/Flows/hour.flow';
export const THIRTY_SECONDS_FLOW = '/Shared/Flows/thirty-seconds.flow';
export const THIRTY_SECONDS_AND_A_BIT_FLOW = '/Shared/Flows/thirty-seconds-and-a-bit.flow';
export const THREE_SECONDS_FLOW = '/Shared/Flows/three-seconds.flow';

export const BENCH_CATALOG: Catalog = {
	flows: [
		// Ends one step after it starts (with --step-ms 1: at once): reads return the full JobStatus with its log.
		{ flowFileName: INSTANT_FLOW, steps: 3, stepMs: 1, outcome: 'COMPLETED' },
		// Runs for an hour: stays on the active list.
		{ flowFileName: HOUR_FLOW, steps: 60, stepMs: 60_000, outcome: 'COMPLETED' },
		// Figure 3: 30 s jobs.
		{ flowFileName: THIRTY_SECONDS_FLOW, steps: 30, stepMs: 1000, outcome: 'COMPLETED' },
		{ flowFileName: THIRTY_SECONDS_AND_A_BIT_FLOW, steps: 1, stepMs: 30_300, outcome: 'COMPLETED' },
		// Figure A5: a batch of Submit + Wait for Completion on jobs of a few seconds.
		{ flowFileName: THREE_SECONDS_FLOW, steps: 3, stepMs: 1000, outcome: 'COMPLETED' },
	],
};
