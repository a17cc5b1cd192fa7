/**
 * Batching → Concurrency (Submit, Get, Wait for Completion) through n8n's engine against the real server: items
 * overlap up to the limit, yet output order, pairedItem, per-item errors and "one job per item, never two" are as
 * with one at a time.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { runActionNode } from '../../testkit/engine';
import type { RunNodeOptions } from '../../testkit/engine';
import { advanceWhileWaiting, credentialsFor, INTERFACES, SALES, startFixture } from '../../testkit/fixtures';
import type { Fixture, Interface } from '../../testkit/fixtures';
import { startRecordingFront } from '../../testkit/recordingFront';

const GHOST = { path: '/Shared/Flows/ghost.flow', id: '9d8c7b6a-5f4e-4d3c-8b2a-1a0f9e8d7c6b' };

describe.each(INTERFACES)('Submit with Batching → Concurrency over the %s interface', (kind: Interface) => {
	let fx: Fixture;
	beforeEach(async () => {
		fx = await startFixture(kind, { strict: true, concurrency: 50 });
	});
	afterEach(async () => {
		await fx.server.close();
	});

	const flowField = kind === 'native' ? 'flowFileName' : 'flowId';
	const flowOf = (flow: { path: string; id: string }) => (kind === 'native' ? flow.path : flow.id);

	/** Each item names its flow and profile and tags its job with its index, so a job can be traced to its item. */
	const submitParameters = (extra: INodeParameters = {}): INodeParameters => ({
		authentication: fx.authentication,
		resource: 'job',
		operation: 'submit',
		[flowField]: '={{ $json.flow }}',
		runProfileName: '={{ $json.profile }}',
		parameters: { parameter: [{ name: 'item', type: 'integer', value: '={{ $json.n }}' }] },
		...extra,
	});
	const submit = (items: IDataObject[], concurrency: number, extra: Partial<RunNodeOptions> = {}) =>
		runActionNode({ credentials: fx.credentials, items, ...extra, parameters: submitParameters({ batching: { concurrency } }) });

	const good = (n: number): IDataObject => ({ n, flow: flowOf(SALES), profile: 'default' });
	/** Refused by the node before anything is sent. */
	const noProfile = (n: number): IDataObject => ({ n, flow: flowOf(SALES), profile: '' });
	/** Refused by the service (strict catalog): a 400 after a round trip. */
	const unknownFlow = (n: number): IDataObject => ({ n, flow: flowOf(GHOST), profile: 'default' });

	/** The item index each stored job was tagged with, in submission order. */
	const storedItems = () => fx.server.store.all().map((job) => Number(job.parameters[0].value));

	// Version 1 is a fixed pool of items, not version 2's adaptive limit (which starts at 6): at 3 and at 7 the
	// first `limit` submissions are in flight together before any answer (the hop holds them until they are), and
	// never one more.
	test.each([3, 7])('version 1 runs exactly Concurrency %i items at once, and output order, pairedItem and jobs follow the items', async (limit) => {
		const front = await startRecordingFront(fx.server.url, { latencyMs: 30, gate: { from: 0, until: limit, giveUpMs: 10_000 } });
		try {
			const items = Array.from({ length: 12 }, (_, n) => good(n));
			const result = await submit(items, limit, { credentials: credentialsFor(front.url) });
			expect(result.error).toBeUndefined();
			expect(front.gateFilled()).toBe(true);
			expect(front.maxInFlight()).toBe(limit);
			expect(result.items.map((item) => item.pairedItem)).toEqual(items.map((_, n) => ({ item: n })));
			expect(result.json.map((json) => (json.parameters as IDataObject[])[0].value)).toEqual(items.map((_, n) => String(n)));
			// Exactly one job per item, and each output carries the job its own item created.
			expect([...storedItems()].sort((a, b) => a - b)).toEqual(items.map((_, n) => n));
			for (const [n, json] of result.json.entries()) {
				expect(fx.server.store.all().find((job) => job.id === json.jobId)?.parameters[0].value).toBe(String(n));
			}
		} finally {
			await front.close();
		}
	});

	test('the default sends one at a time, in item order', async () => {
		const front = await startRecordingFront(fx.server.url, { latencyMs: 10 });
		try {
			const result = await runActionNode({ credentials: credentialsFor(front.url), items: [good(0), good(1), good(2)], parameters: submitParameters() });
			expect(result.error).toBeUndefined();
			expect(front.maxInFlight()).toBe(1);
			expect(storedItems()).toEqual([0, 1, 2]);
		} finally {
			await front.close();
		}
	});

	test('with Continue On Fail, each error lands on its own item and every good item gets its job', async () => {
		const items = [good(0), unknownFlow(1), noProfile(2), good(3), unknownFlow(4), good(5), noProfile(6), good(7)];
		const result = await submit(items, 5, { continueOnFail: true });
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.pairedItem)).toEqual(items.map((_, n) => ({ item: n })));
		const failedItems = result.json.flatMap((json, n) => (json.error ? [n] : []));
		expect(failedItems).toEqual([1, 2, 4, 6]);
		expect(result.json[1].httpCode).toBe('400');
		expect(result.json[2].error).toBe('Run Profile is empty [item 2]');
		expect(result.json[6].error).toBe('Run Profile is empty [item 6]');
		expect([...storedItems()].sort((a, b) => a - b)).toEqual([0, 3, 5, 7]);
		for (const n of [0, 3, 5, 7]) expect(fx.server.store.has(result.json[n].jobId as string)).toBe(true);
	});

	test('without Continue On Fail, the first failing item in item order is reported, not the first to fail', async () => {
		// Item 3 fails at once (nothing to send); item 1 fails later, after its round trip.
		const items = [good(0), unknownFlow(1), good(2), noProfile(3), good(4), good(5), good(6), good(7)];
		const result = await submit(items, 4);
		expect(result.error?.message).toMatch(/^Bad request: /);
		expect(result.error?.context?.itemIndex).toBe(1);
		// Items 0 to 3 started together; once one failed no other started, and the running good ones finished once.
		expect([...storedItems()].sort((a, b) => a - b)).toEqual([0, 2]);
	});

	test('with Wait for Completion, the items wait side by side', async () => {
		const stopClock = advanceWhileWaiting(fx.clock, 1000);
		try {
			const items = [good(0), good(1), good(2)];
			const result = await runActionNode({
				credentials: fx.credentials,
				items,
				parameters: submitParameters({ waitForCompletion: true, waitSettings: { pollInterval: 1 }, batching: { concurrency: 3 } }),
			});
			expect(result.error).toBeUndefined();
			expect(result.json.map((json) => json.executionStatus)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
			// All three submitted before the first status read: one at a time would alternate submit, read, submit.
			expect(result.sent.slice(0, 3).map((sent) => sent.method)).toEqual(['POST', 'POST', 'POST']);
		} finally {
			stopClock();
		}
	});

	test('a Concurrency outside 1 to 20 stops the node before anything is sent', async () => {
		const result = await submit([good(0)], 21);
		expect(result.error?.message).toBe('Concurrency must be a whole number from 1 to 20, got 21');
		expect(fx.server.store.count()).toBe(0);
	});
});

describe.each(INTERFACES)('Get and Wait for Completion with Batching → Concurrency over the %s interface', (kind: Interface) => {
	let fx: Fixture;
	let jobIds: string[];
	beforeEach(async () => {
		fx = await startFixture(kind, { concurrency: 50 });
		const flowField = kind === 'native' ? 'flowFileName' : 'flowId';
		const submitted = await runActionNode({
			credentials: fx.credentials,
			items: Array.from({ length: 8 }, () => ({})),
			parameters: { authentication: fx.authentication, resource: 'job', operation: 'submit', [flowField]: kind === 'native' ? SALES.path : SALES.id, runProfileName: 'default' },
		});
		jobIds = submitted.json.map((json) => json.jobId as string);
	});
	afterEach(async () => {
		await fx.server.close();
	});

	const readAll = (operation: 'get' | 'waitForCompletion', url: string, concurrency?: number) =>
		runActionNode({
			credentials: credentialsFor(url),
			items: jobIds.map((jobId) => ({ jobId })),
			parameters: {
				authentication: fx.authentication,
				resource: 'job',
				operation,
				jobId: '={{ $json.jobId }}',
				...(operation === 'waitForCompletion' ? { waitSettings: { pollInterval: 1 } } : {}),
				...(concurrency ? { batching: { concurrency } } : {}),
			},
		});

	test.each([
		['get', 3],
		['get', 7],
		['waitForCompletion', 3],
		['waitForCompletion', 7],
	] as const)('version 1 %s at Concurrency %i → exactly that many reads in flight, outputs and pairedItem in item order', async (operation, limit) => {
		const stopClock = advanceWhileWaiting(fx.clock, 1000);
		const front = await startRecordingFront(fx.server.url, { latencyMs: 30, gate: { from: 0, until: limit, giveUpMs: 10_000 } });
		try {
			const result = await readAll(operation, front.url, limit);
			expect(result.error).toBeUndefined();
			expect(front.gateFilled()).toBe(true);
			expect(front.maxInFlight()).toBe(limit);
			expect(result.json.map((json) => json.id)).toEqual(jobIds);
			expect(result.items.map((item) => item.pairedItem)).toEqual(jobIds.map((_, n) => ({ item: n })));
		} finally {
			await front.close();
			stopClock();
		}
	});

	test('get by default → one read at a time', async () => {
		const front = await startRecordingFront(fx.server.url, { latencyMs: 10 });
		try {
			const result = await readAll('get', front.url);
			expect(result.error).toBeUndefined();
			expect(front.maxInFlight()).toBe(1);
			expect(result.json.map((json) => json.id)).toEqual(jobIds);
		} finally {
			await front.close();
		}
	});
});
