/**
 * Version 2 of the trigger (issue 27 §5 and the trigger's parts of §1, §2, §4), through n8n-core's PollContext,
 * against a service that lists jobs oldest first (its jobs are the reference server's own JobStatuses): each event
 * says what happened in `outcome`, carries `jobId`, is simplified by default, and the Flow Name and Run Profile
 * filters are picked from the names the service lists. The tracker, and so exactly-once, is the same as version 1's.
 */
import type { IDataObject, INodeExecutionData, INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { nodeClasses, TRIGGER_NODE_TYPE } from '../../testkit/engine';
import { BROKEN, CATALOG, credentialsFor, NATIVE_TOKEN, SALES, startFixture } from '../../testkit/fixtures';
import { createPoller } from '../../testkit/poller';
import type { PollerOptions } from '../../testkit/poller';
import { searchList } from '../../testkit/listSearch';
import { startScriptedJobService } from '../../testkit/scriptedJobService';
import type { Job, ScriptedJobService } from '../../testkit/scriptedJobService';
import { runActionNode } from '../../testkit/engine';
import { isParsableLog, parseJobLog } from '../../nodes/shared/logParser';

const json = (items: INodeExecutionData[] | null) => (items ?? []).map((item) => item.json);
const byId = (items: IDataObject[]) => [...items].sort((a, b) => String(a.jobId ?? a.id).localeCompare(String(b.jobId ?? b.id)));
const STOPPED = { path: CATALOG.flows[2].flowFileName, id: CATALOG.flows[2].flowId };
/** The simplified event's fields, in order: n8n's guideline allows at most ten. */
const SIMPLIFIED_FIELDS = ['jobId', 'outcome', 'executionStatus', 'previousStatus', 'skippedStatuses', 'flowName', 'runProfileName', 'startTime', 'endTime', 'runtimeSeconds'];

/** Finished jobs as the reference server reports them: one completed, one failed (ERROR), one cancelled; oldest first. */
async function referenceJobs(): Promise<Job[]> {
	const fx = await startFixture('native');
	try {
		for (const flow of [SALES, BROKEN, STOPPED]) {
			const submitted = await runActionNode({
				credentials: fx.credentials,
				parameters: { authentication: fx.authentication, resource: 'job', operation: 'submit', flowFileName: flow.path, runProfileName: 'default' },
			});
			expect(submitted.error).toBeUndefined();
			fx.clock.advance(1000);
		}
		fx.clock.advance(60_000);
		const answer = await fetch(`${fx.server.url}/api/v1/jobs?filter=history`, { headers: { authorization: `Bearer ${NATIVE_TOKEN}` } });
		const newestFirst = (await answer.json()) as Job[];
		expect(newestFirst.map((job) => job.executionStatus)).toEqual(['CANCELLED', 'ERROR', 'COMPLETED']);
		return [...newestFirst].reverse();
	} finally {
		await fx.server.close();
	}
}

describe('Job Execution Trigger version 2, against a service listing jobs oldest first', () => {
	let service: ScriptedJobService;
	let finished: Job[];
	const [completedAt, failedAt, cancelledAt] = [0, 1, 2];
	const trigger = (extra: IDataObject = {}, options: PollerOptions = {}) =>
		createPoller({ authentication: 'jobExecutionApi', ...extra }, credentialsFor(service.url), { typeVersion: 2, ...options });
	const asQueued = (job: Job): Job => ({ ...job, executionStatus: 'QUEUED', startTime: null, endTime: null, log: null, runtimeFormatted: '', endTimeFormatted: '' });
	const asRunning = (job: Job): Job => ({ ...job, executionStatus: 'RUNNING', endTime: null, log: null, runtimeFormatted: '', endTimeFormatted: '' });

	beforeAll(async () => {
		finished = await referenceJobs();
	});
	beforeEach(async () => {
		service = await startScriptedJobService();
	});
	afterEach(async () => {
		await service.close();
	});

	test('a new trigger is version 2.1; one saved on version 1 or 2 keeps it; the description says what starts the workflow', () => {
		const description = nodeClasses[TRIGGER_NODE_TYPE].description as INodeTypeDescription;
		expect([description.version, description.defaultVersion]).toEqual([[1, 2, 2.1], 2.1]);
		expect(description.description).toMatch(/^Starts the workflow when a job .* completes, fails or is cancelled$/);
		const simplify = description.properties.find((property) => property.name === 'simplify') as INodeProperties;
		expect(simplify).toMatchObject({
			displayName: 'Simplify',
			type: 'boolean',
			default: true,
			description: 'Whether to return a simplified version of the response instead of the raw data',
			displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
		});
	});

	test('jobs queued and finished between two polls (first seen finished) arrive as completed, failed and cancelled', async () => {
		const poller = trigger();
		const v1 = createPoller({ authentication: 'jobExecutionApi' }, credentialsFor(service.url), { typeVersion: 1 });
		expect(await poller.poll()).toBeNull();
		expect(await v1.poll()).toBeNull();
		service.history = [...finished];
		const events = json(await poller.poll());
		expect(events.map((event) => [event.jobId, event.outcome, event.executionStatus, event.previousStatus])).toEqual(
			expect.arrayContaining([
				[finished[completedAt].id, 'completed', 'COMPLETED', null],
				[finished[failedAt].id, 'failed', 'ERROR', null],
				[finished[cancelledAt].id, 'cancelled', 'CANCELLED', null],
			]),
		);
		expect(events).toHaveLength(3);
		// Version 1 reports the same jobs only as "newJob": a builder branching on `event` misses that they ended.
		expect(json(await v1.poll()).map((event) => [event.event, 'outcome' in event])).toEqual([
			['newJob', false],
			['newJob', false],
			['newJob', false],
		]);
		expect(await poller.poll()).toBeNull();
	});

	test('a job seen queued then completed: outcome completed, with previousStatus and skippedStatuses kept', async () => {
		const job = finished[completedAt];
		const poller = trigger({ triggerOn: 'anyChange' });
		await poller.poll();
		service.active = [asQueued(job)];
		expect(json(await poller.poll()).map((event) => [event.jobId, event.outcome, event.previousStatus])).toEqual([[job.id, 'queued', null]]);
		service.active = [];
		service.history = [job];
		expect(json(await poller.poll())).toEqual([expect.objectContaining({ jobId: job.id, outcome: 'completed', previousStatus: 'QUEUED', skippedStatuses: ['RUNNING'] })]);
	});

	test('any change: started when a job runs, other for a status the spec does not name', async () => {
		const [a, b] = finished;
		const poller = trigger({ triggerOn: 'anyChange' });
		await poller.poll();
		service.active = [asQueued(a), asQueued(b)];
		await poller.poll();
		service.active = [asRunning(a), { ...asRunning(b), executionStatus: 'paused' }];
		const events = byId(json(await poller.poll())).map((event) => [event.jobId, event.outcome, event.executionStatus, event.previousStatus]);
		expect(events).toEqual(
			[
				[a.id, 'started', 'RUNNING', 'QUEUED'],
				[b.id, 'other', 'PAUSED', 'QUEUED'],
			].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
		);
	});

	test('Simplify is on by default: ten fields, jobId first, ISO times and runtimeSeconds, no raw log', async () => {
		const job = finished[completedAt];
		const poller = trigger();
		await poller.poll();
		service.history = [job];
		const [event] = json(await poller.poll());
		expect(Object.keys(event)).toEqual(SIMPLIFIED_FIELDS);
		expect(event).toEqual({
			jobId: job.id,
			outcome: 'completed',
			executionStatus: 'COMPLETED',
			previousStatus: null,
			skippedStatuses: [],
			flowName: 'sales',
			runProfileName: 'default',
			startTime: new Date(job.startTime as number).toISOString(),
			endTime: new Date(job.endTime as number).toISOString(),
			runtimeSeconds: Number(String(job.runtimeFormatted).replace(' seconds', '')),
		});
		expect(typeof job.log).toBe('string');
		expect(JSON.stringify(event).length).toBeLessThan(JSON.stringify(job).length / 2);
	});

	test('Simplify off: jobId and outcome first, the JobStatus as sent (log included), then how the tracker saw the job', async () => {
		// A service's own fields named jobId or outcome do not replace the trigger's.
		const job = { ...finished[failedAt], jobId: 'theirs', outcome: 'theirs' };
		const poller = trigger({ simplify: false });
		await poller.poll();
		service.history = [job];
		const [event] = json(await poller.poll());
		expect(event).toEqual({ ...job, jobId: job.id, outcome: 'failed', event: 'newJob', previousStatus: null, skippedStatuses: [] });
		expect(Object.keys(event).slice(0, 2)).toEqual(['jobId', 'outcome']);
	});

	describe('issue 49: version 2.1, in a workflow whose time zone is Asia/Kolkata (+05:30)', () => {
		const KOLKATA = 'Asia/Kolkata';
		const trigger21 = (extra: IDataObject = {}) => trigger(extra, { typeVersion: 2.1, timezone: KOLKATA });
		const SIMPLIFIED_21 = ['jobId', 'outcome', 'executionStatus', 'failureReason', 'previousStatus', 'flowName', 'runProfileName', 'startTime', 'endTime', 'runtimeSeconds'];
		const inKolkata = (ms: number) => new Date(ms + 5.5 * 3600_000).toISOString().slice(0, 23) + '+05:30';

		test('Simplify: ten fields, the failed and cancelled events say why (the step and its reason), times in the workflow\'s zone with their offset', async () => {
			const poller = trigger21();
			await poller.poll();
			service.history = [...finished];
			const events = byId(json(await poller.poll()));
			expect(events).toHaveLength(3);
			for (const event of events) {
				expect(Object.keys(event)).toEqual(SIMPLIFIED_21);
				const job = finished.find((candidate) => candidate.id === event.jobId) as Job;
				expect([event.startTime, event.endTime]).toEqual([inKolkata(job.startTime as number), inKolkata(job.endTime as number)]);
				expect(Date.parse(event.endTime as string)).toBe(job.endTime);
			}
			const reasons = Object.fromEntries(events.map((event) => [event.outcome, event.failureReason]));
			expect(reasons.completed).toBeNull();
			expect(reasons.failed).toMatch(/^Step 2 failed: Node node_\d+ \(.+\) failed: node raised an error$/);
			expect(reasons.cancelled).toMatch(/^Step \d+ cancelled: /);
		});

		test('Simplify off: failureReason right after outcome, the JobStatus as sent (its epoch times kept), then the tracker\'s view', async () => {
			const job: Job = { ...finished[failedAt], failureReason: 'theirs' };
			const poller = trigger21({ simplify: false });
			await poller.poll();
			service.history = [job];
			const [event] = json(await poller.poll());
			expect(Object.keys(event).slice(0, 3)).toEqual(['jobId', 'outcome', 'failureReason']);
			expect(event.failureReason).toMatch(/^Step 2 failed: /);
			expect(event).toMatchObject({ startTime: job.startTime, endTime: job.endTime, event: 'newJob', skippedStatuses: [] });
		});

		test('Parse Log\'s entry times are in the workflow\'s zone too; an unknown zone shows UTC and the log says so', async () => {
			const job = finished[completedAt];
			service.history = [job];
			const poller = trigger21({ triggerOn: 'statuses', statuses: ['COMPLETED'], options: { parseLog: true } });
			const [event] = json(await poller.poll('manual'));
			const times = (event.logParsed as { entries: Array<{ time: string }> }).entries.map((entry) => entry.time);
			const utc = parseJobLog(job.log as string).entries.map((entry) => Date.parse(`${entry.time.replace(' ', 'T')}Z`));
			expect(times).toEqual(utc.map(inKolkata));
			const mars = trigger({ triggerOn: 'statuses', statuses: ['COMPLETED'] }, { typeVersion: 2.1, timezone: 'Mars/Olympus' });
			const [unknown] = json(await mars.poll('manual'));
			expect(unknown.endTime).toBe(new Date(job.endTime as number).toISOString().replace('Z', '+00:00'));
			expect(mars.warnings).toEqual([expect.stringContaining('the workflow\'s time zone "Mars/Olympus" is not one this n8n knows')]);
		});

		test('version 2 in the same workflow keeps its items: UTC times, no failureReason', async () => {
			const poller = trigger({}, { typeVersion: 2, timezone: KOLKATA });
			await poller.poll();
			service.history = [finished[failedAt]];
			const [event] = json(await poller.poll());
			expect(Object.keys(event)).toEqual(SIMPLIFIED_FIELDS);
			expect(event.endTime).toBe(new Date(finished[failedAt].endTime as number).toISOString());
		});
	});

	test('Parse Log adds the parsed log to either form; Fetch Test Event has the version-2 shape and stores nothing', async () => {
		const job = finished[completedAt];
		const log = job.log as string;
		service.history = [...finished];
		for (const simplify of [true, false]) {
			const poller = trigger({ simplify, triggerOn: 'statuses', statuses: ['COMPLETED'], options: { parseLog: true } });
			const [event] = json(await poller.poll('manual'));
			expect(event).toMatchObject({ jobId: job.id, outcome: 'completed', logParsed: isParsableLog(log) ? parseJobLog(log) : null });
			expect(Object.keys(event)).toEqual(simplify ? [...SIMPLIFIED_FIELDS, 'logParsed'] : expect.arrayContaining(['log', 'event']));
			expect(poller.storedState()).toEqual({});
		}
	});

	test('version 2 tracks exactly as version 1: the same events fire once, and the stored tracker state is the same', async () => {
		const v1 = createPoller({ authentication: 'jobExecutionApi', triggerOn: 'anyChange' }, credentialsFor(service.url), { typeVersion: 1 });
		const v2 = trigger({ triggerOn: 'anyChange' });
		const rounds: Array<[Job[], Job[]]> = [
			[[], []],
			[[asQueued(finished[0]), asQueued(finished[1])], []],
			[[asRunning(finished[1])], [finished[0]]],
			[[], [finished[0], finished[1], finished[2]]],
			[[], [finished[0], finished[1], finished[2]]],
		];
		let fired = 0;
		for (const [active, history] of rounds) {
			service.active = active;
			service.history = history;
			const [one, two] = [json(await v1.poll()), json(await v2.poll())];
			fired += two.length;
			expect(two.map((event) => [event.jobId, event.executionStatus, event.previousStatus, event.skippedStatuses])).toEqual(
				one.map((event) => [event.id, event.executionStatus, event.previousStatus, event.skippedStatuses]),
			);
			// The same state but for the clock reading of each poll.
			const tracker = (state: IDataObject) => ({ ...((state['node:Job Execution Trigger'] as IDataObject).tracker as IDataObject), polledAt: 'now' });
			expect(tracker(v2.storedState())).toEqual(tracker(v1.storedState()));
		}
		// Queued a and b; a completed (RUNNING skipped), b started; b failed, c first seen cancelled.
		expect(fired).toBe(6);
	});

	test('Flow Name and Run Profile are picked from the names both lists hold, each once, sorted, searchable', async () => {
		service.active = [asRunning({ ...finished[0], flowName: 'zeta', runProfileName: 'nightly' })];
		service.history = [
			...finished,
			{ ...finished[0], id: 'x1', flowName: '  ' },
			{ ...finished[0], id: 'x2', flowName: 'line\nbreak' },
			{ ...finished[0], id: 'x3', flowName: 42 },
			{ ...finished[0], id: 'x4', flowName: 'n'.repeat(4097) },
		];
		const search = (method: string, filter?: string) =>
			searchList(method, { authentication: 'jobExecutionApi' }, credentialsFor(service.url), filter, { nodeType: TRIGGER_NODE_TYPE, typeVersion: 2, parameter: 'parameters.filters.flowName' });
		const names = async (method: string, filter?: string) => (await search(method, filter)).results.map((result) => [result.name, result.value]);
		expect(await names('searchFlowNames')).toEqual([
			['broken', 'broken'],
			['sales', 'sales'],
			['stopped', 'stopped'],
			['zeta', 'zeta'],
		]);
		expect(await names('searchFlowNames', ' ST')).toEqual([['stopped', 'stopped']]);
		expect(await names('searchRunProfiles')).toEqual([
			['default', 'default'],
			['nightly', 'nightly'],
		]);
	});

	test('picked, typed by name, or text (a workflow upgraded by hand): the filter keeps only that flow and run profile', async () => {
		const picked = (value: string, mode = 'list') => ({ __rl: true, mode, value });
		const settings: IDataObject[] = [
			{ flowName: picked('broken'), runProfileName: picked('default') },
			{ flowName: picked('broken', 'name'), runProfileName: picked('', 'list') },
			{ flowName: 'broken' },
		];
		service.history = [...finished];
		for (const filters of settings) {
			const poller = trigger({ filters, startFrom: 'existing' });
			expect(json(await poller.poll()).map((event) => [event.flowName, event.outcome])).toEqual([['broken', 'failed']]);
		}
		const none = trigger({ filters: { flowName: picked('sales'), runProfileName: picked('nightly', 'name') }, startFrom: 'existing' });
		expect(await none.poll()).toBeNull();
	});

	test('a Simplify that is not a boolean (an expression gone wrong) stops the poll and stores nothing', async () => {
		const poller = trigger({ simplify: 'yes' });
		await expect(poller.poll()).rejects.toMatchObject({ message: 'Simplify must be true or false, got "yes"' });
		expect(poller.storedState()).toEqual({});
	});
});
