// Version 2's summary (summarizeJob, shared by the action node and the trigger), the step progress and time readings it and Get Many use, and shapeJob's three output shapes.
import { JOB_STATUS_FIELDS, shapeJob } from '../../nodes/shared/jobOutput';
import { jobFailureReason, MAX_REASON_CHARS, summarizeJob } from '../../nodes/shared/jobSummary';
import { isoInZone, labelInZone, readGivenTime, readTimestamp, stepProgress } from '../../nodes/shared/jobVocabulary';
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

	test('the time shown, typed back without its offset, is the same instant in every zone, across a change of offset', () => {
		const zones = [NEW_YORK, 'Europe/Berlin', 'Asia/Kolkata', 'Australia/Lord_Howe', 'UTC', 'Pacific/Chatham'];
		// Every 7 hours over a year: both sides of every change of offset these zones have.
		for (let ms = Date.parse('2026-01-01T00:00:00Z'); ms < Date.parse('2027-01-01T00:00:00Z'); ms += 7 * 3600_000 + 1000) {
			for (const zone of zones) {
				const typed = isoInZone(ms, zone).slice(0, 23);
				const read = readGivenTime(typed, zone);
				// A wall time that occurs twice (the hour a clock goes back) may read as the other instant, an offset change apart.
				if (read !== ms) expect([zone, Math.abs((read as number) - ms) <= 3600_000]).toEqual([zone, true]);
			}
		}
		expect(readGivenTime(isoInZone(START_MS, NEW_YORK).slice(0, 23), NEW_YORK)).toBe(START_MS);
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
