/**
 * Version 2's limit of requests in flight (nodes/shared/adaptiveLimit.ts) on a hand-driven clock: it grows while
 * answers come ok, never past its bound, halves once per burst of 429/503/timeouts/dropped connections, is not held
 * by slow answers, and holds new requests for a Retry-After. The slots (InFlightLimit) on a hand-driven sleep: never
 * more in flight than allowed, waiters let go the moment the limit grows, none during a pause, none once cancelled.
 * And what the transport tells them of a request that was never sent (nothing of the service's load).
 */
import { AdaptiveLimit, DEFAULT_MAX_IN_FLIGHT, firstBurst, INITIAL_IN_FLIGHT, InFlightLimit, MAX_ITEMS_AT_ONCE, MAX_PAUSE_MS } from '../../nodes/shared/adaptiveLimit';
import { overlapped } from '../../nodes/JobExecution/actions/router';
import type { AnswerSignal, PaceTicket, RequestPace } from '../../nodes/shared/adaptiveLimit';
import { apiRequest, DeadlineClock, readJobCall } from '../../nodes/shared/transport';
import { NodeApiError } from 'n8n-workflow';
import type { IExecuteFunctions, INode, JsonObject } from 'n8n-workflow';

/** A limit on a clock the test moves, and a round trip: send what is allowed, answer all after `ms`. */
function harness(max: number) {
	let now = 0;
	const limit = new AdaptiveLimit(max, () => now);
	const roundTrip = (ms: number, signal: 'ok' | 'busy' = 'ok') => {
		const tickets = Array.from({ length: limit.allowed() }, () => limit.sent());
		now += ms;
		for (const ticket of tickets) limit.answered(ticket, signal);
		return tickets.length;
	};
	return { limit, roundTrip, advance: (ms: number) => (now += ms) };
}

describe('AdaptiveLimit', () => {
	test('the first burst: reads at their whole bound, submissions at INITIAL_IN_FLIGHT (never past the bound)', () => {
		expect(firstBurst(DEFAULT_MAX_IN_FLIGHT, true)).toBe(DEFAULT_MAX_IN_FLIGHT);
		expect(firstBurst(DEFAULT_MAX_IN_FLIGHT, false)).toBe(INITIAL_IN_FLIGHT);
		expect(firstBurst(INITIAL_IN_FLIGHT + 1, false)).toBe(INITIAL_IN_FLIGHT);
		expect(firstBurst(INITIAL_IN_FLIGHT - 1, false)).toBe(INITIAL_IN_FLIGHT - 1);
		expect(firstBurst(2, true)).toBe(2);
		expect(new AdaptiveLimit(DEFAULT_MAX_IN_FLIGHT, Date.now, firstBurst(DEFAULT_MAX_IN_FLIGHT, true)).allowed()).toBe(DEFAULT_MAX_IN_FLIGHT);
	});

	test('starts at INITIAL_IN_FLIGHT, doubles per ok round trip, and stops exactly at its bound', () => {
		const { limit, roundTrip } = harness(DEFAULT_MAX_IN_FLIGHT);
		expect(limit.allowed()).toBe(INITIAL_IN_FLIGHT);
		const sizes = Array.from({ length: 6 }, () => roundTrip(20));
		expect(sizes.slice(0, 4)).toEqual([6, 12, 24, 48]);
		expect(sizes.slice(4)).toEqual([DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT]);
		for (let i = 0; i < 1000; i++) roundTrip(20);
		expect(limit.allowed()).toBe(DEFAULT_MAX_IN_FLIGHT);
	});

	test('a bound below the start is the first burst; a bound of 1 is one at a time whatever the answers', () => {
		expect(harness(3).limit.allowed()).toBe(3);
		const { limit, roundTrip } = harness(1);
		for (let i = 0; i < 50; i++) expect(roundTrip(5)).toBe(1);
		expect(limit.allowed()).toBe(1);
	});

	test('a burst of refusals halves the limit once, and answers to requests sent before the cut do not grow it back', () => {
		const { limit, roundTrip, advance } = harness(40);
		for (let i = 0; i < 5; i++) roundTrip(20);
		expect(limit.allowed()).toBe(40);
		const burst = Array.from({ length: 40 }, () => limit.sent());
		advance(20);
		for (const ticket of burst.slice(0, 10)) limit.answered(ticket, 'busy');
		for (const ticket of burst.slice(10)) limit.answered(ticket, 'ok');
		expect(limit.allowed()).toBe(20);
		// After the cut: about +1 per round trip (+1/limit per answer), not +1 per answer.
		roundTrip(20);
		roundTrip(20);
		expect(limit.allowed()).toBe(21);
		roundTrip(20, 'busy');
		expect(limit.allowed()).toBe(10);
	});

	test('never below one, however many refusals', () => {
		const { limit, roundTrip } = harness(DEFAULT_MAX_IN_FLIGHT);
		for (let i = 0; i < 20; i++) roundTrip(20, 'busy');
		expect(limit.allowed()).toBe(1);
	});

	test('a slow answer does not hold the limit: answers 100× slower than the first still grow it', () => {
		const { limit, roundTrip } = harness(DEFAULT_MAX_IN_FLIGHT);
		roundTrip(5);
		expect(limit.allowed()).toBe(2 * INITIAL_IN_FLIGHT);
		roundTrip(500);
		expect(limit.allowed()).toBe(4 * INITIAL_IN_FLIGHT);
	});

	test('a Retry-After holds new requests that long; one past MAX_PAUSE_MS holds nothing (the call fails saying when)', () => {
		const { limit, advance } = harness(10);
		limit.answered(limit.sent(), 'busy', 2000);
		expect(limit.pauseLeft()).toBe(2000);
		advance(1999);
		expect(limit.pauseLeft()).toBe(1);
		advance(1);
		expect(limit.pauseLeft()).toBe(0);
		limit.answered(limit.sent(), 'busy', MAX_PAUSE_MS);
		expect(limit.pauseLeft()).toBe(MAX_PAUSE_MS);
		advance(MAX_PAUSE_MS);
		limit.answered(limit.sent(), 'busy', MAX_PAUSE_MS + 1);
		expect(limit.pauseLeft()).toBe(0);
	});

	test('after a storm of cuts, ok answers grow the limit by one per round trip, never straight back to its bound', () => {
		const { limit, roundTrip } = harness(DEFAULT_MAX_IN_FLIGHT);
		for (let i = 0; i < 20; i++) roundTrip(20, 'busy');
		expect(limit.allowed()).toBe(1);
		// Halved 20 times the limit is held at one, not at a sliver of one: one ok answer then adds one.
		expect(roundTrip(20)).toBe(1);
		expect(limit.allowed()).toBe(2);
		expect(roundTrip(20)).toBe(2);
		expect(limit.allowed()).toBe(2);
	});

	test('a start past the bound starts at the bound, and the first cut halves the bound', () => {
		const limit = new AdaptiveLimit(4, () => 0, INITIAL_IN_FLIGHT);
		expect(limit.allowed()).toBe(4);
		limit.answered(limit.sent(), 'busy');
		expect(limit.allowed()).toBe(2);
	});

	test('neutral answers (no answer, a server error) change nothing', () => {
		const { limit } = harness(10);
		for (let i = 0; i < 20; i++) limit.answered(limit.sent(), 'neutral');
		expect(limit.allowed()).toBe(INITIAL_IN_FLIGHT);
	});
});

/** Slots on a clock and a sleep the test drives: `wake()` ends the pending sleep. */
function slotsHarness(max: number, cancel?: AbortSignal) {
	let now = 0;
	let wake: (() => void) | undefined;
	const sleeps: number[] = [];
	const slots = new InFlightLimit(new AdaptiveLimit(max, () => now), cancel, async (ms) => {
		sleeps.push(ms);
		await new Promise<void>((resolve) => (wake = resolve));
	});
	const granted: Array<PaceTicket | undefined> = [];
	const ask = (count: number) => {
		for (let i = 0; i < count; i++) void slots.slot().then((ticket) => granted.push(ticket));
	};
	const settle = async () => {
		for (let i = 0; i < 10; i++) await Promise.resolve();
	};
	return { slots, granted, ask, settle, sleeps, advance: (ms: number) => (now += ms), wake: () => wake?.() };
}

describe('InFlightLimit (the slots)', () => {
	test('grants exactly the limit, never one more, and the next waiters the moment the limit grows', async () => {
		const { slots, granted, ask, settle } = slotsHarness(DEFAULT_MAX_IN_FLIGHT);
		ask(100);
		await settle();
		expect(granted).toHaveLength(INITIAL_IN_FLIGHT);
		expect(slots.running()).toBe(INITIAL_IN_FLIGHT);
		expect(slots.waiting()).toBe(100 - INITIAL_IN_FLIGHT);
		// One ok answer: one slot freed and the limit one higher, so two waiters go.
		slots.answered(granted[0] as PaceTicket, 'ok');
		await settle();
		expect(granted).toHaveLength(INITIAL_IN_FLIGHT + 2);
		expect(slots.running()).toBe(INITIAL_IN_FLIGHT + 1);
		// Answer every ticket as it is granted: the slots fill to the bound and stay there.
		for (let answered = 1; answered < granted.length && granted.length < 100; answered++) {
			slots.answered(granted[answered] as PaceTicket, 'ok');
			await settle();
			expect(slots.running()).toBeLessThanOrEqual(DEFAULT_MAX_IN_FLIGHT);
		}
		expect(slots.running()).toBe(DEFAULT_MAX_IN_FLIGHT);
	});

	test('a busy answer halves the slots: no waiter goes until fewer than half are in flight', async () => {
		const { slots, granted, ask, settle } = slotsHarness(8);
		ask(20);
		await settle();
		expect(granted).toHaveLength(INITIAL_IN_FLIGHT);
		slots.answered(granted[0] as PaceTicket, 'busy');
		await settle();
		// 5 in flight, 3 allowed: nothing goes while 3 or more are in flight, then one per answer.
		expect(granted).toHaveLength(INITIAL_IN_FLIGHT);
		slots.answered(granted[1] as PaceTicket, 'ok');
		slots.answered(granted[2] as PaceTicket, 'ok');
		await settle();
		expect(granted).toHaveLength(INITIAL_IN_FLIGHT);
		slots.answered(granted[3] as PaceTicket, 'ok');
		await settle();
		expect(granted).toHaveLength(INITIAL_IN_FLIGHT + 1);
		expect(slots.running()).toBe(3);
	});

	test('takeNow gives a free slot at once, and none when the slots are full, a request waits, a Retry-After lasts or the run is cancelled', async () => {
		const cancel = new AbortController();
		const { slots, granted, ask, settle, advance } = slotsHarness(DEFAULT_MAX_IN_FLIGHT, cancel.signal);
		const now: PaceTicket[] = [];
		for (let i = 0; i < INITIAL_IN_FLIGHT; i++) now.push(slots.takeNow() as PaceTicket);
		expect(now.every((ticket) => ticket !== undefined)).toBe(true);
		expect(slots.running()).toBe(INITIAL_IN_FLIGHT);
		// Exactly at the limit: no slot at once, and one asked for waits.
		expect(slots.takeNow()).toBeUndefined();
		ask(1);
		await settle();
		expect(slots.waiting()).toBe(1);
		// A slot freed goes to the waiter, never to a request asking after it; then the grown limit has room at once.
		slots.answered(now[0], 'ok');
		await settle();
		expect(granted).toHaveLength(1);
		expect(slots.waiting()).toBe(0);
		expect(slots.takeNow()).toBeDefined();
		expect(slots.running()).toBe(INITIAL_IN_FLIGHT + 1);
		// A Retry-After (the limit halved to 3): with room again, still no slot at once while it lasts; one as soon as it has passed.
		slots.answered(now[1], 'busy', 1000);
		for (const ticket of now.slice(2)) slots.answered(ticket, 'neutral');
		expect(slots.running()).toBeLessThan(slots.limit.allowed());
		expect(slots.takeNow()).toBeUndefined();
		advance(999);
		expect(slots.takeNow()).toBeUndefined();
		advance(1);
		expect(slots.takeNow()).toBeDefined();
		cancel.abort();
		expect(slots.takeNow()).toBeUndefined();
	});

	test('a Retry-After holds every waiter and every new request until it has passed, with one sleep', async () => {
		const { slots, granted, ask, settle, sleeps, advance, wake } = slotsHarness(10);
		ask(INITIAL_IN_FLIGHT + 4);
		await settle();
		slots.answered(granted[0] as PaceTicket, 'busy', 1500);
		ask(2);
		await settle();
		expect(granted).toHaveLength(INITIAL_IN_FLIGHT);
		expect(sleeps).toEqual([1500]);
		// A sleep that ends a little early sleeps the rest; nothing goes before the pause has passed.
		advance(1499);
		wake();
		await settle();
		expect(granted).toHaveLength(INITIAL_IN_FLIGHT);
		expect(sleeps).toEqual([1500, 1]);
		advance(1);
		wake();
		await settle();
		// Halved to 3, 5 in flight: still none. Three answers free room for one.
		for (const ticket of granted.slice(1, 4)) slots.answered(ticket as PaceTicket, 'ok');
		await settle();
		expect(granted).toHaveLength(INITIAL_IN_FLIGHT + 1);
	});

	test('once a Retry-After has passed, the requests that waited through it go first: one asking then gets no slot ahead of them', async () => {
		const { slots, granted, ask, settle, advance, wake } = slotsHarness(10);
		ask(INITIAL_IN_FLIGHT + 2);
		await settle();
		// Halved to 3 and paused for a second; every request in flight then answered: none in flight, two waiting.
		slots.answered(granted[0] as PaceTicket, 'busy', 1000);
		for (const ticket of granted.slice(1)) slots.answered(ticket as PaceTicket, 'neutral');
		await settle();
		expect(slots.running()).toBe(0);
		expect(slots.waiting()).toBe(2);
		// The pause is over before its sleep has woken the waiters: a request asking now waits behind them.
		advance(1000);
		expect(slots.takeNow()).toBeUndefined();
		const late = slots.slot();
		wake();
		await settle();
		expect(granted).toHaveLength(INITIAL_IN_FLIGHT + 2);
		expect(slots.running()).toBe(3);
		expect((await late)?.seq).toBe(INITIAL_IN_FLIGHT + 2);
	});

	test('a cancelled execution lets every waiter go without a slot, and grants none after', async () => {
		const cancel = new AbortController();
		const { slots, granted, ask, settle } = slotsHarness(10, cancel.signal);
		ask(INITIAL_IN_FLIGHT + 3);
		await settle();
		cancel.abort();
		await settle();
		// toStrictEqual: toEqual takes [] for [undefined, undefined, undefined] (it ignores undefined array items).
		expect(granted).toHaveLength(INITIAL_IN_FLIGHT + 3);
		expect(granted.slice(INITIAL_IN_FLIGHT)).toStrictEqual([undefined, undefined, undefined]);
		expect(slots.waiting()).toBe(0);
		expect(await slots.slot()).toBeUndefined();
		expect(slots.running()).toBe(INITIAL_IN_FLIGHT);
	});
});

describe("version 2's item loop (router.ts overlapped)", () => {
	/** Items that each send one request, then wait for their job until the test ends them. */
	function waitingItems(slots: InFlightLimit) {
		const started: number[] = [];
		const jobEnds: Array<() => void> = [];
		const run = async (itemIndex: number) => {
			started.push(itemIndex);
			const ticket = await slots.slot();
			if (ticket) slots.answered(ticket, 'ok');
			await new Promise<void>((resolve) => jobEnds.push(resolve));
		};
		return { started, jobEnds, run };
	}
	/** Items that each ask for a slot and leave its ticket to the test to answer; `waitForever`: they never end. */
	function ticketHoldingItems(slots: InFlightLimit, waitForever = false) {
		const started: number[] = [];
		const tickets: PaceTicket[] = [];
		const run = async (itemIndex: number) => {
			started.push(itemIndex);
			const ticket = await slots.slot();
			if (ticket) tickets.push(ticket);
			if (waitForever) await new Promise<void>(() => undefined);
		};
		return { started, tickets, run };
	}
	const turns = async (count: number) => {
		for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
	};

	test(`starts exactly MAX_ITEMS_AT_ONCE (${MAX_ITEMS_AT_ONCE}) waiting items, in order, and the next one when one ends`, async () => {
		const slots = new InFlightLimit(new AdaptiveLimit(DEFAULT_MAX_IN_FLIGHT));
		const { started, jobEnds, run } = waitingItems(slots);
		const done = overlapped(slots)(MAX_ITEMS_AT_ONCE + 2, () => false, run);
		await turns(20);
		// Every item sent its request and now waits for its job holding no slot; one more would pass the cap.
		expect(started).toEqual(Array.from({ length: MAX_ITEMS_AT_ONCE }, (_, n) => n));
		expect(slots.running()).toBe(0);
		jobEnds[0]();
		await turns(5);
		expect(started).toHaveLength(MAX_ITEMS_AT_ONCE + 1);
		for (const end of jobEnds.slice(1)) end();
		await turns(5);
		for (const end of jobEnds.slice(MAX_ITEMS_AT_ONCE)) end();
		await done;
		expect(started).toHaveLength(MAX_ITEMS_AT_ONCE + 2);
	});

	test('an answer that lets a waiting request go starts the next item at once, though no item ended', async () => {
		// A bound of 2: two requests in flight, two waiting, four items started; the items then wait for their jobs.
		const slots = new InFlightLimit(new AdaptiveLimit(2, Date.now, 2));
		const { started, tickets, run } = ticketHoldingItems(slots, true);
		void overlapped(slots)(10, () => false, run);
		await turns(20);
		expect(started).toEqual([0, 1, 2, 3]);
		expect(slots.waiting()).toBe(2);
		// A neutral answer keeps the limit at 2: the freed slot goes to a waiter, and one more item starts in its place.
		slots.answered(tickets[0], 'neutral');
		await turns(20);
		expect(slots.running()).toBe(2);
		expect(slots.waiting()).toBe(2);
		expect(started).toEqual([0, 1, 2, 3, 4]);
	});

	test('no more items start than can wait for a slot: while the requests in flight are held, at most twice the limit have started', async () => {
		const slots = new InFlightLimit(new AdaptiveLimit(DEFAULT_MAX_IN_FLIGHT));
		const { started, tickets, run } = ticketHoldingItems(slots);
		const done = overlapped(slots)(100, () => false, run);
		await turns(20);
		expect(slots.running()).toBe(INITIAL_IN_FLIGHT);
		expect(slots.waiting()).toBe(INITIAL_IN_FLIGHT);
		expect(started).toHaveLength(2 * INITIAL_IN_FLIGHT);
		while (tickets.length > 0) {
			slots.answered(tickets.shift() as PaceTicket, 'ok');
			await turns(3);
		}
		await done;
		expect(started).toHaveLength(100);
	});
});

describe('what the transport tells the slots (transport/index.ts pacedAttempt)', () => {
	/** A node's context whose n8n helper is `send` (the failures no server on 127.0.0.1 can make at will). */
	const contextSending = (send: (...args: unknown[]) => Promise<unknown>) =>
		({
			getNode: () => ({ id: 'n', name: 'Job Execution', type: 'jobExecution', typeVersion: 2, position: [0, 0], parameters: {} }),
			getExecutionCancelSignal: () => undefined,
			helpers: { httpRequestWithAuthentication: send },
		}) as unknown as IExecuteFunctions;
	const connectionWith = (pace: RequestPace, clock: DeadlineClock) => ({ credentialType: 'jobExecutionApi' as const, baseUrl: 'http://127.0.0.1:9', secrets: [], pace, clock });

	test.each([
		['ETIMEDOUT', 'busy'],
		['ESOCKETTIMEDOUT', 'busy'],
		['ECONNRESET', 'busy'],
		['ECONNABORTED', 'busy'],
		['ECONNREFUSED', 'neutral'],
		['ENOTFOUND', 'neutral'],
	] as const)('a connection that fails with %s is heard as %s', async (code, signal) => {
		const heard: AnswerSignal[] = [];
		const pace: RequestPace = { takeNow: () => ({ seq: 0 }), slot: async () => ({ seq: 0 }), answered: (_ticket, answer) => void heard.push(answer) };
		// As n8n-core's httpRequestWithAuthentication (request-helpers/authentication.js) fails: the request's error,
		// with its code, wrapped in a NodeApiError.
		const context = contextSending(async () => {
			throw new NodeApiError(context.getNode() as INode, Object.assign(new Error('the connection failed'), { code }) as unknown as JsonObject);
		});
		const clock = new DeadlineClock();
		try {
			await expect(apiRequest.call(context, connectionWith(pace, clock), readJobCall('job-1'), { singleAttempt: true })).rejects.toThrow();
		} finally {
			clock.close();
		}
		expect(heard).toEqual([signal]);
	});

	test('a read whose end passed while it waited for a slot is never sent, and its slot is given back without a cut', async () => {
		const heard: Array<[number, AnswerSignal]> = [];
		const deadline = Date.now() + 20;
		// No slot at once; the one slot comes only once the call's end has passed (the test's own loop waits for it).
		const pace: RequestPace = {
			takeNow: () => undefined,
			slot: async () => {
				while (Date.now() <= deadline) await new Promise((resolve) => setTimeout(resolve, 5));
				return { seq: 0 };
			},
			answered: (ticket, signal) => void heard.push([ticket.seq, signal]),
		};
		const sent: unknown[] = [];
		const context = contextSending(async (...args) => void sent.push(args));
		const clock = new DeadlineClock();
		try {
			const call = apiRequest.call(context, connectionWith(pace, clock), readJobCall('job-1'), { deadline, singleAttempt: true });
			await expect(call).rejects.toThrow();
		} finally {
			clock.close();
		}
		expect(sent).toEqual([]);
		// Waiting for a slot is n8n's own queueing, not the service's word: the slot is freed, the limit not cut.
		expect(heard).toEqual([[0, 'neutral']]);
	});
});
