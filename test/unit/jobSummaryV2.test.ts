// Version 2's summary (summarizeJob, shared by the action node and the trigger), the step progress and time readings it and Get Many use, and shapeJob's three output shapes.
import { JOB_STATUS_FIELDS, shapeJob } from '../../nodes/shared/jobOutput';
import { summarizeJob } from '../../nodes/shared/jobSummary';
import { readTimestamp, stepProgress } from '../../nodes/shared/jobVocabulary';

const ID = '3f2c1a9e-7b4d-4e21-9c1a-0d5e6f7a8b9c';
const START_MS = 1795255502120; // 2026-11-21T10:05:02.120Z
const RUNNING = {
	id: ID, flowName: 'sales', runProfileName: 'default', jobName: 'sales_default', startTime: START_MS, endTime: null, executionStatus: 'RUNNING',
	log: null, currentStepId: 'Step 2', currentStepDescription: 'Step 2 (1 of 3 completed)', runtimeFormatted: '',
};

describe('stepProgress', () => {
	test.each([
		['Step 2 (1 of 3 completed)', { completed: 1, total: 3 }],
		['  step 1 ( 0 of 12 completed ) ', { completed: 0, total: 12 }],
		['Step 3 (3)', { completed: 3, total: 3 }],
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
