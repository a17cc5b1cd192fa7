/**
 * Seeds of test/fuzz/fuzz.test.ts that the code of main before the fixes of issue 20 fails (measured on branch
 * `fuzz` = main at 7dea199, built), each with the finding it shows. They still run in `npm test` and must still fail;
 * once the bounds and trigger fixes are merged, the lead empties this list and every seed must pass.
 */
export const FUZZ_KNOWN_FAILURES: Record<number, string> = {
	// Found when the realisticSize class reshuffled the seeds (branch lists); main at b2f109e fails it the same way.
	35: 'the trigger stores 96.1 KiB of state, over its 96 KiB bound, with 500 jobs of 2,000-character statuses and ISO times (hugeStatus + isoTimes)',
};
