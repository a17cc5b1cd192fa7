// Version 2's summary (summarizeJob, shared by the action node and the trigger), the step progress and time readings it and Get Many use, and shapeJob's three output shapes.
import { JOB_STATUS_FIELDS, shapeJob } from '../../nodes/shared/jobOutput';
import { jobFailureReason, MAX_REASON_CHARS, summarizeJob } from '../../nodes/shared/jobSummary';
import fc from 'fast-check';

import { isoInZone, labelInZone, readGivenTime, readGivenTimeIn, readTimestamp, stepProgress } from '../../nodes/shared/jobVocabulary';
import { cutMarker } from '../../nodes/shared/transport/answer';

const ID = '3f2c1a9e-7b4d-4e21-9c1a-0d5e6f7a8b9c';
const START_MS = 1795255502120; // 2026-11-21T10:05:02.120Z
const RUNNING = {
	id: ID, flowName: 'sales', runProfileName: 'default', jobName: 'sales_default', startTime: START_MS, endTime: null, executionStatus: 'RUNNING',
	log: null, currentStepId: 'Step 2', currentStepDescription: 'Step 2 (1 of 3 completed)', runtimeFormatted: '',
};

describe('stepProgress', () => {
	test.each([
		['Step 2 (1 of 3 completed)', { completed: 1, total: 3, failedAt: 2 }],
		['  step 1 ( 0 of 12 completed ) ', { completed: 0, total: 12, failedAt: 1 }],
		['Step 3 (3)', { completed: 3, total: 3, failedAt: 3 }],
		['Step 2 (4 of 3 completed)', null],
		['Step 2', null],
		['', null],
		[42, null],
		[`Step 2 (1 of 3 completed)${' '.repeat(80)}`, null],
	])('%j → %j', (text, expected) => expect(stepProgress(text)).toEqual(expected));
});

describe('readTimestamp', () => {
	test.each([
		[START_MS, START_MS],
		[START_MS / 1000, START_MS],
		[String(START_MS), START_MS],
		['2026-11-21T10:05:02.120Z', START_MS],
		['2026-11-21T11:05:02.120+01:00', START_MS],
		['yesterday', null],
		[`2026-11-21T10:05:02.120Z${' '.repeat(40)}`, null],
		[null, null],
	])('%j → %j', (value, expected) => expect(readTimestamp(value)).toBe(expected));
});

describe('summarizeJob', () => {
	test('a running job: ten fields, ISO start, progress as numbers, no outcome yet', () => {
		expect(summarizeJob(RUNNING)).toEqual({
			jobId: ID, executionStatus: 'RUNNING', outcome: null, flowName: 'sales', runProfileName: 'default',
			startTime: '2026-11-21T10:05:02.120Z', endTime: null, runtimeSeconds: null, stepsCompleted: 1, stepsTotal: 3,
		});
	});

	test.each([
		['COMPLETED', 'completed'],
		['error', 'failed'],
		[' CANCELLED ', 'cancelled'],
		['QUEUED', null],
		['CONSTRUCTOR', null],
		[null, null],
	])('status %j has outcome %j', (executionStatus, outcome) => {
		expect(summarizeJob({ ...RUNNING, executionStatus }).outcome).toBe(outcome);
	});

	test('a finished job: end time, runtime from runtimeFormatted, all steps done; never more than ten fields', () => {
		const done = summarizeJob({ ...RUNNING, executionStatus: 'COMPLETED', endTime: START_MS + 500, runtimeFormatted: '0.500 seconds', currentStepDescription: 'Step 3 (3)' });
		expect(done).toMatchObject({ outcome: 'completed', endTime: '2026-11-21T10:05:02.620Z', runtimeSeconds: 0.5, stepsCompleted: 3, stepsTotal: 3 });
		expect(Object.keys(summarizeJob({})).length).toBeLessThanOrEqual(10);
		expect(summarizeJob({})).toEqual({
			jobId: null, executionStatus: null, outcome: null, flowName: null, runProfileName: null, startTime: null, endTime: null, runtimeSeconds: null, stepsCompleted: null, stepsTotal: null,
		});
	});
});

describe('shapeJob', () => {
	test('raw keeps every field with jobId first; a jobId the service sent is replaced by the job id', () => {
		const shaped = shapeJob({ ...RUNNING, jobId: 'other' }, { mode: 'raw' });
		expect(Object.keys(shaped)[0]).toBe('jobId');
		expect(shaped).toEqual({ ...RUNNING, jobId: ID });
	});

	test('selected keeps jobId and the chosen fields only; a job without a usable id takes the id the item asked for', () => {
		expect(shapeJob(RUNNING, { mode: 'selected', fields: ['executionStatus', 'endTime'] })).toEqual({ jobId: ID, executionStatus: 'RUNNING', endTime: null });
		expect(shapeJob({ ...RUNNING, id: 7.5 }, { mode: 'simplified' }, ID).jobId).toBe(ID);
		expect(JOB_STATUS_FIELDS).toHaveLength(19);
	});

	test('Parse Log adds logParsed in every shape (null when there is no log yet)', () => {
		expect(shapeJob(RUNNING, { mode: 'simplified', parseLog: true }).logParsed).toBeNull();
		const log = 'not an entry\n2026-11-21 10:05:02.120 [main] INFO hello';
		const parsed = shapeJob({ ...RUNNING, log }, { mode: 'simplified', parseLog: true }).logParsed as { unknownLines: string[] };
		expect(parsed.unknownLines).toEqual(['not an entry']);
	});
});

describe('issue 36 row 5: a job that failed or was cancelled did not complete the step it ended in', () => {
	test.each([
		['ERROR', 'Step 2 (2)', 1, 2],
		['CANCELLED', 'Step 2 (1 of 3 completed)', 1, 3],
		['ERROR', 'Step 1 (1)', 0, 1],
		['COMPLETED', 'Step 3 (3)', 3, 3],
		['RUNNING', 'Step 2 (1 of 3 completed)', 1, 3],
	])('%s with %j → %d of %d', (executionStatus, currentStepDescription, completed, total) => {
		expect(summarizeJob({ ...RUNNING, executionStatus, currentStepDescription })).toMatchObject({ stepsCompleted: completed, stepsTotal: total });
	});
});

describe('issue 36 row 1: one time-zone rule, and numbers read as the jobs\' own times are', () => {
	const NEW_YORK = 'America/New_York';
	test.each([
		// Without a zone: the workflow's zone (n8n's default New York: UTC-5 in November, UTC-4 in July).
		['2026-11-21T05:05:02.120', NEW_YORK, START_MS],
		['2026-07-01T09:20:00', NEW_YORK, Date.parse('2026-07-01T13:20:00Z')],
		['2026-11-21', NEW_YORK, Date.parse('2026-11-21T05:00:00Z')],
		['2026-11-21T15:35:02.120', 'Asia/Kolkata', START_MS],
		// A zone in the text wins.
		['2026-11-21T10:05:02.120Z', NEW_YORK, START_MS],
		['2026-11-21T11:05:02.120+01:00', NEW_YORK, START_MS],
		// Numbers: 10 integer digits are epoch seconds, 13 epoch ms (each 2001-2286); text of digits the same.
		[1_000_000_000, NEW_YORK, 1_000_000_000_000],
		[9_999_999_999, NEW_YORK, 9_999_999_999_000],
		[START_MS / 1000, NEW_YORK, START_MS],
		[Math.floor(START_MS / 1000), NEW_YORK, Math.floor(START_MS / 1000) * 1000],
		[String(Math.floor(START_MS / 1000)), NEW_YORK, Math.floor(START_MS / 1000) * 1000],
		[START_MS, NEW_YORK, START_MS],
		[1e12, NEW_YORK, 1e12],
		// Every other length is refused, never guessed.
		[999_999_999, NEW_YORK, null],
		[1e10, NEW_YORK, null],
		[999_999_999_999, NEW_YORK, null],
		[1e13, NEW_YORK, null],
		[0, NEW_YORK, null],
		[-1_700_000_000, NEW_YORK, null],
		['yesterday-ish', NEW_YORK, null],
		[`2026-11-21T10:05:02Z${' '.repeat(60)}`, NEW_YORK, null],
	])('%j in %s → %j', (given, zone, expected) => expect(readGivenTime(given, zone)).toBe(expected));

	test.each([
		[START_MS, NEW_YORK, '2026-11-21T05:05:02.120-05:00', '2026-11-21 05:05:02 -05:00'],
		[Date.parse('2026-07-01T13:20:00Z'), NEW_YORK, '2026-07-01T09:20:00.000-04:00', '2026-07-01 09:20:00 -04:00'],
		[START_MS, 'Asia/Kolkata', '2026-11-21T15:35:02.120+05:30', '2026-11-21 15:35:02 +05:30'],
		[START_MS, 'UTC', '2026-11-21T10:05:02.120Z', '2026-11-21 10:05:02 UTC'],
		[START_MS, 'Europe/London', '2026-11-21T10:05:02.120+00:00', '2026-11-21 10:05:02 +00:00'],
		[START_MS, 'Not/AZone', '2026-11-21T10:05:02.120+00:00', '2026-11-21 10:05:02 +00:00'],
	])('%d in %s is shown as %s (list: %s)', (ms, zone, iso, label) => {
		expect(isoInZone(ms, zone)).toBe(iso);
		expect(labelInZone(ms, zone)).toBe(label);
		expect(Date.parse(iso)).toBe(ms);
	});

	test('the time shown, typed back without its offset, is the same instant in every zone, across a change of offset; refused only in the hour a clock goes back', () => {
		const zones = [NEW_YORK, 'Europe/Berlin', 'Asia/Kolkata', 'Australia/Lord_Howe', 'UTC', 'Pacific/Chatham'];
		let refused = 0;
		// Every 7 hours over a year: both sides of every change of offset these zones have.
		for (let ms = Date.parse('2026-01-01T00:00:00Z'); ms < Date.parse('2027-01-01T00:00:00Z'); ms += 7 * 3600_000 + 1000) {
			for (const zone of zones) {
				const typed = isoInZone(ms, zone).slice(0, 23);
				const read = readGivenTimeIn(typed, zone);
				if ('ms' in read) {
					expect([zone, typed, read.ms]).toEqual([zone, typed, ms]);
				} else {
					// Only a wall time that occurs twice is refused, and both its instants show that very wall time.
					refused++;
					expect(read).toEqual({ problem: 'ambiguous', instants: expect.arrayContaining([ms]) });
					const instants = (read as { instants: number[] }).instants;
					expect([instants[0] < instants[1], ...instants.map((instant) => isoInZone(instant, zone).slice(0, 23))]).toEqual([true, typed, typed]);
				}
			}
		}
		expect(refused).toBeGreaterThan(0);
		expect(readGivenTime(isoInZone(START_MS, NEW_YORK).slice(0, 23), NEW_YORK)).toBe(START_MS);
	});

	test.each([
		// The hour New York's clock goes back (1 November 2026): 01:30 happens at -04:00 and again at -05:00.
		['2026-11-01T01:30', NEW_YORK, { problem: 'ambiguous', instants: [Date.parse('2026-11-01T05:30:00Z'), Date.parse('2026-11-01T06:30:00Z')] }],
		['2026-11-01T01:30-05:00', NEW_YORK, { ms: Date.parse('2026-11-01T06:30:00Z') }],
		['2026-11-01T00:59:59.999', NEW_YORK, { ms: Date.parse('2026-11-01T04:59:59.999Z') }],
		['2026-11-01T02:00', NEW_YORK, { ms: Date.parse('2026-11-01T07:00:00Z') }],
		// The hour it skips (8 March 2026): 02:30 never happens; 01:59 and 03:00 do.
		['2026-03-08T02:30', NEW_YORK, { problem: 'skipped' }],
		['2026-03-08T02:00', NEW_YORK, { problem: 'skipped' }],
		['2026-03-08T01:59:59.999', NEW_YORK, { ms: Date.parse('2026-03-08T06:59:59.999Z') }],
		['2026-03-08T03:00', NEW_YORK, { ms: Date.parse('2026-03-08T07:00:00Z') }],
		['2026-03-08T02:30-05:00', NEW_YORK, { ms: Date.parse('2026-03-08T07:30:00Z') }],
		// Lord Howe moves by half an hour; Berlin's date-only midnight exists.
		['2026-04-05T01:45', 'Australia/Lord_Howe', { problem: 'ambiguous', instants: [Date.parse('2026-04-04T14:45:00Z'), Date.parse('2026-04-04T15:15:00Z')] }],
		['2026-03-29', 'Europe/Berlin', { ms: Date.parse('2026-03-28T23:00:00Z') }],
		// Days and times no calendar has: refused, never rolled over (2026-02-30 is not 2 March).
		['2026-02-30', NEW_YORK, { problem: 'impossible' }],
		['2026-02-29T10:00', 'UTC', { problem: 'impossible' }],
		['2028-02-29T10:00', 'UTC', { ms: Date.parse('2028-02-29T10:00:00Z') }],
		['2026-02-30T10:00:00Z', NEW_YORK, { problem: 'impossible' }],
		['2026-04-31T10:00', NEW_YORK, { problem: 'impossible' }],
		['2026-13-01', NEW_YORK, { problem: 'impossible' }],
		['2026-11-21T24:00', NEW_YORK, { problem: 'impossible' }],
		['2026-11-21T10:60', NEW_YORK, { problem: 'impossible' }],
		['2026-11-21T10:00+24:00', NEW_YORK, { problem: 'impossible' }],
		// An unknown workflow zone is never read as UTC: a time without offset is refused, one with an offset is read.
		['2026-11-21T10:00', 'Mars/Olympus', { problem: 'unknownZone' }],
		['2026-11-21T10:00+01:00', 'Mars/Olympus', { ms: Date.parse('2026-11-21T09:00:00Z') }],
		['2026-11-21T10:00:00.1234+0100', NEW_YORK, { ms: Date.parse('2026-11-21T09:00:00.123Z') }],
		['2026-11-21 10:00 Z', NEW_YORK, { ms: Date.parse('2026-11-21T10:00:00Z') }],
		['Sat, 21 Nov 2026 10:00:00 +0100', NEW_YORK, { ms: Date.parse('2026-11-21T09:00:00Z') }],
		['21/11/2026 10:00', NEW_YORK, { problem: 'notATime' }],
	])('issue 49: %j in %s → %j', (given, zone, expected) => expect(readGivenTimeIn(given, zone)).toEqual(expected));

	// Real zones, from Intl's own list (fixed names first, so every run tries a few with half-hour and 45-minute offsets).
	const ZONES = ['UTC', NEW_YORK, 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Chatham', 'America/St_Johns', ...Intl.supportedValuesOf('timeZone')];
	const offsetAt = (ms: number, zone: string) => Date.parse(isoInZone(ms, zone).slice(0, 23) + 'Z') - ms;
	/** The first change of the zone's offset in the year (found month by month, then halved to the ms), or null. */
	const firstChange = (year: number, zone: string): number | null => {
		for (let month = 0; month < 12; month++) {
			let [from, to] = [Date.UTC(year, month, 1), Date.UTC(year, month + 1, 1)];
			if (offsetAt(from, zone) === offsetAt(to, zone)) continue;
			while (to - from > 1) {
				const mid = Math.floor((from + to) / 2);
				if (offsetAt(mid, zone) === offsetAt(from, zone)) from = mid;
				else to = mid;
			}
			return to;
		}
		return null;
	};
	// Half the instants land within two hours of a change of offset (where a rule breaks first), half anywhere.
	const zone = fc.constantFrom(...ZONES);
	const anywhere = fc.integer({ min: Date.parse('2001-09-09T01:46:40Z'), max: Date.parse('2286-11-20T17:46:39Z') });
	const nearChange = fc.tuple(fc.integer({ min: 2002, max: 2099 }), zone, fc.integer({ min: -2 * 3600_000, max: 2 * 3600_000 })).map(([year, inZone, delta]) => {
		const change = firstChange(year, inZone);
		return { ms: (change ?? Date.UTC(year, 6, 1)) + delta, zone: inZone, change };
	});
	const instantInZone = fc.oneof(fc.tuple(anywhere, zone).map(([ms, inZone]) => ({ ms, zone: inZone, change: null as number | null })), nearChange);

	test('generated (issue 49): any instant in any zone, written any documented way, is read as that instant, or refused only as a wall time that occurs twice', () => {
		let ambiguous = 0;
		fc.assert(
			fc.property(instantInZone, ({ ms, zone }) => {
				const shown = isoInZone(ms, zone);
				const wall = shown.slice(0, 23);
				const seconds = Math.floor(ms / 1000);
				// With an offset (2.1's output; `$now.toISO()`; no colon; UTC), and epoch numbers: always that instant.
				const exact: Array<[unknown, number]> = [
					[shown, ms], [shown.replace(/([+-]\d\d):(\d\d)$/, '$1$2'), ms], [new Date(ms).toISOString(), ms],
					[seconds, seconds * 1000], [String(seconds), seconds * 1000], [ms, ms], [String(ms), ms],
				];
				for (const [given, expected] of exact) expect([given, readGivenTime(given, zone)]).toEqual([given, expected]);
				// Without an offset (the date picker's text, with T or a space): that instant, or refused as ambiguous naming it.
				for (const typed of [wall, wall.replace('T', ' ')]) {
					const read = readGivenTimeIn(typed, zone);
					if ('ms' in read) expect([typed, read.ms]).toEqual([typed, ms]);
					else expect([read, ambiguous++]).toEqual([{ problem: 'ambiguous', instants: expect.arrayContaining([ms]) }, expect.any(Number)]);
				}
			}),
			{ seed: 49, numRuns: 400 },
		);
		expect(ambiguous).toBeGreaterThan(5);
	});

	test('generated (issue 49): any wall time typed in any zone reads as an instant showing that wall time, or is refused with the reason that holds', () => {
		const anyWall = fc.tuple(fc.record({ y: fc.integer({ min: 2001, max: 2099 }), mo: fc.integer({ min: 1, max: 12 }), d: fc.integer({ min: 1, max: 31 }), h: fc.integer({ min: 0, max: 23 }), mi: fc.integer({ min: 0, max: 59 }) }), zone);
		// Wall times around a change of offset: in the hour skipped, the hour repeated, and just outside them.
		const wallNearChange = nearChange.map(({ ms, zone: inZone }) => {
			const wall = new Date(ms + offsetAt(ms - 4 * 3600_000, inZone));
			return [{ y: wall.getUTCFullYear(), mo: wall.getUTCMonth() + 1, d: wall.getUTCDate(), h: wall.getUTCHours(), mi: wall.getUTCMinutes() }, inZone] as const;
		});
		let refusals = 0;
		fc.assert(
			fc.property(fc.oneof(anyWall, wallNearChange), ([{ y, mo, d, h, mi }, zone]) => {
				const pad = (n: number) => String(n).padStart(2, '0');
				const typed = `${y}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}`;
				const read = readGivenTimeIn(typed, zone);
				const realDay = new Date(Date.UTC(y, mo - 1, d)).getUTCDate() === d;
				if (!realDay) return expect(read).toEqual({ problem: 'impossible' });
				// Every instant within a day of the wall time that shows it, minute by minute around the two offsets.
				const asUtc = Date.UTC(y, mo - 1, d, h, mi);
				const showing = [-14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
					.flatMap((hours) => [0, 15, 30, 45].map((minutes) => asUtc - (hours * 60 + Math.sign(hours || 1) * minutes) * 60_000))
					.filter((candidate, i, all) => all.indexOf(candidate) === i && isoInZone(candidate, zone).slice(0, 16) === typed)
					.sort((a, b) => a - b);
				if (showing.length !== 1) refusals++;
				if (showing.length === 0) expect(read).toEqual({ problem: 'skipped' });
				else if (showing.length === 1) expect(read).toEqual({ ms: showing[0] });
				else expect(read).toEqual({ problem: 'ambiguous', instants: [showing[0], showing[showing.length - 1]] });
			}),
			{ seed: 4949, numRuns: 400 },
		);
		// The generator reaches both refusals (a property that never met a skipped or repeated hour would prove little).
		expect(refusals).toBeGreaterThan(20);
	});

	test('summary 2.1: times in the zone given, with their offset, and the failure reason in ten fields; version 2: UTC, its ten fields', () => {
		const failed = { ...RUNNING, executionStatus: 'ERROR', endTime: START_MS + 500, currentStepDescription: 'Step 2 (2)', error: 'target table INVENTORY is locked by another session' };
		const v21 = summarizeJob(failed, { timeZone: NEW_YORK, failureReason: true });
		expect(v21).toMatchObject({ startTime: '2026-11-21T05:05:02.120-05:00', endTime: '2026-11-21T05:05:02.620-05:00', stepsCompleted: 1, stepsTotal: 2 });
		expect(v21).toHaveProperty('failureReason', 'target table INVENTORY is locked by another session | ended in Step 2');
		// Ten fields still (n8n's UX guidelines): the reason after how the job ended, the run profile left to the raw job.
		expect(Object.keys(v21)).toEqual(['jobId', 'executionStatus', 'outcome', 'failureReason', 'flowName', 'startTime', 'endTime', 'runtimeSeconds', 'stepsCompleted', 'stepsTotal']);
		const v2 = summarizeJob(failed);
		expect(v2).toMatchObject({ startTime: '2026-11-21T10:05:02.120Z', endTime: '2026-11-21T10:05:02.620Z' });
		expect(Object.keys(v2)).toHaveLength(10);
	});
});

describe('issue 36 row 2: why a job failed, from what the service says, bounded', () => {
	const failed = (fields: Record<string, unknown>) => ({ ...RUNNING, executionStatus: 'ERROR', currentStepId: 'Step 2', ...fields });
	const entry = (level: string, message: string) => `2026-11-21 10:05:02.620 [worker-1] ${level} ${message}`;

	test('the service\'s error wins (text, or an object\'s message); else the log\'s last error lines; then the step', () => {
		expect(jobFailureReason(failed({ error: ' locked ' }))).toBe('locked | ended in Step 2');
		expect(jobFailureReason(failed({ error: { code: 42, message: 'disk full' } }))).toBe('disk full | ended in Step 2');
		const log = [entry('INFO', 'started'), entry('ERROR', 'first'), entry('ERROR', 'second'), entry('INFO', 'Step 2 failed: Node node_3 (Write) failed: timeout'), entry('INFO', 'done'), entry('FATAL', 'last')].join('\r\n');
		// The last three error lines, oldest first; the step is named in one of them, so not again. Version 2 quotes
		// them whole; 2.1 (the default) their message only, read with the log grammar: the step and why.
		expect(jobFailureReason(failed({ error: null, log }), 'logLines')).toBe(`${entry('ERROR', 'second')} | ${entry('INFO', 'Step 2 failed: Node node_3 (Write) failed: timeout')} | ${entry('FATAL', 'last')}`);
		expect(jobFailureReason(failed({ error: null, log }))).toBe('second | Step 2 failed: Node node_3 (Write) failed: timeout | last');
		expect(jobFailureReason(failed({ error: '', log: entry('INFO', 'all fine') }))).toBe('ended in Step 2');
		expect(jobFailureReason(failed({ error: null, log: null, currentStepId: null }))).toBeNull();
		expect(jobFailureReason({ ...RUNNING, executionStatus: 'COMPLETED', error: 'ignored' })).toBeNull();
		expect(jobFailureReason(failed({ executionStatus: 'cancelled', error: 'cancelled by user' }))).toBe('cancelled by user | ended in Step 2');
	});

	test('issue 49: the reason of the log line of the issue is the step and why, on both line ends; a line the grammar does not read is kept whole', () => {
		const line = '2026-11-28 04:33:44.465 [worker-1] INFO Step 2 failed: Node node_3 (Write inventory) failed: target table INVENTORY is locked by another session';
		const reason = 'Step 2 failed: Node node_3 (Write inventory) failed: target table INVENTORY is locked by another session';
		for (const end of ['\n', '\r\n', '']) expect(jobFailureReason(failed({ error: null, log: `${entry('INFO', 'started')}\n${line}${end}` }))).toBe(reason);
		// Minutes only: the error-line rule takes it, the grammar (seconds required) does not: kept as written.
		const short = '2026-11-28 04:33 [main] ERROR disk full';
		expect(jobFailureReason(failed({ error: null, log: short }))).toBe(`${short} | ended in Step 2`);
		expect(jobFailureReason(failed({ error: null, log: entry('ERROR', '') }))).toBe(`${entry('ERROR', '').trim()} | ended in Step 2`);
	});

	test('bounded: at MAX_REASON_CHARS kept whole, one past it cut and the cut said; only the log\'s last 64 KiB is read', () => {
		const exact = 'x'.repeat(400);
		expect(jobFailureReason(failed({ error: exact, currentStepId: null }))).toBe(exact);
		expect(jobFailureReason(failed({ error: 'y'.repeat(401), currentStepId: null }))).toBe('y'.repeat(400) + cutMarker(1));
		const long = jobFailureReason(failed({ error: null, currentStepId: 'S'.repeat(80), log: [1, 2, 3].map((n) => entry('ERROR', `${n}`.repeat(400))).join('\n') })) as string;
		// Three lines of 400+ characters, each cut at 300, joined: cut again at MAX_REASON_CHARS, and the cut said.
		const marker = long.lastIndexOf(' … [cut by the node: ');
		expect(marker).toBe(MAX_REASON_CHARS);
		expect(long.slice(marker)).toMatch(/^ … \[cut by the node: \d+ more characters\]$/);
		const buried = entry('ERROR', 'early') + '\n' + 'z'.repeat(64 * 1024) + '\n' + entry('INFO', 'ok');
		expect(jobFailureReason(failed({ error: null, log: buried }))).toBe('ended in Step 2');
	});
});
