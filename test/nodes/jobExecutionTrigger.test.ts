/**
 * The trigger through n8n-core's PollContext against the real reference server (controllable clock), both
 * interfaces: every (job, watched status) reported exactly once across polls, caps, outages and restarts.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { runActionNode } from '../../testkit/engine';
import { BROKEN, INTERFACES, SALES, startFixture } from '../../testkit/fixtures';
import type { Fixture, Interface } from '../../testkit/fixtures';
import { createPoller } from '../../testkit/poller';
import { transportTiming } from '../../nodes/shared/transport';

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

	test('a poll that fails midway stores nothing; after a restart the next good poll reports everything once', async () => {
		fx = await startFixture(kind);
		const poller = createPoller(params(), fx.credentials);
		await poller.poll();
		const ids = await submit(SALES, 3);
		await poller.poll();
		const stateBefore = JSON.stringify(poller.storedState());
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
		expect(JSON.stringify(poller.storedState())).toBe(stateBefore);
		fx.server.faults.inject({ kind: 'drop', times: 4 });
		await expect(poller.poll()).rejects.toMatchObject({ name: 'NodeApiError', httpCode: 'ECONNRESET' });
		expect(JSON.stringify(poller.storedState())).toBe(stateBefore);
		poller.restart(); // n8n restarts with the stored static data
		const events = json(await poller.poll());
		expect(events.map((e) => e.id).sort()).toEqual([...ids].sort());
		expect(events.every((e) => e.executionStatus === 'COMPLETED' && e.previousStatus === 'RUNNING')).toBe(true);
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
