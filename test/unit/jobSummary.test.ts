// The job vocabulary and the Simplify summary: status sets, timestamps, the simplified job and the status a body carries in any form the spec allows.
import { extractExecutionStatus } from '../../nodes/shared/jobStatusBody';
import { simplifyJob } from '../../nodes/shared/jobSummary';
import { ACTIVE_STATUSES, TERMINAL_STATUSES, isActiveStatus, isTerminalStatus, toEpochMs } from '../../nodes/shared/jobVocabulary';
import { expectedSecond } from '../../testkit/tables';

const START_MS = 1795255502120; // 2026-11-21T10:05:02.120Z
const END_MS = 1795255502620;

const COMPLETED_JOB = {
	id: '3f2c1a9e-7b4d-4e21-9c1a-0d5e6f7a8b9c',
	jobType: 'RUNPROFILE',
	flowName: 'sales',
	runProfileName: 'default',
	jobName: 'sales_default',
	startTime: START_MS,
	endTime: END_MS,
	executionStatus: 'COMPLETED',
	log: '2026-11-21 10:05:02.120 [main] INFO ...',
	executionPerformanceReport: null,
	error: null,
	currentStepId: 'Step 2',
	currentStepDescription: 'Step 2 (2)',
	currentStepStartTime: START_MS,
	currentStepStatus: 'COMPLETED',
	runProfile: 'sales_default',
	runtimeFormatted: '0.500 seconds',
	startTimeFormatted: '2026-11-21 10:05:02.120',
	endTimeFormatted: '2026-11-21 10:05:02.620',
	currentStepElapsedTime: 'N/A',
	somethingNew: { nested: true },
};

const RUNNING_JOB = {
	...COMPLETED_JOB,
	endTime: null,
	executionStatus: 'RUNNING',
	log: null,
	currentStepId: 'Step 1',
	currentStepDescription: 'Step 1 (0 of 2 completed)',
	currentStepStatus: 'RUNNING',
	runtimeFormatted: '',
	endTimeFormatted: '',
	currentStepElapsedTime: '0:00:01',
};

describe('status sets', () => {
	it('lists the terminal and active statuses', () => {
		expect([...TERMINAL_STATUSES]).toEqual(['COMPLETED', 'ERROR', 'CANCELLED']);
		expect([...ACTIVE_STATUSES]).toEqual(['QUEUED', 'RUNNING']);
	});

	it.each<[unknown, boolean, boolean]>([
		['COMPLETED', true, false],
		['ERROR', true, false],
		['CANCELLED', true, false],
		[' completed\n', true, false],
		['QUEUED', false, true],
		['RUNNING', false, true],
		['running', false, true],
		['UNKNOWN', false, false],
		['', false, false],
		[null, false, false],
		[undefined, false, false],
		[1, false, false],
		[{ executionStatus: 'COMPLETED' }, false, false],
	])('%p: terminal %p, active %p', (status, terminal, active) => {
		expect(isTerminalStatus(status)).toBe(terminal);
		expect(isActiveStatus(status)).toBe(active);
	});
});

describe('toEpochMs', () => {
	it.each(expectedSecond<unknown, number | null>([
		['13-digit ms', START_MS, START_MS],
		['10-digit seconds', 1795255502, 1795255502000],
		['fractional seconds', 1795255502.12, 1795255502120],
		['ms numeric string', String(START_MS), START_MS],
		['seconds numeric string with whitespace', ' 1795255502\n', 1795255502000],
		['bigint ms', BigInt(START_MS), START_MS],
		['smallest 10-digit', 1_000_000_000, 1_000_000_000_000],
		['largest 13-digit', 9_999_999_999_999, 9_999_999_999_999],
		['11 digits', 17952555021, null],
		['14 digits', 17952555021200, null],
		['zero', 0, null],
		['negative', -START_MS, null],
		['NaN', Number.NaN, null],
		['Infinity', Number.POSITIVE_INFINITY, null],
		['ISO date text', '2026-11-21T10:05:02.120Z', null],
		['formatted date text', '2026-11-21 10:05:02.120', null],
		['signed string', '-1795255502', null],
		['exponent string', '1.7e12', null],
		['empty string', '', null],
		['null', null, null],
		['undefined', undefined, null],
		['boolean', true, null],
		['object', { value: START_MS }, null],
		['Date', new Date(START_MS), null],
	]))('%s → %p', (_name, expected, value) => {
		expect(toEpochMs(value)).toBe(expected);
	});
});

describe('simplifyJob', () => {
	it('summarises a completed job', () => {
		expect(simplifyJob(COMPLETED_JOB)).toEqual({
			id: COMPLETED_JOB.id,
			jobName: 'sales_default',
			flowName: 'sales',
			runProfileName: 'default',
			executionStatus: 'COMPLETED',
			currentStep: 'Step 2 (2)',
			startTime: '2026-11-21T10:05:02.120Z',
			endTime: '2026-11-21T10:05:02.620Z',
			runtimeSeconds: 0.5,
			finished: true,
		});
	});

	it('takes the id from `id`, `jobId` only without one, and `jobName` before `runProfile`, the step text before its id', () => {
		expect(simplifyJob({ id: 'from-id', jobId: 'from-jobId', jobName: 'n', runProfile: 'p', currentStepDescription: 'Step 2', currentStepId: 's2' })).toMatchObject({ id: 'from-id', jobName: 'n', currentStep: 'Step 2' });
		expect(simplifyJob({ jobId: 'from-jobId', runProfile: 'p', currentStepId: 's2' })).toMatchObject({ id: 'from-jobId', jobName: 'p', currentStep: 's2' });
	});

	it('a runtime from the times at their edge: ended the instant it started → 0 s; ended 1 ms before → none', () => {
		const at = Date.UTC(2026, 10, 21, 10, 5, 2);
		expect(simplifyJob({ startTime: at, endTime: at }).runtimeSeconds).toBe(0);
		expect(simplifyJob({ startTime: at, endTime: at - 1 }).runtimeSeconds).toBeNull();
	});

	it('summarises a running job', () => {
		expect(simplifyJob(RUNNING_JOB)).toEqual({
			id: COMPLETED_JOB.id,
			jobName: 'sales_default',
			flowName: 'sales',
			runProfileName: 'default',
			executionStatus: 'RUNNING',
			currentStep: 'Step 1 (0 of 2 completed)',
			startTime: '2026-11-21T10:05:02.120Z',
			endTime: null,
			runtimeSeconds: null,
			finished: false,
		});
	});

	it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
		['seconds timestamps', { startTime: 1795255502, endTime: '1795255504' }, { startTime: '2026-11-21T10:05:02.000Z', endTime: '2026-11-21T10:05:04.000Z' }],
		['runtime computed when runtimeFormatted is missing', { runtimeFormatted: undefined }, { runtimeSeconds: 0.5 }],
		['runtime computed when runtimeFormatted is junk', { runtimeFormatted: 'N/A' }, { runtimeSeconds: 0.5 }],
		['numeric runtimeFormatted', { runtimeFormatted: 12 }, { runtimeSeconds: 12 }],
		['runtimeFormatted without unit', { runtimeFormatted: '3.25' }, { runtimeSeconds: 3.25 }],
		['end before start gives no runtime', { runtimeFormatted: null, endTime: START_MS - 1000 }, { runtimeSeconds: null }],
		['currentStepId when there is no description', { currentStepDescription: null }, { currentStep: 'Step 2' }],
		['empty description falls back too', { currentStepDescription: '  ' }, { currentStep: 'Step 2' }],
		['jobId when there is no id', { id: undefined, jobId: 'abc' }, { id: 'abc' }],
		['numeric id', { id: 42 }, { id: '42' }],
		['runProfile when there is no jobName', { jobName: null }, { jobName: 'sales_default' }],
		['unknown status with end time is finished', { executionStatus: 'DONE' }, { finished: true, executionStatus: 'DONE' }],
		['unknown status without end time is not', { executionStatus: null, endTime: null }, { finished: false, executionStatus: null }],
		['lower-case terminal status', { executionStatus: 'error' }, { finished: true, executionStatus: 'error' }],
		['active status wins over a stray end time', { executionStatus: 'RUNNING' }, { finished: false }],
		['junk timestamps', { startTime: 'soon', endTime: {} }, { startTime: null, endTime: null }],
	])('%s: %p → %p', (_name, overrides, expected) => {
		expect(simplifyJob({ ...COMPLETED_JOB, ...overrides })).toMatchObject(expected);
	});

	it.each<[string, unknown]>([
		['empty object', {}],
		['null', null],
		['undefined', undefined],
		['array', [COMPLETED_JOB]],
		['string', 'COMPLETED'],
		['all fields null', Object.fromEntries(Object.keys(COMPLETED_JOB).map((k) => [k, null]))],
	])('never throws: %s → every field null, not finished', (_name, job) => {
		expect(simplifyJob(job as Record<string, unknown>)).toEqual({
			id: null,
			jobName: null,
			flowName: null,
			runProfileName: null,
			executionStatus: null,
			currentStep: null,
			startTime: null,
			endTime: null,
			runtimeSeconds: null,
			finished: false,
		});
	});

	it('does not leak the log or extra fields', () => {
		const simplified = simplifyJob(COMPLETED_JOB);
		expect(simplified).not.toHaveProperty('log');
		expect(simplified).not.toHaveProperty('somethingNew');
		expect(JSON.parse(JSON.stringify(simplified))).toEqual(simplified);
	});
});

describe('extractExecutionStatus', () => {
	it.each(expectedSecond<unknown, string | null>([
		['bare value', 'RUNNING', 'RUNNING'],
		['bare value with newline', 'RUNNING\n', 'RUNNING'],
		['bare value with CRLF and spaces', '  COMPLETED \r\n', 'COMPLETED'],
		['single-quoted', "'RUNNING'", 'RUNNING'],
		['JSON string text', '"RUNNING"', 'RUNNING'],
		['JSON string text with newline', '"ERROR"\n', 'ERROR'],
		['unterminated quote', '"RUNNING', 'RUNNING'],
		['JSON-in-JSON string', JSON.stringify(JSON.stringify('QUEUED')), 'QUEUED'],
		['case kept', 'Running', 'Running'],
		['object', { executionStatus: 'RUNNING' }, 'RUNNING'],
		['object with padded value', { executionStatus: ' CANCELLED\n' }, 'CANCELLED'],
		['full JobStatus', COMPLETED_JOB, 'COMPLETED'],
		['object as JSON text', '{"executionStatus":"RUNNING"}', 'RUNNING'],
		['object as JSON text with whitespace', '\n { "executionStatus" : "ERROR" } \n', 'ERROR'],
		['full JobStatus as JSON text', JSON.stringify(RUNNING_JOB), 'RUNNING'],
		['single-element array', ['RUNNING'], 'RUNNING'],
		['single-element array text', '[{"executionStatus":"QUEUED"}]', 'QUEUED'],
		['key: value text', 'executionStatus: RUNNING', 'RUNNING'],
		['key=value text', 'executionStatus=COMPLETED', 'COMPLETED'],
		['bytes', new TextEncoder().encode('"RUNNING"'), 'RUNNING'],
		['full response wrapper', { statusCode: 200, headers: {}, body: '"RUNNING"' }, 'RUNNING'],
		['object without the field', { status: 'RUNNING' }, null],
		['null field', { executionStatus: null }, null],
		['several values', ['RUNNING', 'QUEUED'], null],
		['empty string', '', null],
		['whitespace', ' \n ', null],
		['empty quotes', '""', null],
		['broken JSON', '{"executionStatus":', null],
		['HTML error page', '<html><body>Bad Request</body></html>', null],
		['sentence', 'Internal server error', null],
		['number', 200, null],
		['boolean', true, null],
		['null', null, null],
		['undefined', undefined, null],
	]))('%s → %p', (_name, expected, body) => {
		expect(extractExecutionStatus(body)).toBe(expected);
	});

	it('does not throw on hostile objects', () => {
		const hostile = new Proxy(
			{},
			{
				has() {
					throw new Error('boom');
				},
			},
		);
		expect(extractExecutionStatus(hostile)).toBeNull();
		// A status JSON-encoded again and again is read through 4 encodings and no further (the depth bound).
		const encoded = (times: number) => Array.from({ length: times }).reduce<string>((value) => JSON.stringify(value), 'RUNNING');
		expect(extractExecutionStatus(encoded(4))).toBe('RUNNING');
		expect(extractExecutionStatus(encoded(5))).toBeNull();
		expect(extractExecutionStatus(encoded(12))).toBeNull();
	});
});
