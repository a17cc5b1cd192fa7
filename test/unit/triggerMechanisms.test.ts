/**
 * The trigger's mechanisms at their edges, each called as poll() calls it (nodes/JobExecutionTrigger/): the poll's
 * log line (ids shown and cut), the possible gap in words and as an item, the checked settings (Max Individual Reads
 * from 1 to 500), and the test event (the latest matching job, by end time, then start time).
 */
import type { IPollFunctions } from 'n8n-workflow';

import type { JobSnapshot, PollStats, TrackerOptions } from '../../nodes/JobExecutionTrigger/jobStatusTracker';
import { MAX_MISSES, SERVICE_PAGE } from '../../nodes/JobExecutionTrigger/jobStatusTracker';
import { logPoll } from '../../nodes/JobExecutionTrigger/pollLog';
import { gapJson, gapText } from '../../nodes/JobExecutionTrigger/possibleGap';
import { testEvent } from '../../nodes/JobExecutionTrigger/testEvent';
import { readMaxReads, readOnGap } from '../../nodes/JobExecutionTrigger/triggerSettings';

const NODE = { id: 'n1', name: 'Job Execution Trigger', type: 'jobExecutionTrigger', typeVersion: 2, position: [0, 0], parameters: {} };

/** The part of n8n's PollContext these mechanisms use: the node, and a logger that records warnings. */
function context(): { context: IPollFunctions; warnings: string[] } {
	const warnings: string[] = [];
	const fake = { getNode: () => NODE, logger: { warn: (line: string) => warnings.push(line) } };
	return { context: fake as unknown as IPollFunctions, warnings };
}

const quiet: PollStats = { evicted: 0, open: 0, done: 0, unreadable: 0, overflow: 0, forgotten: 0, retrying: [], givenUp: [], gap: null } as unknown as PollStats;

describe('the poll\'s log line', () => {
	test('nothing when all is well', () => {
		const { context: c, warnings } = context();
		logPoll(c, quiet, []);
		expect(warnings).toEqual([]);
	});

	test('three ids shown, the rest counted; an id of 41 characters is cut to 40, one of 40 is not', () => {
		const forty = 'a'.repeat(40);
		const fortyOne = 'b'.repeat(41);
		const { context: c, warnings } = context();
		logPoll(c, { ...quiet, retrying: [forty, fortyOne, 'c'], givenUp: ['d', 'e', 'f', 'g'] }, ['the service answered HTTP 503']);
		expect(warnings).toEqual([
			`Job Execution Trigger: could not read 3 tracked job(s) (the service answered HTTP 503: ${forty}, ${'b'.repeat(40)}…, c); ` +
				`each is read again in a later poll, with backoff, up to ${MAX_MISSES} reads; gave up 4 tracked job(s) after ${MAX_MISSES} failed reads: d, e, f and 1 more`,
		]);
	});

	test('every kind of trouble in one line, in a fixed order', () => {
		const { context: c, warnings } = context();
		logPoll(c, { ...quiet, unreadable: 2, overflow: 5, forgotten: 1, retrying: ['r'] }, []);
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatch(/^Job Execution Trigger: skipped 2 listed job\(s\) without a usable ID; read only the first \d+ jobs of a list, leaving 5; forgot 1 unfinished job\(s\) .*; could not read 1 tracked job\(s\) \(failed: r\)/);
	});
});

describe('a possible gap', () => {
	const to = Date.UTC(2026, 10, 26, 12, 0, 0);
	test('in words and as the item On Possible Gap emits: the window, the list, the estimate', () => {
		const gap = { list: 'history' as const, from: to - 60_000, to, mayBeHidden: 7 };
		const text = gapText(gap);
		expect(text).toBe(
			`possible gap: the history list was full (${SERVICE_PAGE} jobs) and held no job seen before, so about 7 jobs that finished between ` +
				'2026-11-26T11:59:00.000Z and 2026-11-26T12:00:00.000Z may never have been listed; poll more often',
		);
		expect(gapJson(gap)).toEqual({ event: 'possibleGap', list: 'history', from: '2026-11-26T11:59:00.000Z', to: '2026-11-26T12:00:00.000Z', mayBeHidden: 7, message: text });
	});

	test('an unknown start and estimate say so (the active list: jobs submitted)', () => {
		const gap = { list: 'active' as const, from: null, to, mayBeHidden: null };
		expect(gapText(gap)).toContain('so an unknown number of jobs that were submitted between the previous poll and 2026-11-26T12:00:00.000Z');
		expect(gapJson(gap)).toMatchObject({ from: null, mayBeHidden: null });
	});
});

describe('the checked settings', () => {
	test.each([
		[1, 1],
		[500, 500],
		[undefined, 25],
	])('Max Individual Reads per Poll %p → %p', (given, expected) => {
		expect(readMaxReads(context().context, given === undefined ? {} : { maxIndividualReads: given })).toBe(expected);
	});

	test.each([0, -1, 501, 2.5, '10'])('Max Individual Reads per Poll %p → NodeOperationError naming the field', (given) => {
		expect(() => readMaxReads(context().context, { maxIndividualReads: given })).toThrow(/^Max Individual Reads per Poll must be a whole number from 1 to 500, got /);
	});

	test('On Possible Gap: logOnly by default, emitItem, nothing else', () => {
		expect(readOnGap(context().context, {})).toBe('logOnly');
		expect(readOnGap(context().context, { onPossibleGap: 'emitItem' })).toBe('emitItem');
		expect(() => readOnGap(context().context, { onPossibleGap: 'emit' })).toThrow('On Possible Gap must be "logOnly" or "emitItem"');
	});
});

describe('the test event', () => {
	const T = Date.UTC(2026, 10, 26, 9, 0, 0);
	const job = (id: string, status: string, start: number | null, end: number | null): JobSnapshot =>
		({ id, executionStatus: status, flowName: 'sales', runProfileName: 'default', startTime: start, endTime: end }) as JobSnapshot;
	const anyChange: TrackerOptions = { watch: 'anyChange', startFrom: 'now' };
	const output = { version: 1, parseLog: false, simplify: false };
	const latest = (active: JobSnapshot[], history: JobSnapshot[], tracker = anyChange) => testEvent(context().context, tracker, active, history, output)[0].json.id;

	test('the job that ended last, though another started later; a running job counts by its start', () => {
		// "late" started after "long" but ended before it; "running" started after both ended.
		const long = job('long', 'COMPLETED', T, T + 10 * 60_000);
		const late = job('late', 'COMPLETED', T + 60_000, T + 2 * 60_000);
		expect(latest([], [late, long])).toBe('long');
		expect(latest([job('running', 'RUNNING', T + 11 * 60_000, null)], [late, long])).toBe('running');
		expect(latest([job('earlier', 'RUNNING', T + 9 * 60_000, null)], [late, long])).toBe('long');
	});

	test('only jobs the settings watch; none → an error saying what was checked', () => {
		const done = job('done', 'COMPLETED', T, T + 1000);
		const failed = job('failed', 'ERROR', T, T + 500);
		expect(latest([], [done, failed], { watch: ['ERROR'], startFrom: 'now' })).toBe('failed');
		expect(() => latest([], [done], { watch: ['CANCELLED'], flowName: 'sales', startFrom: 'now' })).toThrow('No job matches the trigger settings yet');
	});
});
