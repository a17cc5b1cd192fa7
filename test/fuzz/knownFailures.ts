/**
 * Seeds of test/fuzz/fuzz.test.ts that the code of main before the fixes of issue 20 fails (measured on branch
 * `fuzz` = main at 7dea199, built), each with the finding it shows. They still run in `npm test` and must still fail;
 * once the bounds and trigger fixes are merged, the lead empties this list and every seed must pass.
 */
export const FUZZ_KNOWN_FAILURES: Record<number, string> = {
	23: 'Wait pacing: a transient 503 is read again ~250 ms later (Poll Interval 1 s); a 96 MiB multi-member gzip log passes into the output',
	49: 'br/gzip bombs on the job lists (Job ID list search): memory past its cap, or the complete 200 read again',
	43: 'credential test without a deadline: headers only / a drip holds it past its time bound',
	32: 'skewed clock: end times one day ahead move the horizon, later COMPLETED events of sane jobs are lost',
	55: 'log parser: Get Many with Parse Log on 6,000-12,000 unclosed "[" lines or 20,000+ blanks blocks the event loop',
	35: 'long ids (256 3-byte characters): state past 100 KiB; ISO end times: duplicate events',
	61: 'huge unknown statuses on 100-500 active jobs: state past 100 KiB',
	278: 'one unreadable job (single read always 403/404/429/500/503) wedges the trigger: later polls fail, sane events lost',
};
