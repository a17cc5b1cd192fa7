/**
 * Version 2's defaults for requests in flight, through n8n's engine against the reference server behind a
 * recording hop that holds each request 20 ms (a service across a network): Get and Submit keep more than one
 * request in flight and never more than the stated bound (DEFAULT_MAX_IN_FLIGHT), each item is still sent once,
 * and a 429 with Retry-After halves the requests in flight and starts no new item for that long. Version 1 keeps one
 * at a time (test/nodes/batchingConcurrency.test.ts). Counts of requests, not wall-clock times.
 */
import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_MAX_IN_FLIGHT } from '../../nodes/shared/adaptiveLimit';
import { runActionNode } from '../../testkit/engine';
import { credentialsFor, INTERFACES, SALES, startFixture } from '../../testkit/fixtures';
import type { Fixture, Interface } from '../../testkit/fixtures';
import { startRecordingFront } from '../../testkit/recordingFront';
import type { RecordingFront, RecordingFrontOptions } from '../../testkit/recordingFront';

const LATENCY_MS = 20;
/** More items than the bound, so an unbounded node would pass it. */
const ITEMS = DEFAULT_MAX_IN_FLIGHT * 3;

describe.each(INTERFACES)('version 2 defaults over the %s interface', (kind: Interface) => {
	let fx: Fixture;
	let front: RecordingFront | undefined;
	let jobIds: string[];
	beforeEach(async () => {
		fx = await startFixture(kind, { concurrency: 1000 });
		// 30 jobs, read over and over: a Get item per id, ITEMS items.
		const submitted = await runActionNode({
			credentials: fx.credentials,
			items: Array.from({ length: 30 }, () => ({})),
			parameters: { authentication: fx.authentication, resource: 'job', operation: 'submit', ...fx.flow(SALES), runProfileName: 'default', batching: { concurrency: 10 } },
		});
		jobIds = submitted.json.map((json) => json.jobId as string);
	});
	afterEach(async () => {
		await front?.close();
		front = undefined;
		await fx.server.close();
	});

	const hop = async (options: RecordingFrontOptions = {}) => (front = await startRecordingFront(fx.server.url, { latencyMs: LATENCY_MS, ...options }));
	const getItems = (count: number) => Array.from({ length: count }, (_, n) => ({ jobId: jobIds[n % jobIds.length] }));
	const get = (url: string, items: IDataObject[], extra: IDataObject = {}) =>
		runActionNode({
			typeVersion: 2,
			credentials: credentialsFor(url),
			items,
			parameters: { authentication: fx.authentication, resource: 'job', operation: 'get', jobId: '={{ $json.jobId }}', ...extra },
		});

	test(`Get reads side by side, never more than ${DEFAULT_MAX_IN_FLIGHT} in flight, outputs in item order`, async () => {
		const { url, maxInFlight, requests } = await hop();
		const items = getItems(ITEMS);
		const result = await get(url, items);
		expect(result.error).toBeUndefined();
		expect(requests).toHaveLength(ITEMS);
		expect(maxInFlight()).toBeGreaterThan(1);
		expect(maxInFlight()).toBeLessThanOrEqual(DEFAULT_MAX_IN_FLIGHT);
		expect(result.json.map((json) => json.jobId)).toEqual(items.map((item) => item.jobId));
		expect(result.items.map((item) => item.pairedItem)).toEqual(items.map((_, n) => ({ item: n })));
	});

	test(`Submit sends side by side, never more than ${DEFAULT_MAX_IN_FLIGHT} in flight, one job per item`, async () => {
		const { url, maxInFlight, requests } = await hop();
		const before = fx.server.store.count();
		const result = await runActionNode({
			typeVersion: 2,
			credentials: credentialsFor(url),
			items: Array.from({ length: ITEMS }, (_, n) => ({ n })),
			parameters: {
				authentication: fx.authentication,
				resource: 'job',
				operation: 'submit',
				...fx.flow(SALES),
				runProfileName: 'default',
				parameters: { parameter: [{ name: 'item', type: 'integer', value: '={{ $json.n }}' }] },
			},
		});
		expect(result.error).toBeUndefined();
		expect(requests).toHaveLength(ITEMS);
		expect(maxInFlight()).toBeGreaterThan(1);
		expect(maxInFlight()).toBeLessThanOrEqual(DEFAULT_MAX_IN_FLIGHT);
		expect(fx.server.store.count() - before).toBe(ITEMS);
		// Each output carries the job its own item created.
		for (const [n, json] of result.json.entries()) {
			expect(fx.server.store.all().find((job) => job.id === json.jobId)?.parameters[0].value).toBe(String(n));
		}
	});

	test('a 429 with Retry-After halves the requests in flight, and no new item starts until it has passed', async () => {
		// 90 jobs, one item each, so a retry is told apart by its call.
		const more = await runActionNode({
			credentials: fx.credentials,
			items: Array.from({ length: 60 }, () => ({})),
			parameters: { authentication: fx.authentication, resource: 'job', operation: 'submit', ...fx.flow(SALES), runProfileName: 'default', batching: { concurrency: 20 } },
		});
		const items = [...jobIds, ...more.json.map((json) => json.jobId as string)].map((jobId) => ({ jobId }));
		// At Concurrency 8 the limit passes half of it before request 40; requests 40–42 are refused, "Retry-After: 1".
		// 50 ms answers: a loaded machine's own delays then stay below what reads as a slowing service.
		const refused = new Set([40, 41, 42]);
		const refuse = (index: number) => (refused.has(index) ? { status: 429, headers: { 'retry-after': '1' } } : undefined);
		const { url, requests } = await hop({ latencyMs: 50, refuse });
		const result = await get(url, items, { batching: { concurrency: 8 } });
		expect(result.error).toBeUndefined();
		// Every item read once, the three refused ones once more after the Retry-After.
		expect(requests).toHaveLength(items.length + 3);
		expect(result.json.map((json) => json.jobId)).toEqual(items.map((item) => item.jobId));

		const refusedCalls = new Set([...refused].map((index) => requests[index].call));
		const firstRetry = requests.findIndex((request, index) => index > 42 && refusedCalls.has(request.call));
		expect(Math.max(...requests.slice(0, 40).map((request) => request.inFlightAtArrival))).toBeGreaterThan(4);
		// Between the refusals and their retries (a second later) only the items started before the node read the
		// 429 arrive (at most the 8 in flight, twice that for the hop's own scheduling); without the pause, about 80.
		expect(firstRetry - 43).toBeLessThanOrEqual(16);
		// After the pause, the first round trip holds at most half of the limit (at most 8): 3 retries and one new item.
		expect(Math.max(...requests.slice(firstRetry, firstRetry + 4).map((request) => request.inFlightAtArrival))).toBeLessThanOrEqual(4);
	});

	test('a Concurrency outside 1 to 100 stops version 2 before anything is sent; 100 is accepted', async () => {
		const { url, requests } = await hop();
		const refusedResult = await get(url, getItems(3), { batching: { concurrency: 101 } });
		expect(refusedResult.error?.message).toBe('Concurrency must be a whole number from 1 to 100, got 101');
		expect(requests).toHaveLength(0);
		const accepted = await get(url, getItems(3), { batching: { concurrency: 100 } });
		expect(accepted.error).toBeUndefined();
		expect(requests).toHaveLength(3);
	});
});
