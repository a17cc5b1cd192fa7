/**
 * Version 2's limit of requests in flight (nodes/shared/adaptiveLimit.ts), through n8n's engine against the
 * reference server behind a recording hop that holds each request 20 ms (a service across a network). Every claim
 * is a count of what the hop saw, never a time: a gate holds requests until the number the node should reach pile
 * up, so the test knows that many were in flight together, and one more would be seen. The bound is reached
 * exactly and never passed; the first burst is the bound for reads and INITIAL_IN_FLIGHT for submissions (firstBurst:
 * a refused submission is never sent again); a 429, a 503, a dropped connection and a timeout
 * each halve the requests in flight once; a Retry-After holds every new request, items already started included;
 * and a batch of Submit + Wait for Completion submits every job while none has ended (an item waiting for its job
 * holds no slot). A 400 grows the limit like a success and a 500 does not cut it; a pause's end lets waiting requests
 * go with none in flight, and a cancel during a pause ends the run at once; Concurrency 1 runs one item at a time.
 * Version 1 keeps its fixed pool (test/nodes/batchingConcurrency.test.ts).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { DEFAULT_MAX_IN_FLIGHT, INITIAL_IN_FLIGHT } from '../../nodes/shared/adaptiveLimit';
import { transportTiming } from '../../nodes/shared/transport';
import { runActionNode } from '../../testkit/engine';
import { advanceWhileWaiting, credentialsFor, INTERFACES, numberedSubmit, SALES, startFixture } from '../../testkit/fixtures';
import type { Fixture, Interface } from '../../testkit/fixtures';
import { startRecordingFront } from '../../testkit/recordingFront';
import type { RecordedRequest, RecordingFront, RecordingFrontOptions, Refusal } from '../../testkit/recordingFront';

const LATENCY_MS = 20;
/** More items than the bound, so an unbounded node would pass it. */
const ITEMS = DEFAULT_MAX_IN_FLIGHT * 3;
/** Requests answered before the gate closes: enough ok answers to grow the limit from its start to the bound. */
const WARM_UP = DEFAULT_MAX_IN_FLIGHT + 10;

/**
 * Requests from the `from`-th on that the node had in flight when request `index` arrived, itself included: the
 * hop's order of arrivals and closes (requests before `from` are left out: the node had read their answers).
 */
function inFlightAt(requests: RecordedRequest[], from: number, index: number): number {
	let count = 1;
	for (let other = from; other < index; other++) {
		const closedAfter = requests[other].closedAfter;
		if (closedAfter === undefined || closedAfter > index) count++;
	}
	return count;
}

const most = (values: number[]) => Math.max(...values);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, n) => from + n);

/** Polls `done` until it holds (a test's own loop: the node runs meanwhile); fails after `giveUpMs`. */
async function until(done: () => boolean, what: string, giveUpMs = 20_000): Promise<void> {
	const end = Date.now() + giveUpMs;
	while (!done()) {
		if (Date.now() > end) throw new Error(`gave up waiting until ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

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
	test(`Get reaches exactly ${DEFAULT_MAX_IN_FLIGHT} reads in flight and never one more; outputs in item order`, async () => {
		// After WARM_UP answers the limit is at its bound; the gate then holds every read until that many pile up.
		const { url, maxInFlight, requests, gateFilled } = await hop({ gate: { from: WARM_UP, until: DEFAULT_MAX_IN_FLIGHT } });
		const items = getItems(ITEMS);
		const result = await get(url, items);
		expect(result.error).toBeUndefined();
		expect(gateFilled()).toBe(true);
		expect(maxInFlight()).toBe(DEFAULT_MAX_IN_FLIGHT);
		expect(requests).toHaveLength(ITEMS);
		expect(result.json.map((json) => json.jobId)).toEqual(items.map((item) => item.jobId));
		expect(result.items.map((item) => item.pairedItem)).toEqual(items.map((_, n) => ({ item: n })));
	});

	test(`Submit reaches exactly ${DEFAULT_MAX_IN_FLIGHT} submissions in flight and never one more; one job per item`, async () => {
		const { url, maxInFlight, requests, gateFilled } = await hop({ gate: { from: WARM_UP, until: DEFAULT_MAX_IN_FLIGHT } });
		const before = fx.server.store.count();
		const result = await runActionNode({ typeVersion: 2, credentials: credentialsFor(url), items: Array.from({ length: ITEMS }, (_, n) => ({ n })), parameters: numberedSubmit(fx) });
		expect(result.error).toBeUndefined();
		expect(gateFilled()).toBe(true);
		expect(maxInFlight()).toBe(DEFAULT_MAX_IN_FLIGHT);
		expect(requests).toHaveLength(ITEMS);
		expect(fx.server.store.count() - before).toBe(ITEMS);
		// Each output carries the job its own item created.
		for (const [n, json] of result.json.entries()) {
			expect(fx.server.store.all().find((job) => job.id === json.jobId)?.parameters[0].value).toBe(String(n));
		}
	});

	test.each([3, 7])('at Concurrency %i the reads in flight reach exactly that bound, never one more', async (bound) => {
		// Reads start at the bound; the gate from the 20th read on shows it held.
		const { url, maxInFlight, gateFilled } = await hop({ gate: { from: 20, until: bound } });
		const result = await get(url, getItems(60), { batching: { concurrency: bound } });
		expect(result.error).toBeUndefined();
		expect(gateFilled()).toBe(true);
		expect(maxInFlight()).toBe(bound);
	});

	test(`the first burst of reads is exactly the bound (${DEFAULT_MAX_IN_FLIGHT}), before any answer`, async () => {
		// Nothing is answered until the first burst is in; one more read would be seen in flight beside them.
		const { url, requests, gateFilled } = await hop({ gate: { from: 0, until: DEFAULT_MAX_IN_FLIGHT } });
		const result = await get(url, getItems(DEFAULT_MAX_IN_FLIGHT + 10));
		expect(result.error).toBeUndefined();
		expect(gateFilled()).toBe(true);
		expect(requests[DEFAULT_MAX_IN_FLIGHT - 1].inFlightAtArrival).toBe(DEFAULT_MAX_IN_FLIGHT);
		// No other read arrived before the first answer of the burst went back.
		expect(most(requests.slice(0, DEFAULT_MAX_IN_FLIGHT).map((request) => -(request.closedAfter ?? Infinity)))).toBe(-DEFAULT_MAX_IN_FLIGHT);
	});

	test(`the first burst of submissions is exactly ${INITIAL_IN_FLIGHT}, before any answer: one job per item`, async () => {
		const { url, requests, gateFilled } = await hop({ gate: { from: 0, until: INITIAL_IN_FLIGHT } });
		const before = fx.server.store.count();
		const result = await runActionNode({ typeVersion: 2, credentials: credentialsFor(url), items: Array.from({ length: 20 }, (_, n) => ({ n })), parameters: numberedSubmit(fx) });
		expect(result.error).toBeUndefined();
		expect(gateFilled()).toBe(true);
		expect(requests[INITIAL_IN_FLIGHT - 1].inFlightAtArrival).toBe(INITIAL_IN_FLIGHT);
		expect(most(requests.slice(0, INITIAL_IN_FLIGHT).map((request) => -(request.closedAfter ?? Infinity)))).toBe(-INITIAL_IN_FLIGHT);
		expect(fx.server.store.count() - before).toBe(20);
	});

	test('a Concurrency outside 1 to 100, or not whole, stops version 2 before anything is sent; 1 and 100 are accepted', async () => {
		const { url, requests } = await hop();
		for (const refused of [101, 0, 2.5]) {
			const refusedResult = await get(url, getItems(3), { batching: { concurrency: refused } });
			expect(refusedResult.error?.message).toBe(`Concurrency must be a whole number from 1 to 100, got ${refused}`);
		}
		expect(requests).toHaveLength(0);
		for (const accepted of [100, 1]) {
			const acceptedResult = await get(url, getItems(3), { batching: { concurrency: accepted } });
			expect(acceptedResult.error).toBeUndefined();
			expect(acceptedResult.json.map((json) => json.jobId)).toEqual(getItems(3).map((item) => item.jobId));
		}
		expect(requests).toHaveLength(6);
	});

	test.each([
		['the default bound', {}],
		['Concurrency 2', { batching: { concurrency: 2 } }],
	])('Submit + Wait for Completion (%s): all 12 jobs are submitted while none has ended', async (_label, batching) => {
		// The server's clock stands still: no job ends until the test moves it, so a node that waited for a job
		// to end before submitting the next would stop short of 12 jobs.
		const { url, requests } = await hop();
		const before = fx.server.store.count();
		const run = runActionNode({
			typeVersion: 2,
			credentials: credentialsFor(url),
			items: Array.from({ length: 12 }, (_, n) => ({ n })),
			parameters: numberedSubmit(fx, { waitForCompletion: true, waitSettings: { pollInterval: 1, timeout: 3600 }, ...batching }),
		});
		const created = () => fx.server.store.all().slice(before);
		await until(() => created().length === 12, '12 jobs were submitted');
		expect(created().map((job) => fx.server.store.status(job.id)?.executionStatus).filter((status) => status !== 'QUEUED' && status !== 'RUNNING')).toEqual([]);
		expect(requests.filter((request) => request.method === 'POST')).toHaveLength(12);
		const stopClock = advanceWhileWaiting(fx.clock, 1000);
		try {
			const result = await run;
			expect(result.error).toBeUndefined();
			expect(result.json.map((json) => json.executionStatus)).toEqual(Array.from({ length: 12 }, () => 'COMPLETED'));
			// Each output carries the job its own item created.
			const itemOf = (id: unknown) => created().find((job) => job.id === id)?.parameters[0].value;
			expect(result.json.map((json) => itemOf(json.jobId ?? json.id))).toEqual(range(0, 12).map(String));
		} finally {
			stopClock();
		}
	});
});

/** What the service does to the first burst, and the transport's attempt limit for it. */
const CUTS: Array<{ label: string; refusal: Refusal; attemptMs?: number }> = [
	{ label: 'a 429 (no Retry-After)', refusal: { status: 429 } },
	{ label: 'a 503', refusal: { status: 503 } },
	{ label: 'a dropped connection', refusal: { status: 0, drop: true } },
	// The hop says nothing; the attempt's deadline ends it (a short one, so the test stays quick).
	{ label: 'a timeout', refusal: { status: 0, silent: true }, attemptMs: 3000 },
];

/** The storm: a service that takes this many reads at once and answers 503 to every one past them, and the items read. */
const STORM_CAPACITY = 4;
const STORM_ITEMS = 150;

describe('version 2 cuts the requests in flight on the service’s word (native)', () => {
	let fx: Fixture;
	let front: RecordingFront | undefined;
	let jobIds: string[];
	const saved = { ...transportTiming };
	beforeEach(async () => {
		fx = await startFixture('native', { concurrency: 1000 });
		const submitted = await runActionNode({
			credentials: fx.credentials,
			items: Array.from({ length: 10 }, () => ({})),
			parameters: { authentication: fx.authentication, resource: 'job', operation: 'submit', ...fx.flow(SALES), runProfileName: 'default', batching: { concurrency: 10 } },
		});
		jobIds = submitted.json.map((json) => json.jobId as string);
	});
	afterEach(async () => {
		Object.assign(transportTiming, saved);
		await front?.close();
		front = undefined;
		await fx.server.close();
	});
	const get = (url: string, count: number, extra: IDataObject = {}, onStart?: (execution: { cancel(): void }) => void) =>
		runActionNode({
			typeVersion: 2,
			credentials: credentialsFor(url),
			items: Array.from({ length: count }, (_, n) => ({ jobId: jobIds[n % jobIds.length] })),
			parameters: { authentication: fx.authentication, resource: 'job', operation: 'get', jobId: '={{ $json.jobId }}', ...extra },
			onStart,
		});

	test.each(CUTS)('$label to every read of the first burst halves the reads in flight, once', async ({ refusal, attemptMs }) => {
		if (attemptMs) transportTiming.attemptMs = attemptMs;
		const burst = INITIAL_IN_FLIGHT;
		// At Concurrency = the first burst the limit cannot grow before the cut: the burst is exactly `burst` reads,
		// held until all are in (a refusal answered sooner would cut the limit before the last of them is sent).
		// The reads after it are held until half as many pile up.
		front = await startRecordingFront(fx.server.url, {
			latencyMs: LATENCY_MS,
			refuse: (index) => (index < burst ? refusal : undefined),
			gate: [
				{ from: 0, until: burst, giveUpMs: 10_000 },
				{ from: burst, until: burst / 2, giveUpMs: 10_000 },
			],
		});
		const result = await get(front.url, 24, { batching: { concurrency: burst } });
		const { requests } = front;
		expect(result.error).toBeUndefined();
		expect(requests[burst - 1].inFlightAtArrival).toBe(burst);
		expect(front.gateFilled()).toBe(true);
		// Half the burst in flight after the cut, not the burst (no cut) nor fewer (a cut per refusal); a cut
		// grows back by one per round trip only, so the next round holds no more either.
		expect(most(range(burst, 2 * burst).map((index) => inFlightAt(requests, burst, index)))).toBe(burst / 2);
		// Every item read, the refused ones again.
		expect(requests.length).toBe(24 + burst);
	});

	test(`a 503 storm: reads starting at the bound (${DEFAULT_MAX_IN_FLIGHT}) against a service taking ${STORM_CAPACITY} at once fall to its size, and every item is read`, async () => {
		// Shorter backoff than the node's (a harsher storm: refused reads come back sooner), so the test stays quick,
		// and more retries: which read the service refuses once the limit is at its size depends on when answers go
		// back (a busy machine), and a read refused at every one of 3 retries would fail its item whatever the limit.
		transportTiming.retryDelaysMs = [50, 100, 200, 300, 400, 500, 500, 500, 500, 500];
		// The first burst is held until it is all in: refused by count (all but the service's share), not by timing.
		front = await startRecordingFront(fx.server.url, {
			latencyMs: LATENCY_MS,
			refuse: (_index, request) => (request.inFlightAtArrival > STORM_CAPACITY ? { status: 503 } : undefined),
			gate: { from: 0, until: DEFAULT_MAX_IN_FLIGHT, giveUpMs: 10_000 },
		});
		const result = await get(front.url, STORM_ITEMS);
		const { requests } = front;
		expect(result.error).toBeUndefined();
		expect(front.gateFilled()).toBe(true);
		expect(result.json).toHaveLength(STORM_ITEMS);
		const refused = requests.filter((request) => request.refusedWith === 503).length;
		expect(requests.slice(0, DEFAULT_MAX_IN_FLIGHT).filter((request) => request.refusedWith === 503)).toHaveLength(DEFAULT_MAX_IN_FLIGHT - STORM_CAPACITY);
		expect(requests.length).toBe(STORM_ITEMS + refused);
		// The first burst is refused but for the service's share; halving once per round trip, the limit is at the
		// service's size within a few round trips, then probes past it by one at most (AIMD), each probe cut again.
		expect(requests[DEFAULT_MAX_IN_FLIGHT - 1].inFlightAtArrival).toBe(DEFAULT_MAX_IN_FLIGHT);
		// The cuts take 50, 25, 12, 6 and 3 reads: from the 100th read on, the storm is over.
		const after = requests.slice(2 * DEFAULT_MAX_IN_FLIGHT);
		expect(most(after.map((request) => request.inFlightAtArrival))).toBeLessThanOrEqual(2 * STORM_CAPACITY);
		expect(after.filter((request) => request.refusedWith === 503).length).toBeLessThan(after.length / 2);
	});

	test('a Retry-After holds every new read, of items already started too, for that long', async () => {
		// Concurrency 2: two reads in flight, the other 18 items started and waiting for a slot. The first read
		// is refused with "Retry-After: 1".
		front = await startRecordingFront(fx.server.url, {
			latencyMs: LATENCY_MS,
			refuse: (index) => (index === 0 ? { status: 429, headers: { 'retry-after': '1' } } : undefined),
		});
		const result = await get(front.url, 20, { batching: { concurrency: 2 } });
		expect(result.error).toBeUndefined();
		const { requests } = front;
		expect(requests).toHaveLength(21);
		// The node heard the 429 no earlier than the hop sent it, so its pause ends no earlier than a second after
		// that (a busy machine only makes it later). Within that second only reads the node sent before hearing it
		// arrive: the one beside the refused read, and the next one or two of that slot if a loaded event loop
		// read their answers first (each needs a 20 ms round trip); without the pause, all 18 other items' reads.
		const pauseEnd = requests[0].answeredAt + 1000;
		const duringPause = requests.slice(1).filter((request) => request.receivedAt >= requests[0].answeredAt && request.receivedAt < pauseEnd);
		expect(duringPause.length).toBeLessThanOrEqual(4);
	});

	test('a cancel during a Retry-After ends the run at once: the reads waiting for a slot are let go, none is sent', async () => {
		// Concurrency 2: both first reads are refused with "Retry-After: 60" (the first heard pauses the slots before
		// it frees one, so no other read is sent whichever is heard first); the other 4 items wait for a slot through
		// the pause. The execution is cancelled once both answers are sent: nothing is in flight then.
		front = await startRecordingFront(fx.server.url, {
			latencyMs: LATENCY_MS,
			refuse: (index) => (index < 2 ? { status: 429, headers: { 'retry-after': '60' } } : undefined),
		});
		const { requests } = front;
		let cancel: (() => void) | undefined;
		const run = get(front.url, 6, { batching: { concurrency: 2 } }, (execution) => (cancel = execution.cancel));
		await until(() => requests.length === 2 && requests.every((request) => request.closedAfter !== undefined), 'both first reads were answered');
		cancel?.();
		// A node that slept out the pause would end a minute later: given up on after 15 s, it fails the test.
		let watchdog: NodeJS.Timeout | undefined;
		const ended = await Promise.race([run.then(() => true), new Promise<boolean>((resolve) => (watchdog = setTimeout(() => resolve(false), 15_000)))]);
		clearTimeout(watchdog);
		expect(ended).toBe(true);
		const result = await run;
		expect(result.run.status).toBe('canceled');
		expect(requests).toHaveLength(2);
	});
});

describe('version 2 hears each answer for what it says (native)', () => {
	let fx: Fixture;
	let front: RecordingFront | undefined;
	const saved = { ...transportTiming };
	beforeEach(async () => {
		fx = await startFixture('native', { concurrency: 1000 });
	});
	afterEach(async () => {
		Object.assign(transportTiming, saved);
		await front?.close();
		front = undefined;
		await fx.server.close();
	});
	/** Version 2 Submit of `count` numbered items, Continue On Fail: a refused submission is its item's error. */
	const submit = (url: string, count: number, extra: INodeParameters = {}, onStart?: (execution: { cancel(): void }) => void) =>
		runActionNode({
			typeVersion: 2,
			credentials: credentialsFor(url),
			continueOnFail: true,
			items: Array.from({ length: count }, (_, n) => ({ n })),
			parameters: numberedSubmit(fx, extra),
			onStart,
		});

	test('a refusal of the request itself (400) is a sound answer: the submissions in flight grow past the first burst to exactly the bound', async () => {
		const bound = 10;
		// Every submission is refused with a 400. After the first 12 answers the limit has grown from 6 to the bound
		// (if 400s grew it); the gate then holds every submission until `bound` pile up, which 6 never do.
		front = await startRecordingFront(fx.server.url, {
			latencyMs: LATENCY_MS,
			refuse: () => ({ status: 400 }),
			gate: { from: 12, until: bound, giveUpMs: 10_000 },
		});
		const result = await submit(front.url, 30, { batching: { concurrency: bound } });
		expect(result.error).toBeUndefined();
		expect(front.gateFilled()).toBe(true);
		expect(front.maxInFlight()).toBe(bound);
		expect(front.requests).toHaveLength(30);
		expect(result.json.map((json) => json.httpCode)).toEqual(Array.from({ length: 30 }, () => '400'));
	});

	test(`a server error (500) is no sign of load: after a first burst of ${INITIAL_IN_FLIGHT} refused with 500, ${INITIAL_IN_FLIGHT} are in flight again, not half as many`, async () => {
		// The first burst is held until it is all in, then refused with 500; the next submissions are held until
		// as many pile up, which a cut (half as many) never lets happen.
		front = await startRecordingFront(fx.server.url, {
			latencyMs: LATENCY_MS,
			refuse: (index) => (index < INITIAL_IN_FLIGHT ? { status: 500 } : undefined),
			gate: [
				{ from: 0, until: INITIAL_IN_FLIGHT, giveUpMs: 10_000 },
				{ from: INITIAL_IN_FLIGHT, until: INITIAL_IN_FLIGHT, giveUpMs: 10_000 },
			],
		});
		const before = fx.server.store.count();
		const result = await submit(front.url, 2 * INITIAL_IN_FLIGHT);
		expect(result.error).toBeUndefined();
		expect(front.gateFilled()).toBe(true);
		expect(front.maxInFlight()).toBe(INITIAL_IN_FLIGHT);
		// A submit refused with a server error is never sent again (it may have created a job).
		expect(front.requests).toHaveLength(2 * INITIAL_IN_FLIGHT);
		expect(result.json.slice(0, INITIAL_IN_FLIGHT).map((json) => json.httpCode)).toEqual(Array.from({ length: INITIAL_IN_FLIGHT }, () => '500'));
		expect(fx.server.store.count() - before).toBe(INITIAL_IN_FLIGHT);
	});

	test('the end of a Retry-After lets the waiting submissions go even when none is in flight to free a slot', async () => {
		// Concurrency 2: the first submission is refused with "Retry-After: 1" (a submit is never sent again), the
		// second is answered; the other 4 items wait for a slot. Once the pause is over nothing is in flight, so
		// only the pause's own end can let them go.
		front = await startRecordingFront(fx.server.url, {
			latencyMs: LATENCY_MS,
			refuse: (index) => (index === 0 ? { status: 429, headers: { 'retry-after': '1' } } : undefined),
		});
		// A node that never let them go would hang: cancelled after 15 s, it fails the test instead.
		let watchdog: NodeJS.Timeout | undefined;
		const result = await submit(front.url, 6, { batching: { concurrency: 2 } }, (execution) => (watchdog = setTimeout(() => execution.cancel(), 15_000)));
		clearTimeout(watchdog);
		expect(result.run.status).not.toBe('canceled');
		expect(result.error).toBeUndefined();
		expect(front.requests).toHaveLength(6);
		expect(result.json[0].httpCode).toBe('429');
		expect(result.json.slice(1).every((json) => typeof json.jobId === 'string')).toBe(true);
	});

	test('Concurrency 1 runs one item at a time: Submit + Wait for Completion submits the next job only once the last one has ended', async () => {
		front = await startRecordingFront(fx.server.url, { latencyMs: LATENCY_MS });
		const before = fx.server.store.count();
		const stopClock = advanceWhileWaiting(fx.clock, 1000);
		try {
			const result = await runActionNode({
				typeVersion: 2,
				credentials: credentialsFor(front.url),
				items: [{ n: 0 }, { n: 1 }],
				parameters: numberedSubmit(fx, { waitForCompletion: true, waitSettings: { pollInterval: 1, timeout: 3600 }, batching: { concurrency: 1 } }),
			});
			expect(result.error).toBeUndefined();
			expect(result.json.map((json) => json.executionStatus)).toEqual(['COMPLETED', 'COMPLETED']);
			const [first, second] = fx.server.store.all().slice(before).map((job) => job.id);
			const { requests } = front;
			const posts = requests.flatMap((request, index) => (request.method === 'POST' ? [index] : []));
			const readsOf = (id: string) => requests.flatMap((request, index) => (request.method === 'GET' && request.path.includes(id) ? [index] : []));
			expect(posts).toHaveLength(2);
			// Every read of the first job, the one that saw it end included, before the second job is submitted.
			expect(readsOf(first).length).toBeGreaterThan(0);
			expect(Math.max(...readsOf(first))).toBeLessThan(posts[1]);
			expect(Math.min(...readsOf(second))).toBeGreaterThan(posts[1]);
		} finally {
			stopClock();
		}
	});
});
