/**
 * Version 2's limit of requests in flight (nodes/shared/adaptiveLimit.ts), through n8n's engine against the
 * reference server behind a recording hop that holds each request 20 ms (a service across a network). Every claim
 * is a count of what the hop saw, never a time: a gate holds requests until the number the node should reach pile
 * up, so the test knows that many were in flight together (and a gate that never fills, that one more never was).
 * At its defaults the limit grows past 50 while answers are ok; a set Concurrency is reached exactly and never passed;
 * the first burst is INITIAL_READS_IN_FLIGHT for reads and INITIAL_IN_FLIGHT for submissions (firstBurst); a rate of
 * 429s, 503s, dropped connections or timeouts cuts the requests in flight to the share answered ok, once, while one
 * 503 cuts nothing; the 429s the cut answered are resent as it comes, their retry delays cut short; a Retry-After holds every new request, items already started included, and one as long as a
 * call can wait ends the batch at once, every item saying when; a submission answered 429 is sent again, once; and a
 * batch of Submit + Wait for Completion submits every job while none has ended (an item waiting for its job holds no
 * slot). A 400 grows the limit like a success and a 500 does not cut it; a pause's end lets waiting requests go with
 * none in flight, and a cancel during a pause ends the run at once; Concurrency 1 runs one item at a time. Against
 * testkit/limitedService.ts (4 at once, 429 beyond) every Submit item gets its job, each created once.
 * Version 1 keeps its fixed pool (test/nodes/batchingConcurrency.test.ts).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { DEFAULT_MAX_IN_FLIGHT, INITIAL_IN_FLIGHT, INITIAL_READS_IN_FLIGHT } from '../../nodes/shared/adaptiveLimit';
import { transportTiming } from '../../nodes/shared/transport';
import { runActionNode } from '../../testkit/engine';
import { advanceWhileWaiting, credentialsFor, INTERFACES, numberedSubmit, SALES, startFixture } from '../../testkit/fixtures';
import type { Fixture, Interface } from '../../testkit/fixtures';
import { startRecordingFront } from '../../testkit/recordingFront';
import type { RecordingFront, RecordingFrontOptions, Refusal } from '../../testkit/recordingFront';
import { startLimitedService } from '../../testkit/limitedService';
import type { LimitedService } from '../../testkit/limitedService';

const LATENCY_MS = 20;
/** A Concurrency set by the user, and more items than it, so an unbounded node would pass it. */
const SET_BOUND = 50;
const ITEMS = SET_BOUND * 3;
/** Requests answered before the gate closes: enough ok answers to grow the limit from its start to the bound. */
const WARM_UP = SET_BOUND + 10;
/** At the defaults: reads past which the gate holds, and how many it holds at once (well past 50, the old bound). */
const GROWN = 200;

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
	test(`Get at its defaults grows past ${INITIAL_READS_IN_FLIGHT} while answers are ok: ${GROWN} reads in flight at once; outputs in item order`, async () => {
		// After GROWN ok answers the limit is INITIAL_READS_IN_FLIGHT + GROWN (one per ok answer); the gate then holds
		// every read until GROWN pile up, which a limit stuck at 50 (or any below GROWN) never lets happen.
		const { url, maxInFlight, requests, gateFilled } = await hop({ gate: { from: GROWN, until: GROWN, giveUpMs: 20_000 } });
		const items = getItems(2 * GROWN + 50);
		const result = await get(url, items);
		expect(result.error).toBeUndefined();
		expect(gateFilled()).toBe(true);
		expect(maxInFlight()).toBeGreaterThanOrEqual(GROWN);
		expect(maxInFlight()).toBeLessThanOrEqual(DEFAULT_MAX_IN_FLIGHT);
		expect(requests).toHaveLength(items.length);
		expect(result.json.map((json) => json.jobId)).toEqual(items.map((item) => item.jobId));
		expect(result.items.map((item) => item.pairedItem)).toEqual(items.map((_, n) => ({ item: n })));
	}, 60_000);

	test(`Get at Concurrency ${SET_BOUND} reaches exactly ${SET_BOUND} reads in flight and never one more`, async () => {
		const { url, maxInFlight, requests, gateFilled } = await hop({ gate: { from: WARM_UP, until: SET_BOUND } });
		const result = await get(url, getItems(ITEMS), { batching: { concurrency: SET_BOUND } });
		expect(result.error).toBeUndefined();
		expect(gateFilled()).toBe(true);
		expect(maxInFlight()).toBe(SET_BOUND);
		expect(requests).toHaveLength(ITEMS);
	});

	test(`Submit at Concurrency ${SET_BOUND} reaches exactly ${SET_BOUND} submissions in flight and never one more; one job per item`, async () => {
		const { url, maxInFlight, requests, gateFilled } = await hop({ gate: { from: WARM_UP, until: SET_BOUND } });
		const before = fx.server.store.count();
		const result = await runActionNode({
			typeVersion: 2,
			credentials: credentialsFor(url),
			items: Array.from({ length: ITEMS }, (_, n) => ({ n })),
			parameters: numberedSubmit(fx, { batching: { concurrency: SET_BOUND } }),
		});
		expect(result.error).toBeUndefined();
		expect(gateFilled()).toBe(true);
		expect(maxInFlight()).toBe(SET_BOUND);
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

	test(`the first burst of reads is exactly ${INITIAL_READS_IN_FLIGHT}, before any answer`, async () => {
		// Nothing is answered until the first burst is in; one more read would be seen in flight beside them.
		const { url, requests, gateFilled } = await hop({ gate: { from: 0, until: INITIAL_READS_IN_FLIGHT } });
		const result = await get(url, getItems(INITIAL_READS_IN_FLIGHT + 10));
		expect(result.error).toBeUndefined();
		expect(gateFilled()).toBe(true);
		expect(requests[INITIAL_READS_IN_FLIGHT - 1].inFlightAtArrival).toBe(INITIAL_READS_IN_FLIGHT);
		// No other read arrived before the first answer of the burst went back.
		expect(most(requests.slice(0, INITIAL_READS_IN_FLIGHT).map((request) => -(request.closedAfter ?? Infinity)))).toBe(-INITIAL_READS_IN_FLIGHT);
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

	test(`a Concurrency outside 1 to ${DEFAULT_MAX_IN_FLIGHT}, or not whole, stops version 2 before anything is sent; 1 and ${DEFAULT_MAX_IN_FLIGHT} are accepted`, async () => {
		const { url, requests } = await hop();
		for (const refused of [DEFAULT_MAX_IN_FLIGHT + 1, 0, 2.5]) {
			const refusedResult = await get(url, getItems(3), { batching: { concurrency: refused } });
			expect(refusedResult.error?.message).toBe(`Concurrency must be a whole number from 1 to ${DEFAULT_MAX_IN_FLIGHT}, got ${refused}`);
		}
		expect(requests).toHaveLength(0);
		for (const accepted of [DEFAULT_MAX_IN_FLIGHT, 1]) {
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

	test.each(CUTS)('$label to every read of the first burst cuts the reads in flight to the share answered ok (none: one at a time), once', async ({ refusal, attemptMs }) => {
		if (attemptMs) transportTiming.attemptMs = attemptMs;
		const burst = INITIAL_IN_FLIGHT;
		// At Concurrency = the first burst the limit cannot grow before the cut: the burst is exactly `burst` reads,
		// held until all are in. Every one is refused, so the limit falls to one once the window holds the burst's
		// answers (the first `burst - 1` refusals each free a slot before that: a thin window decides nothing). The reads
		// after those are held until two pile up, which a limit of one never lets happen (the hop gives up after 2 s):
		// no request held there is answered, so what the hop holds is what the node has in flight.
		front = await startRecordingFront(fx.server.url, {
			latencyMs: LATENCY_MS,
			refuse: (index) => (index < burst ? refusal : undefined),
			gate: [
				{ from: 0, until: burst, giveUpMs: 10_000 },
				{ from: 2 * burst - 1, until: 2, giveUpMs: 2000 },
			],
		});
		const result = await get(front.url, 24, { batching: { concurrency: burst } });
		const { requests } = front;
		expect(result.error).toBeUndefined();
		expect(requests[burst - 1].inFlightAtArrival).toBe(burst);
		expect(front.gateFilled()).toBe(false);
		// Every item read, the refused ones again.
		expect(requests.length).toBe(24 + burst);
	});

	/** Gets of `count` items at Concurrency `burst`, Continue On Fail, the execution cancelled after 20 s (a hang guard). */
	const refusedBurst = async (burst: number, count: number) => {
		// The burst, held until it is all in, is refused whole: the window decides at its last answer (as many as the
		// limit), which cuts the limit to one. The burst's first answers came before the cut, the last one with it.
		front = await startRecordingFront(fx.server.url, { latencyMs: LATENCY_MS, refuse: (index) => (index < burst ? { status: 429 } : undefined), gate: { from: 0, until: burst, giveUpMs: 10_000 } });
		let watchdog: NodeJS.Timeout | undefined;
		try {
			return await runActionNode({
				typeVersion: 2,
				credentials: credentialsFor(front.url),
				continueOnFail: true,
				items: Array.from({ length: count }, (_, n) => ({ jobId: jobIds[n % jobIds.length] })),
				parameters: { authentication: fx.authentication, resource: 'job', operation: 'get', jobId: '={{ $json.jobId }}', batching: { concurrency: burst } },
				onStart: (execution) => (watchdog = setTimeout(() => execution.cancel(), 20_000)),
			});
		} finally {
			clearTimeout(watchdog);
		}
	};

	test('429s (no Retry-After) to a whole first burst are resent as soon as the cut comes: the delays of those answered before it are cut short', async () => {
		// A retry delay of ten minutes, within a call of fifteen: waited out, the batch would be cancelled at 20 s.
		Object.assign(transportTiming, { callMs: 900_000, retryDelaysMs: [600_000] });
		const burst = INITIAL_IN_FLIGHT;
		const result = await refusedBurst(burst, 2 * burst);
		expect(front?.gateFilled()).toBe(true);
		expect(result.json.filter((json) => json.error !== undefined)).toEqual([]);
		expect(result.json).toHaveLength(2 * burst);
		// Every item sent once, and the refused ones once more.
		expect(front?.requests.length).toBe(3 * burst);
	});

	test('a 429 (no Retry-After) answered with the cut is resent at its next slot; those answered before it wait their delay (one longer than a call: they fail at once, naming the 429)', async () => {
		transportTiming.retryDelaysMs = [600_000];
		const burst = INITIAL_IN_FLIGHT;
		const result = await refusedBurst(burst, 2 * burst);
		if (!front) throw new Error('no hop');
		expect(front.gateFilled()).toBe(true);
		const failed = result.json.filter((json) => json.error !== undefined);
		expect(failed).toHaveLength(burst - 1);
		for (const json of failed) expect(String(json.error)).toMatch(/429|too many requests/i);
		// Every item sent once, and the one refused after the cut once more.
		expect(front.requests.length).toBe(2 * burst + 1);
		expect(front.requests.slice(burst).every((request) => request.refusedWith === undefined)).toBe(true);
	});

	test('503s to half the reads of the first burst (a rate) cut the reads in flight to the half answered ok', async () => {
		const burst = INITIAL_IN_FLIGHT;
		// The cut comes with the burst's last answer; the reads sent after it (from the (burst + burst/2)th on: the three
		// answers before the last freed three slots) are held until four pile up, which a limit of three never lets happen.
		front = await startRecordingFront(fx.server.url, {
			latencyMs: LATENCY_MS,
			refuse: (index) => (index < burst / 2 ? { status: 503 } : undefined),
			gate: [
				{ from: 0, until: burst, giveUpMs: 10_000 },
				{ from: burst + burst / 2, until: burst / 2 + 1, giveUpMs: 2000 },
			],
		});
		const result = await get(front.url, 24, { batching: { concurrency: burst } });
		expect(result.error).toBeUndefined();
		expect(front.requests[burst - 1].inFlightAtArrival).toBe(burst);
		expect(front.gateFilled()).toBe(false);
		expect(front.requests.length).toBe(24 + burst / 2);
	});

	test('a scattered error is not overload: one 503 in the first burst cuts nothing, the next round has the whole burst in flight again', async () => {
		const burst = INITIAL_IN_FLIGHT;
		front = await startRecordingFront(fx.server.url, {
			latencyMs: LATENCY_MS,
			refuse: (index) => (index === 0 ? { status: 503 } : undefined),
			gate: [
				{ from: 0, until: burst, giveUpMs: 10_000 },
				{ from: burst, until: burst, giveUpMs: 10_000 },
			],
		});
		const result = await get(front.url, 24, { batching: { concurrency: burst } });
		expect(result.error).toBeUndefined();
		// The second gate opened on `burst` reads held at once: no cut (a cut per busy answer would have halved them).
		expect(front.gateFilled()).toBe(true);
		expect(front.requests.length).toBe(25);
	});

	test(`a 503 storm: reads starting at ${INITIAL_READS_IN_FLIGHT} against a service taking ${STORM_CAPACITY} at once fall to its size, and every item is read`, async () => {
		// Shorter backoff than the node's (a harsher storm: refused reads come back sooner), so the test stays quick,
		// and more retries: which read the service refuses once the limit is at its size depends on when answers go
		// back (a busy machine), and a read refused at every one of 3 retries would fail its item whatever the limit.
		transportTiming.retryDelaysMs = [50, 100, 200, 300, 400, 500, 500, 500, 500, 500];
		// The first burst is held until it is all in: refused by count (all but the service's share), not by timing.
		front = await startRecordingFront(fx.server.url, {
			latencyMs: LATENCY_MS,
			refuse: (_index, request) => (request.inFlightAtArrival > STORM_CAPACITY ? { status: 503 } : undefined),
			gate: { from: 0, until: INITIAL_READS_IN_FLIGHT, giveUpMs: 10_000 },
		});
		const result = await get(front.url, STORM_ITEMS);
		const { requests } = front;
		expect(result.error).toBeUndefined();
		expect(front.gateFilled()).toBe(true);
		expect(result.json).toHaveLength(STORM_ITEMS);
		const refused = requests.filter((request) => request.refusedWith === 503).length;
		expect(requests.slice(0, INITIAL_READS_IN_FLIGHT).filter((request) => request.refusedWith === 503)).toHaveLength(INITIAL_READS_IN_FLIGHT - STORM_CAPACITY);
		expect(requests.length).toBe(STORM_ITEMS + refused);
		// The first burst is refused but for the service's share; cut to the share answered ok, the limit is at the
		// service's size within a round trip or two, then probes past it by one per round trip, each probe cut again.
		expect(requests[INITIAL_READS_IN_FLIGHT - 1].inFlightAtArrival).toBe(INITIAL_READS_IN_FLIGHT);
		// From the 100th read on, the storm is over.
		const after = requests.slice(2 * INITIAL_READS_IN_FLIGHT);
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
		// Concurrency 2: both first reads are refused with "Retry-After: 30" (the first heard pauses the slots before
		// it frees one, so no other read is sent whichever is heard first); the other 4 items wait for a slot through
		// the pause. The execution is cancelled once both answers are sent: nothing is in flight then.
		front = await startRecordingFront(fx.server.url, {
			latencyMs: LATENCY_MS,
			refuse: (index) => (index < 2 ? { status: 429, headers: { 'retry-after': '30' } } : undefined),
		});
		const { requests } = front;
		let cancel: (() => void) | undefined;
		const run = get(front.url, 6, { batching: { concurrency: 2 } }, (execution) => (cancel = execution.cancel));
		await until(() => requests.length === 2 && requests.every((request) => request.closedAfter !== undefined), 'both first reads were answered');
		cancel?.();
		// A node that slept out the pause would end 30 s later: given up on after 15 s, it fails the test.
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

	test('the end of a Retry-After lets the waiting submissions go even when none is in flight to free a slot; the refused one is sent again, once', async () => {
		// Concurrency 2: the first submission is refused with "Retry-After: 1" (a 429 created nothing: it is sent
		// again after the pause), the second is answered; the other 4 items wait for a slot. Once the pause is over
		// nothing is in flight, so only the pause's own end can let them go.
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
		expect(front.requests).toHaveLength(7);
		expect(front.requests.filter((request) => request.refusedWith === 429)).toHaveLength(1);
		// Every item has its own job, the refused one's from its second sending: six jobs for six items, none twice.
		const jobs = result.json.map((json) => json.jobId);
		expect(jobs.every((id) => typeof id === 'string')).toBe(true);
		expect(new Set(jobs).size).toBe(6);
		expect(fx.server.store.count()).toBe(6);
	});

	test('a batch whose every answer asks for a Retry-After as long as a call can wait ends within that one pause: the reads waiting for a slot fail at once, saying when', async () => {
		// Concurrency 4, 10 items, every read refused with "Retry-After: 60" (a call's whole limit): the first 4 are
		// refused and pause the node; the 6 waiting could only be sent after their calls ended, so none is sent.
		front = await startRecordingFront(fx.server.url, { latencyMs: LATENCY_MS, refuse: () => ({ status: 429, headers: { 'retry-after': '60' } }) });
		const result = await runActionNode({
			typeVersion: 2,
			credentials: credentialsFor(front.url),
			continueOnFail: true,
			items: Array.from({ length: 10 }, () => ({ jobId: 'job-1' })),
			parameters: { authentication: fx.authentication, resource: 'job', operation: 'get', jobId: '={{ $json.jobId }}', batching: { concurrency: 4 } },
		});
		expect(result.error).toBeUndefined();
		expect(front.requests).toHaveLength(4);
		expect(result.json.map((json) => json.httpCode)).toEqual(Array.from({ length: 10 }, () => '429'));
		expect(result.json.every((json) => String(json.description).includes('The service asked to retry in 60 s'))).toBe(true);
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

describe('version 2 against a service of limited capacity (testkit/limitedService.ts, native)', () => {
	let fx: Fixture;
	let service: LimitedService | undefined;
	const saved = { ...transportTiming };
	beforeEach(async () => {
		fx = await startFixture('native', { concurrency: 1000 });
		// A refused read or 429'd submission is sent again: with more retries (as in the storm above), so which request
		// a busy machine lets the service refuse four times in a row cannot fail its item whatever the limit does.
		transportTiming.retryDelaysMs = [50, 100, 200, 300, 400, 500, 500, 500, 500, 500];
	});
	afterEach(async () => {
		Object.assign(transportTiming, saved);
		await service?.close();
		service = undefined;
		await fx.server.close();
	});

	test.each([
		['503 beyond, no Retry-After', { beyond: 503 as const }],
		['queueing beyond', { beyond: 'queue' as const }],
		['20 % of answers a scattered 503', { beyond: 'queue' as const, scatteredBusy: { share: 0.2, seed: 46 } }],
	])('Get against a service taking 4 at once (%s): every item read, never more than 4 served at once', async (_label, behaviour) => {
		service = await startLimitedService(fx.server.url, { capacity: 4, serviceMs: LATENCY_MS, ...behaviour });
		const submitted = await runActionNode({ credentials: fx.credentials, items: [{ n: 0 }], parameters: numberedSubmit(fx) });
		const jobId = submitted.json[0].jobId as string;
		const result = await runActionNode({
			typeVersion: 2,
			credentials: credentialsFor(service.url),
			items: Array.from({ length: 60 }, () => ({ jobId })),
			parameters: { authentication: fx.authentication, resource: 'job', operation: 'get', jobId: '={{ $json.jobId }}' },
		});
		expect(result.error).toBeUndefined();
		expect(result.json.map((json) => json.jobId)).toEqual(Array.from({ length: 60 }, () => jobId));
		expect(service.peak()).toBeLessThanOrEqual(4);
		expect(service.served()).toBe(60);
		if (behaviour.beyond === 503) expect(service.refused()).toBeGreaterThan(0);
		if ('scatteredBusy' in behaviour) expect(service.scattered()).toBeGreaterThan(0);
	});

	test.each([
		['no Retry-After', undefined],
		['Retry-After: 1', '1'],
	])('Submit against a service taking 4 at once and answering 429 beyond (%s): every item submitted, each job created once', async (_label, retryAfter) => {
		service = await startLimitedService(fx.server.url, { capacity: 4, serviceMs: LATENCY_MS, beyond: 429, retryAfter });
		const result = await runActionNode({ typeVersion: 2, credentials: credentialsFor(service.url), items: Array.from({ length: 40 }, (_, n) => ({ n })), parameters: numberedSubmit(fx) });
		expect(result.error).toBeUndefined();
		expect(service.peak()).toBeLessThanOrEqual(4);
		// A refused submission created nothing and was sent again; none created a job twice.
		expect(service.refused()).toBeGreaterThan(0);
		expect(service.submissionsTaken()).toBe(40);
		expect(fx.server.store.count()).toBe(40);
		for (const [n, json] of result.json.entries()) {
			expect(fx.server.store.all().find((job) => job.id === json.jobId)?.parameters[0].value).toBe(String(n));
		}
	});
});
