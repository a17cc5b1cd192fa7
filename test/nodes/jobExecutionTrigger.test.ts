/**
 * The trigger through n8n-core's PollContext against the real reference server (controllable clock), both
 * interfaces: every (job, watched status) reported exactly once across polls, caps, outages and restarts. Every
 * trigger here is saved on version 1, whose items must never change (version 2: jobExecutionTriggerV2.test.ts).
 */
import { join } from 'path';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { runActionNode } from '../../testkit/engine';
import { BROKEN, credentialsFor, INTERFACES, SALES, startFixture } from '../../testkit/fixtures';
import type { Fixture, Interface } from '../../testkit/fixtures';
import { createPoller as createPollerAt } from '../../testkit/poller';
import type { PollerOptions, SavingMode } from '../../testkit/poller';
import { startScriptedJobService } from '../../testkit/scriptedJobService';
import type { Job, ReadFault, ScriptedJobService } from '../../testkit/scriptedJobService';
import { MAX_MISSES, MAX_STATE_BYTES } from '../../nodes/JobExecutionTrigger/jobStatusTracker';
import { isParsableLog, parseJobLog } from '../../nodes/shared/logParser';
import * as transport from '../../nodes/shared/transport';
import { transportTiming } from '../../nodes/shared/transport';
import { writeMeasuredBlock } from '../../testkit/measuredBlock';

/** A trigger saved on version 1: what it emits is pinned by these tests. */
const createPoller = (parameters: Parameters<typeof createPollerAt>[0], credentials: Parameters<typeof createPollerAt>[1], options: PollerOptions = {}) =>
	createPollerAt(parameters, credentials, { ...options, typeVersion: 1 });

const json = (items: INodeExecutionData[] | null) => (items ?? []).map((item) => item.json);

// Reads are retried as in production, without waiting the production backoff.
const productionDelays = transportTiming.retryDelaysMs;
beforeAll(() => (transportTiming.retryDelaysMs = [1, 1, 1]));
afterAll(() => (transportTiming.retryDelaysMs = productionDelays));

describe.each(INTERFACES)('Job Execution Trigger over the %s interface', (kind: Interface) => {
	let fx: Fixture;
	afterEach(async () => {
		await fx.server.close();
	});

	const params = (extra: IDataObject = {}) => ({ authentication: fx.authentication, ...extra });
	const submit = async (flow = SALES, count = 1) => {
		const ids: string[] = [];
		for (let i = 0; i < count; i++) {
			const result = await runActionNode({
				credentials: fx.credentials,
				parameters: { authentication: fx.authentication, resource: 'job', operation: 'submit', ...fx.flow(flow), runProfileName: 'default' },
			});
			ids.push(result.json[0].jobId as string);
		}
		return ids;
	};

	test('from now on: the baseline fires nothing, then each finished job fires once', async () => {
		fx = await startFixture(kind);
		const [before] = await submit();
		fx.clock.advance(10_000);
		const poller = createPoller(params(), fx.credentials);
		expect(await poller.poll()).toBeNull();
		const [ok] = await submit();
		const [failed] = await submit(BROKEN);
		expect(await poller.poll()).toBeNull(); // queued/running: not watched by default
		fx.clock.advance(10_000);
		const events = json(await poller.poll());
		expect(events.map((e) => [e.id, e.executionStatus, e.previousStatus, e.event]).sort()).toEqual(
			[
				[ok, 'COMPLETED', 'RUNNING', 'statusChanged'],
				[failed, 'ERROR', 'RUNNING', 'statusChanged'],
			].sort(),
		);
		expect(events.find((e) => e.id === before)).toBeUndefined();
		expect(await poller.poll()).toBeNull();
	});

	test('in n8n 1.x, whose polls have no time budget, finished jobs still fire once', async () => {
		fx = await startFixture(kind);
		const poller = createPoller(params(), fx.credentials, { withoutPollBudget: true });
		expect(await poller.poll()).toBeNull();
		const [ok] = await submit();
		fx.clock.advance(10_000);
		expect(json(await poller.poll()).map((e) => [e.id, e.executionStatus])).toEqual([[ok, 'COMPLETED']]);
		expect(await poller.poll()).toBeNull();
	});

	test('a job that jumps from QUEUED to COMPLETED between polls fires once, naming the skipped RUNNING', async () => {
		fx = await startFixture(kind, { concurrency: 1 });
		const poller = createPoller(params(), fx.credentials);
		await poller.poll();
		const [first, second] = await submit(SALES, 2);
		expect(await poller.poll()).toBeNull();
		fx.clock.advance(60_000);
		const events = json(await poller.poll());
		const secondEvent = events.find((e) => e.id === second)!;
		expect(secondEvent).toMatchObject({ previousStatus: 'QUEUED', executionStatus: 'COMPLETED', skippedStatuses: ['RUNNING'] });
		expect(events.find((e) => e.id === first)).toMatchObject({ previousStatus: 'RUNNING', skippedStatuses: [] });
	});

	test('any change: new jobs and every transition, each once', async () => {
		fx = await startFixture(kind, { concurrency: 1 });
		const poller = createPoller(params({ triggerOn: 'anyChange' }), fx.credentials);
		await poller.poll();
		const [a, b] = await submit(SALES, 2);
		const first = json(await poller.poll());
		expect(first.map((e) => [e.id, e.event, e.executionStatus]).sort()).toEqual(
			[
				[a, 'newJob', 'RUNNING'],
				[b, 'newJob', 'QUEUED'],
			].sort(),
		);
		fx.clock.advance(3500); // a completed at 3000, b running since then
		const second = json(await poller.poll());
		expect(second.map((e) => [e.id, e.previousStatus, e.executionStatus]).sort()).toEqual(
			[
				[a, 'RUNNING', 'COMPLETED'],
				[b, 'QUEUED', 'RUNNING'],
			].sort(),
		);
		expect(await poller.poll()).toBeNull();
	});

	test('more than 100 jobs: tracked jobs that fall off both capped lists are read one by one, none missed', async () => {
		fx = await startFixture(kind, { concurrency: 200 });
		const poller = createPoller(params({ options: { maxIndividualReads: 20 } }), fx.credentials);
		await poller.poll();
		const ids = await submit(SALES, 150);
		await poller.poll(); // tracks the 100 newest (the active list is capped)
		fx.clock.advance(60_000);
		const seen = new Map<string, number>();
		for (let i = 0; i < 6; i++) {
			for (const event of json(await poller.poll())) seen.set(event.id as string, (seen.get(event.id as string) ?? 0) + 1);
		}
		// The 50 oldest were never on the active list (cap 100) and are not on the 100-newest history list:
		// they are beyond what the service shows. Every job the trigger tracked fires exactly once.
		const tracked = ids.slice(50);
		expect(tracked.every((id) => seen.get(id) === 1)).toBe(true);
		expect([...seen.values()].every((count) => count === 1)).toBe(true);
		expect(JSON.stringify(poller.storedState()).length).toBeLessThan(64 * 1024);
	});

	test.each<[SavingMode, string | null]>([
		['durableCursors', 'RUNNING'],
		// n8n's default mode saved nothing after the poll that saw them running: after a restart they are new jobs.
		['default', null],
	])('a poll that fails midway stores nothing; after a restart the next good poll reports everything once (%s saving)', async (saving, previousStatus) => {
		fx = await startFixture(kind);
		const poller = createPoller(params(), fx.credentials, { saving });
		await poller.poll();
		const ids = await submit(SALES, 3);
		await poller.poll();
		const stateBefore = JSON.stringify(poller.liveState());
		fx.clock.advance(60_000);
		// The active list answers, the history list fails on the first try and on every retry.
		const history = { method: 'GET', target: '/api/v1/jobs?filter=history' } as const;
		fx.server.faults.inject([
			{ kind: 'status', status: 503, times: 2, ...history },
			{ kind: 'status', status: 502, ...history },
			{ kind: 'status', status: 500, ...history },
		]);
		await expect(poller.poll()).rejects.toMatchObject({ name: 'NodeApiError', httpCode: '500' });
		expect(fx.server.faults.waiting()).toBe(0);
		expect(JSON.stringify(poller.liveState())).toBe(stateBefore);
		fx.server.faults.inject({ kind: 'drop', times: 4 });
		await expect(poller.poll()).rejects.toMatchObject({ name: 'NodeApiError', httpCode: 'ECONNRESET' });
		expect(JSON.stringify(poller.liveState())).toBe(stateBefore);
		poller.restart(); // n8n restarts with the stored static data
		const events = json(await poller.poll());
		expect(events.map((e) => e.id).sort()).toEqual([...ids].sort());
		expect(events.every((e) => e.executionStatus === 'COMPLETED' && e.previousStatus === previousStatus)).toBe(true);
		poller.restart();
		expect(await poller.poll()).toBeNull();
	});

	test('changing the watched statuses or filters does not replay old events', async () => {
		fx = await startFixture(kind);
		const poller = createPoller(params(), fx.credentials);
		await poller.poll();
		await submit(SALES, 2);
		fx.clock.advance(60_000);
		expect(json(await poller.poll())).toHaveLength(2);
		poller.restart(params({ triggerOn: 'anyChange', filters: { flowName: 'sales' } }));
		expect(await poller.poll()).toBeNull();
	});

	test('include existing jobs: the first poll fires for the jobs already there', async () => {
		fx = await startFixture(kind);
		const ids = await submit(SALES, 2);
		fx.clock.advance(60_000);
		const poller = createPoller(params({ startFrom: 'existing', options: { parseLog: true } }), fx.credentials);
		const events = json(await poller.poll());
		expect(events.map((e) => e.id).sort()).toEqual([...ids].sort());
		expect(events[0]).toMatchObject({ event: 'newJob', previousStatus: null });
		expect((events[0].logParsed as IDataObject).finalStatus).toBe('COMPLETED');
		expect(await poller.poll()).toBeNull();
	});

	test('manual mode returns the most recent matching job and writes no state', async () => {
		fx = await startFixture(kind);
		const poller = createPoller(params({ filters: { flowName: 'sales' } }), fx.credentials);
		await expect(poller.poll('manual')).rejects.toMatchObject({
			message: 'No job matches the trigger settings yet',
			description: expect.stringContaining('Checked 0 active and 0 finished jobs: none is in COMPLETED, ERROR, CANCELLED with flow "sales"'),
		});
		const [older] = await submit();
		fx.clock.advance(1000);
		const [newer] = await submit();
		fx.clock.advance(60_000);
		const items = json(await poller.poll('manual'));
		expect(items).toHaveLength(1);
		expect(items[0].id).toBe(newer);
		expect(older).not.toBe(newer);
		expect(poller.storedState()).toEqual({});
	});
});

// Issue 20: what a lying or failing service can do to the trigger, through n8n-core's PollContext.
describe('Job Execution Trigger against a service that fails or lies', () => {
	let service: ScriptedJobService;
	const T = 1_795_000_000_000;
	const DAY = 86_400_000;
	const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
	const running = (id: string): Job => ({ id, executionStatus: 'RUNNING', flowName: 'f', runProfileName: 'p', startTime: T, endTime: null });
	const finished = (id: string, endTime: unknown = T + 1000, status = 'COMPLETED'): Job => ({ ...running(id), executionStatus: status, endTime });
	const trigger = (extra: IDataObject = {}) => createPoller({ authentication: 'jobExecutionApi', ...extra }, credentialsFor(service.url));
	beforeEach(async () => {
		service = await startScriptedJobService();
	});
	afterEach(async () => {
		await service.close();
	});

	const faults: Array<[string, ReadFault]> = [
		['403', { status: 403 }],
		['404', { status: 404 }],
		['500', { status: 500 }],
		['429', { status: 429 }],
		['an unreadable answer', 'notJson'],
	];
	test.each(faults)('a tracked job whose read always answers %s: the poll goes on, that job is retried with backoff, logged, then given up; the others fire', async (_name, fault) => {
		const poller = trigger();
		service.active = [running('bad'), running('ok')];
		expect(await poller.poll()).toBeNull();
		// Both fall off the lists; 'ok' finished, 'bad' cannot be read.
		service.active = [];
		service.jobs.set('ok', finished('ok'));
		service.readFaults.set('bad', fault);
		const fired: string[] = [];
		let readsOfBad = 0;
		for (let poll = 1; poll <= 34; poll++) {
			const before = service.requests.filter((path) => path.endsWith('/jobs/bad')).length;
			for (const item of json(await poller.poll())) fired.push(`${String(item.id)} ${String(item.executionStatus)}`);
			if (service.requests.filter((path) => path.endsWith('/jobs/bad')).length > before) readsOfBad++;
		}
		expect(fired).toEqual(['ok COMPLETED']);
		expect(readsOfBad).toBe(MAX_MISSES);
		const about = poller.warnings.filter((line) => line.includes('bad'));
		expect(about).toHaveLength(MAX_MISSES);
		expect(about[0]).toMatch(/could not read 1 tracked job\(s\) \(.+: bad\); each is read again in a later poll, with backoff, up to 6 reads/);
		expect(about[MAX_MISSES - 1]).toContain('gave up 1 tracked job(s) after 6 failed reads: bad');
		expect(JSON.stringify(poller.liveState())).not.toContain('"bad"');
	});

	test('a listed id holding a lone UTF-16 surrogate (valid JSON): that job is skipped as its own trouble, 8 of 8 polls succeed and the other job fires once', async () => {
		const poller = trigger({ triggerOn: 'anyChange' });
		const illFormed = 'job-\ud800-x';
		service.active = [running(illFormed), running('ok')];
		let failedPolls = 0;
		const fired: string[] = [];
		const poll = async () => {
			try {
				for (const item of json(await poller.poll())) fired.push(`${String(item.id)} ${String(item.executionStatus)}`);
			} catch {
				failedPolls++;
			}
		};
		await poll();
		// Both leave the lists; only an individual read could find them.
		service.active = [];
		service.jobs.set('ok', finished('ok'));
		service.jobs.set(illFormed, finished(illFormed));
		for (let n = 1; n < 8; n++) await poll();
		expect(failedPolls).toBe(0);
		expect(fired).toEqual(['ok COMPLETED']);
		expect(poller.warnings.some((line) => line.includes('skipped 1 listed job(s) without a usable ID'))).toBe(true);
		const figure = `A listed id holding a lone surrogate: ${failedPolls} of 8 polls failed, the other job's COMPLETED fired ${fired.length} time(s).`;
		process.stdout.write(`${figure}\n`);
		writeMeasuredBlock(join(__dirname, '../../docs/guarantees.md'), 'ill-formed-ids', 'test/nodes/jobExecutionTrigger.test.ts', `  ${figure}`);
	});

	test('an individual read answered 429 with Retry-After stops the poll\'s other individual reads; only the job read counts a miss', async () => {
		const poller = trigger();
		const ids = ['r1', 'r2', 'r3'];
		service.active = ids.map(running);
		await poller.poll();
		service.active = [];
		for (const id of ids) {
			service.jobs.set(id, finished(id));
			service.readFaults.set(id, { status: 429, headers: { 'retry-after': '1' } });
		}
		const reads = () => service.requests.filter((path) => /\/jobs\/r\d$/.test(path)).length;
		expect(await poller.poll()).toBeNull();
		// The transport honours the 1 s Retry-After within the call once, then gives up: one job's read, no other.
		const readsInPoll = reads();
		expect(new Set(service.requests.filter((path) => /\/jobs\/r\d$/.test(path))).size).toBe(1);
		expect(readsInPoll).toBeGreaterThanOrEqual(1);
		const open = (poller.liveState()['node:Job Execution Trigger'] as IDataObject).tracker as { open: Record<string, { misses?: number }> };
		expect(ids.filter((id) => (open.open[id]?.misses ?? 0) > 0)).toHaveLength(1);
		// The service recovers: every job fires once.
		for (const id of ids) service.readFaults.delete(id);
		const fired = [...json(await poller.poll()), ...json(await poller.poll()), ...json(await poller.poll())].map((item) => item.id);
		expect([...fired].sort()).toEqual(ids);
	});

	test('individual reads stop at half the engine\'s poll budget (2 s: 1 s of reads, each read moving the clock 400 ms): 3 of 5, the rest next poll', async () => {
		const poller = createPoller({ authentication: 'jobExecutionApi' }, credentialsFor(service.url), { pollBudgetMs: 2000 });
		const ids = ['r1', 'r2', 'r3', 'r4', 'r5'];
		service.active = ids.map(running);
		await poller.poll();
		service.active = [];
		for (const id of ids) service.jobs.set(id, finished(id));
		// The node's clock stands still but for each read that ended: the stop depends on reads made, not on how fast
		// they were (a clock that also ran in real time let a loaded machine stop after 2).
		let moved = 0;
		const base = Date.now();
		jest.spyOn(Date, 'now').mockImplementation(() => base + moved);
		const read = transport.apiRequest;
		jest.spyOn(transport, 'apiRequest').mockImplementation(async function (this: unknown, ...args: Parameters<typeof read>) {
			try {
				return await read.apply(this as never, args);
			} finally {
				moved += 400;
			}
		});
		const reads = () => service.requests.filter((path) => /\/jobs\/r\d$/.test(path));
		const first = json(await poller.poll()).map((item) => item.id);
		expect(reads()).toEqual(['/api/v1/jobs/r1', '/api/v1/jobs/r2', '/api/v1/jobs/r3']);
		expect(first).toEqual(['r1', 'r2', 'r3']);
		// Left for the next poll, not tried and failed.
		expect(poller.warnings.filter((line) => line.includes('could not read'))).toEqual([]);
		expect(json(await poller.poll()).map((item) => item.id)).toEqual(['r4', 'r5']);
		expect(reads()).toHaveLength(5);
	});

	test('list entries that are not jobs (a number, a text, null) and a job without an id, on either list, are skipped and counted in the log line', async () => {
		const poller = trigger({ triggerOn: 'anyChange' });
		await poller.poll();
		service.active = [running('a'), 42, 'x'] as unknown as Job[];
		service.history = [null, { executionStatus: 'COMPLETED' }] as unknown as Job[];
		expect(json(await poller.poll()).map((item) => item.id)).toEqual(['a']);
		expect(poller.warnings.at(-1)).toMatch(/^Job Execution Trigger: skipped 4 listed job\(s\) without a usable ID$/);
	});

	test.each([
		['within 15 minutes: the process\'s baseline is used, the job that finished meanwhile fires', 14 * 60_000, ['a']],
		['after 15 minutes: "from now on" starts again from now, nothing fires', 16 * 60_000, null],
	] as const)('durable cursors, an uncommitted activation baseline, re-activated %s', async (_name, later, fired) => {
		const poller = createPoller({ authentication: 'jobExecutionApi' }, credentialsFor(service.url), { saving: 'durableCursors' });
		service.active = [running('a')];
		expect(await poller.poll()).toBeNull();
		expect(poller.storedState()).toEqual({});
		service.active = [];
		service.history = [finished('a')];
		poller.reactivate();
		clockAhead(later);
		const items = await poller.poll();
		expect(items === null ? null : json(items).map((item) => item.id)).toEqual(fired);
	});

	test('900 jobs ending a day ahead (a skewed clock), then 20 ordinary jobs: 20 of 20 fire', async () => {
		const poller = trigger();
		const future = Array.from({ length: 900 }, (_, i) => finished(uuid(i), T + DAY + i));
		const ordinary = Array.from({ length: 20 }, (_, i) => uuid(5000 + i));
		const newestFirst = (jobs: Job[]) => [...jobs].sort((a, b) => (b.endTime as number) - (a.endTime as number)).slice(0, 100);
		await poller.poll();
		for (let k = 1; k <= 9; k++) {
			service.history = newestFirst(future.slice(0, k * 100));
			await poller.poll();
		}
		service.active = ordinary.map(running);
		await poller.poll();
		service.active = [];
		for (const id of ordinary) service.jobs.set(id, finished(id, T + 5000));
		service.history = newestFirst([...future, ...ordinary.map((id) => finished(id, T + 5000))]);
		const fired = new Set<string>();
		for (let poll = 0; poll < 3; poll++) for (const item of json(await poller.poll())) fired.add(String(item.id));
		expect([...fired].sort()).toEqual(ordinary);
	});

	test('ISO-text end times on a moving history list: 100 polls, each job fires once (0 duplicates)', async () => {
		const poller = trigger();
		await poller.poll();
		const fired = new Map<string, number>();
		for (let poll = 0; poll < 100; poll++) {
			service.history = Array.from({ length: 100 }, (_, i) => {
				const n = poll * 12 + 99 - i;
				return finished(uuid(n), new Date(T + n * 1000).toISOString());
			});
			for (const item of json(await poller.poll())) fired.set(String(item.id), (fired.get(String(item.id)) ?? 0) + 1);
		}
		expect([...fired.values()].filter((count) => count > 1)).toEqual([]);
		expect(fired.size).toBe(100 + 99 * 12);
	});

	test(`huge statuses and 256-character ids of 3-byte characters: the saved state stays under MAX_STATE_BYTES (${MAX_STATE_BYTES} B)`, async () => {
		const poller = trigger({ triggerOn: 'anyChange' });
		const longId = (n: number) => `${n}`.padStart(8, '0') + '\u4e2d'.repeat(248);
		let max = 0;
		for (let poll = 0; poll < 2; poll++) {
			// 350 such jobs keep the list under the transport's 8 MiB answer cap (a larger list is refused whole).
			service.active = Array.from({ length: 350 }, (_, i) => ({ ...running(longId(poll * 2000 + i)), executionStatus: 'X'.repeat(20_008) }));
			service.history = Array.from({ length: 500 }, (_, i) => finished(longId(poll * 2000 + 1000 + i)));
			await poller.poll();
			max = Math.max(max, Buffer.byteLength(JSON.stringify(poller.storedState())));
		}
		expect(max).toBeLessThan(100 * 1024);
		expect(max).toBeGreaterThan(MAX_STATE_BYTES * 0.9);
		process.stdout.write(`trigger state at worst case through the engine: ${max} B of static data\n`);
	});

	test('a full history list none of whose jobs was seen before: a possible gap, logged with its window, or emitted as one item', async () => {
		for (const onPossibleGap of ['logOnly', 'emitItem']) {
			const poller = trigger({ options: { onPossibleGap } });
			service.history = Array.from({ length: 100 }, (_, i) => finished(uuid(i)));
			await poller.poll();
			service.history = Array.from({ length: 100 }, (_, i) => finished(uuid(1000 + i)));
			const items = json(await poller.poll());
			const gapLines = poller.warnings.filter((line) => line.includes('possible gap'));
			expect(gapLines).toHaveLength(1);
			expect(gapLines[0]).toMatch(/the history list was full \(100 jobs\) and held no job seen before, so .* jobs that finished between \d{4}-\d\d-\d\dT.* and \d{4}-\d\d-\d\dT.* may never have been listed/);
			const gapItems = items.filter((item) => item.event === 'possibleGap');
			expect(gapItems).toHaveLength(onPossibleGap === 'emitItem' ? 1 : 0);
			// The gap comes first: a workflow reading the first item learns of it before the jobs.
			if (onPossibleGap === 'emitItem') expect(items[0].event).toBe('possibleGap');
			expect(items.filter((item) => item.event !== 'possibleGap')).toHaveLength(100);
			// The next poll overlaps what was seen: no gap.
			service.history = [finished(uuid(2000)), ...service.history.slice(0, 99)];
			await poller.poll();
			expect(poller.warnings.filter((line) => line.includes('possible gap'))).toHaveLength(1);
		}
	});

	/** The node's clock (Date.now) moved on by `ms`: a pause ends without waiting for it in real time. */
	const clockAhead = (ms: number) => {
		const now = Date.now.bind(Date);
		return jest.spyOn(Date, 'now').mockImplementation(() => now() + ms);
	};
	afterEach(() => jest.restoreAllMocks());

	test.each<SavingMode>(['default', 'durableCursors'])('429 with Retry-After on the lists: that poll fails saying until when, no request until then, one log line per skipped poll, then polling again (%s saving)', async (saving) => {
		const poller = createPoller({ authentication: 'jobExecutionApi' }, credentialsFor(service.url), { saving });
		service.active = [running('a')];
		await poller.poll();
		service.listFault = { status: 429, headers: { 'retry-after': '60' } };
		const requestsBefore = service.requests.length;
		// Where users look: the failed trigger execution says the trigger pauses, until when, and that nothing is lost.
		await expect(poller.poll()).rejects.toMatchObject({
			name: 'NodeOperationError',
			message: expect.stringMatching(/^The service asked the trigger to wait 60 s \(Retry-After\): no poll until \d{4}-\d\d-\d\dT[\d:.]+Z$/),
			description: expect.stringMatching(/^The service answered HTTP 429\. The trigger sends no request until then and resumes by itself; jobs that change meanwhile fire on the first poll after\./),
		});
		// The active list answered 429: the history list was not asked.
		expect(service.requests.slice(requestsBefore)).toEqual(['/api/v1/jobs?filter=active']);
		expect(poller.warnings.at(-1)).toMatch(/the service answered HTTP 429 and asked to wait 60 s \(Retry-After\): no poll until/);
		service.listFault = null;
		for (let i = 0; i < 3; i++) expect(await poller.poll()).toBeNull();
		// Half a minute on the node's clock passes in no time: still inside the pause, however slow the polls above.
		const ahead = clockAhead(30_000);
		expect(await poller.poll()).toBeNull();
		expect(service.requests.length - requestsBefore).toBe(1);
		expect(poller.warnings.filter((line) => line.includes('skipping this poll'))).toHaveLength(4);
		ahead.mockRestore();
		clockAhead(61_000);
		service.active = [];
		service.history = [finished('a')];
		expect(json(await poller.poll()).map((item) => item.id)).toEqual(['a']);
		expect(service.requests.length - requestsBefore).toBe(3);
	});

	test('the Retry-After pause is kept in the static data: with the process\'s memory gone (modules loaded again), the next poll still sends nothing', async () => {
		const poller = createPoller({ authentication: 'jobExecutionApi' }, credentialsFor(service.url));
		service.active = [running('a')];
		await poller.poll();
		service.listFault = { status: 429, headers: { 'retry-after': '60' } };
		await expect(poller.poll()).rejects.toThrow(/wait 60 s \(Retry-After\)/);
		expect(poller.liveState()['node:Job Execution Trigger']).toMatchObject({ pausedUntil: expect.any(Number) });
		service.listFault = null;
		const requestsBefore = service.requests.length;
		poller.forgetModuleMemory();
		expect(await poller.poll()).toBeNull();
		expect(service.requests.length).toBe(requestsBefore);
		expect(poller.warnings.at(-1)).toMatch(/skipping this poll, the service asked to wait until/);
		// Once it ends, the fresh modules poll again and the pause leaves the static data.
		clockAhead(61_000);
		service.active = [];
		service.history = [finished('a')];
		expect(json(await poller.poll()).map((item) => item.id)).toEqual(['a']);
		expect(poller.liveState()['node:Job Execution Trigger']).not.toHaveProperty('pausedUntil');
	});
	test('version 1 items, deep-equal: the JobStatus as the service sent it (raw log included), then event, previousStatus, skippedStatuses', async () => {
		const log = '2026-01-01 10:00:00.000 [main] INFO - Job execution details\nsecond line & < > " \' + / %';
		const queued: Job = { id: uuid(1), executionStatus: 'QUEUED', flowName: 'f', runProfileName: 'p', jobName: 'f_p', startTime: null, endTime: null, log: null };
		// Fields a version-2 item adds, sent by the service itself: version 1 passes them on as they are.
		const done: Job = { ...finished(uuid(2)), jobName: 'f_p', log, runtimeFormatted: '1.000 seconds', outcome: 'theirs', jobId: 'theirs' };
		const poller = trigger({ triggerOn: 'anyChange', options: { onPossibleGap: 'emitItem' } });
		expect(await poller.poll()).toBeNull();
		service.active = [queued];
		service.history = [done];
		const byId = (items: IDataObject[]) => [...items].sort((a, b) => String(a.id).localeCompare(String(b.id)));
		// Equal, and every item's keys in that order: users see it (n8n's views, Object.keys in expressions).
		const expectItems = (items: IDataObject[], expected: IDataObject[]) => {
			expect(items).toEqual(expected);
			expect(items.map((item) => Object.keys(item))).toEqual(expected.map((item) => Object.keys(item)));
		};
		expectItems(byId(json(await poller.poll())), [
			{ ...queued, event: 'newJob', previousStatus: null, skippedStatuses: [] },
			{ ...done, event: 'newJob', previousStatus: null, skippedStatuses: [] },
		]);
		const completed = { ...queued, executionStatus: 'COMPLETED', startTime: T, endTime: T + 2000, log };
		service.active = [];
		service.history = [completed, done];
		expectItems(json(await poller.poll()), [{ ...completed, event: 'statusChanged', previousStatus: 'QUEUED', skippedStatuses: ['RUNNING'] }]);
		// Parse Log adds logParsed beside the raw log; Fetch Test Event gives the latest job as a new one.
		const parsing = trigger({ options: { parseLog: true } });
		expectItems(json(await parsing.poll('manual')), [
			{ ...completed, logParsed: isParsableLog(log) ? parseJobLog(log) : null, event: 'newJob', previousStatus: null, skippedStatuses: [] },
		]);
	});
});

// Issue 21: the stand-in saves static data as n8n does (testkit/poller.ts, D1–D5 and C1–C5).
describe('the trigger under n8n\'s real static-data saving', () => {
	let service: ScriptedJobService;
	const running = (id: string): Job => ({ id, executionStatus: 'RUNNING', flowName: 'f', runProfileName: 'p', startTime: 1, endTime: null });
	const finished = (id: string): Job => ({ ...running(id), executionStatus: 'COMPLETED', endTime: 2 });
	const trigger = (saving: SavingMode) => createPoller({ authentication: 'jobExecutionApi' }, credentialsFor(service.url), { saving });
	const tracked = (state: IDataObject) => Object.keys(((state['node:Job Execution Trigger'] as IDataObject)?.tracker as IDataObject)?.open ?? {});
	beforeEach(async () => {
		service = await startScriptedJobService();
	});
	afterEach(async () => {
		await service.close();
	});

	test('default mode: saved after the activation poll and when a poll emits, not after a poll that fires nothing', async () => {
		const poller = trigger('default');
		service.active = [running('a')];
		await poller.poll();
		expect(tracked(poller.storedState())).toEqual(['a']);
		service.active = [running('a'), running('b')];
		expect(await poller.poll()).toBeNull();
		expect(tracked(poller.storedState())).toEqual(['a']); // D1
		expect(tracked(poller.liveState()).sort()).toEqual(['a', 'b']);
		service.active = [running('b')];
		service.history = [finished('a')];
		expect(json(await poller.poll()).map((item) => item.id)).toEqual(['a']);
		expect(tracked(poller.storedState())).toEqual(['b']); // D2
	});

	test('default mode: a re-activation goes on from the trigger\'s memory; a restart (modules loaded again) cannot', async () => {
		for (const how of ['reactivate', 'restart'] as const) {
			const poller = trigger('default');
			await poller.poll();
			// 'b' is known only from a poll that fired nothing, then leaves both lists while it finishes.
			service.active = [running('b')];
			service.history = [];
			expect(await poller.poll()).toBeNull();
			service.active = [];
			service.jobs.set('b', finished('b'));
			if (how === 'reactivate') poller.reactivate();
			else poller.restart();
			const fired = [...json(await poller.poll()), ...json(await poller.poll())].map((item) => item.id);
			// The stated limit of n8n's default mode: after a restart, what only null polls learnt is gone.
			expect(fired).toEqual(how === 'reactivate' ? ['b'] : []);
		}
	});

	test('default mode: an emit whose save failed while n8n lived is replayed on re-activation, not lost to the trigger\'s memory', async () => {
		const poller = trigger('default');
		service.active = [running('a'), running('b')];
		await poller.poll();
		service.active = [running('b')];
		service.history = [finished('a')];
		poller.failNextSave();
		expect(json(await poller.poll()).map((item) => item.id)).toEqual(['a']);
		expect(tracked(poller.storedState()).sort()).toEqual(['a', 'b']); // the database still has 'a' running
		// Later polls fire nothing and save nothing (D1); the process's memory knows 'a' ended.
		expect(await poller.poll()).toBeNull();
		poller.reactivate();
		// The event whose save failed is replayed (at least once, as n8n promises), never silently dropped.
		expect(json(await poller.poll()).map((item) => item.id)).toEqual(['a']);
		expect(await poller.poll()).toBeNull();
	});

	test('default mode: n8n dying between an emit and its save replays that emit after the restart (a stated limit)', async () => {
		const poller = trigger('default');
		service.active = [running('a')];
		await poller.poll();
		service.active = [];
		service.history = [finished('a')];
		poller.crashAfterNextEmit();
		expect(json(await poller.poll()).map((item) => item.id)).toEqual(['a']);
		poller.restart();
		expect(json(await poller.poll()).map((item) => item.id)).toEqual(['a']);
	});

	test('durable cursors: every poll commits, a null activation poll does not, a restart runs no activation poll and loses nothing', async () => {
		const poller = trigger('durableCursors');
		service.active = [running('a')];
		expect(await poller.poll()).toBeNull();
		expect(poller.storedState()).toEqual({}); // C4: the activation poll fired nothing
		// A job that ends between activation and the first scheduled poll still fires (the trigger's memory).
		service.active = [];
		service.history = [finished('a')];
		expect(json(await poller.poll()).map((item) => item.id)).toEqual(['a']);
		service.active = [running('b')];
		expect(await poller.poll()).toBeNull();
		expect(tracked(poller.storedState())).toEqual(['b']); // C3
		poller.restart();
		service.active = [];
		service.jobs.set('b', finished('b'));
		expect(json(await poller.poll()).map((item) => item.id)).toEqual(['b']); // C1: from the saved cursor
	});
});
