/**
 * Version 2's limit of requests in flight (nodes/shared/adaptiveLimit.ts) on a hand-driven clock: it grows while
 * answers come ok, never past its bound, halves once per burst of 429/503/timeouts/dropped connections, is not held
 * by slow answers, and holds new requests for a Retry-After. The slots (InFlightLimit) on a hand-driven sleep: never
 * more in flight than allowed, waiters let go the moment the limit grows, none during a pause, none once cancelled.
 * And what the transport tells them of a request that was never sent (nothing of the service's load).
 */
import { AdaptiveLimit, DEFAULT_MAX_IN_FLIGHT, firstBurst, INITIAL_IN_FLIGHT, INITIAL_READS_IN_FLIGHT, InFlightLimit, MAX_ITEMS_AT_ONCE, MAX_PAUSE_MS, MIN_BUSY_TO_CUT, MIN_LEFT_AFTER_PAUSE_MS, MIN_WINDOW } from '../../nodes/shared/adaptiveLimit';
import { overlapped } from '../../nodes/JobExecution/actions/router';
import type { AnswerSignal, PaceRefusal, PaceTicket, RequestPace } from '../../nodes/shared/adaptiveLimit';
import { answerReservation, AnswerBudget, FIRST_ANSWER_ESTIMATE, MAX_ANSWER_BYTES_HELD } from '../../nodes/shared/answerBudget';
import type { AnswerHold } from '../../nodes/shared/answerBudget';
import { apiRequest, DeadlineClock, MAX_JOB_ANSWER_BYTES, readJobCall } from '../../nodes/shared/transport';
import { getEventListeners } from 'node:events';

import fc from 'fast-check';
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

/** Sends `count` requests and answers them: `busy` of them busy (first), the rest ok. */
function answerBurst(limit: AdaptiveLimit, count: number, busy: number, retryAfterMs?: number) {
	const tickets = Array.from({ length: count }, () => limit.sent());
	tickets.forEach((ticket, n) => limit.answered(ticket, n < busy ? 'busy' : 'ok', n < busy ? retryAfterMs : undefined));
}

describe('AdaptiveLimit', () => {
	test(`the first burst: reads at INITIAL_READS_IN_FLIGHT (${INITIAL_READS_IN_FLIGHT}), submissions at INITIAL_IN_FLIGHT, never past the bound`, () => {
		expect(firstBurst(DEFAULT_MAX_IN_FLIGHT, true)).toBe(INITIAL_READS_IN_FLIGHT);
		expect(firstBurst(INITIAL_READS_IN_FLIGHT + 1, true)).toBe(INITIAL_READS_IN_FLIGHT);
		expect(firstBurst(INITIAL_READS_IN_FLIGHT - 1, true)).toBe(INITIAL_READS_IN_FLIGHT - 1);
		expect(firstBurst(DEFAULT_MAX_IN_FLIGHT, false)).toBe(INITIAL_IN_FLIGHT);
		expect(firstBurst(INITIAL_IN_FLIGHT + 1, false)).toBe(INITIAL_IN_FLIGHT);
		expect(firstBurst(INITIAL_IN_FLIGHT - 1, false)).toBe(INITIAL_IN_FLIGHT - 1);
		expect(firstBurst(2, true)).toBe(2);
		expect(new AdaptiveLimit(DEFAULT_MAX_IN_FLIGHT, Date.now, firstBurst(DEFAULT_MAX_IN_FLIGHT, true)).allowed()).toBe(INITIAL_READS_IN_FLIGHT);
	});

	test(`the default bound is ${DEFAULT_MAX_IN_FLIGHT}, the items a batch runs at once: one request each, so a 1,000-item batch never waits on it`, () => {
		expect(DEFAULT_MAX_IN_FLIGHT).toBe(MAX_ITEMS_AT_ONCE);
		expect(DEFAULT_MAX_IN_FLIGHT).toBeGreaterThanOrEqual(1000);
	});

	test('starts at INITIAL_IN_FLIGHT, doubles per ok round trip past 50, and stops exactly at its bound', () => {
		const { limit, roundTrip } = harness(DEFAULT_MAX_IN_FLIGHT);
		expect(limit.allowed()).toBe(INITIAL_IN_FLIGHT);
		const sizes = Array.from({ length: 9 }, () => roundTrip(20));
		expect(sizes).toEqual([6, 12, 24, 48, 96, 192, 384, 768, DEFAULT_MAX_IN_FLIGHT]);
		for (let i = 0; i < 100; i++) roundTrip(20);
		expect(limit.allowed()).toBe(DEFAULT_MAX_IN_FLIGHT);
	});

	test('a bound below the start is the first burst; a bound of 1 is one at a time whatever the answers', () => {
		expect(harness(3).limit.allowed()).toBe(3);
		const { limit, roundTrip } = harness(1);
		for (let i = 0; i < 50; i++) expect(roundTrip(5)).toBe(1);
		expect(limit.allowed()).toBe(1);
	});

	test(`a scattered error is not overload: one busy answer never cuts, nor ${MIN_BUSY_TO_CUT} or more making at most a fifth of the window`, () => {
		const limit = new AdaptiveLimit(1000, () => 0, 100);
		// A lone busy answer (the window still thin): no cut.
		limit.answered(limit.sent(), 'busy');
		expect(limit.allowed()).toBe(100);
		// Then 80 ok and 19 more busy: 20 busy of 100, exactly a fifth, do not cut (the ok ones grew it by 80).
		const tickets = Array.from({ length: 99 }, () => limit.sent());
		for (const ticket of tickets.slice(0, 80)) limit.answered(ticket, 'ok');
		for (const ticket of tickets.slice(80)) limit.answered(ticket, 'busy');
		expect(limit.allowed()).toBe(180);
	});

	test('a rate of busy answers cuts: one past a fifth of the window cuts the limit to the share answered ok, once', () => {
		const limit = new AdaptiveLimit(1000, () => 0, 100);
		const tickets = Array.from({ length: 101 }, () => limit.sent());
		for (const ticket of tickets.slice(0, 80)) limit.answered(ticket, 'ok');
		for (const ticket of tickets.slice(80, 100)) limit.answered(ticket, 'busy');
		expect(limit.allowed()).toBe(180);
		limit.answered(tickets[100], 'busy');
		expect(limit.allowed()).toBe(Math.floor((180 * 80) / 101));
		// Answers to requests sent before the cut neither cut again nor grow it back.
		const cut = limit.allowed();
		const late = Array.from({ length: 10 }, () => limit.sent());
		for (const ticket of tickets.slice(0, 50)) limit.answered(ticket, 'busy');
		for (const ticket of tickets.slice(50)) limit.answered(ticket, 'ok');
		expect(limit.allowed()).toBe(cut);
		// Answers to requests sent after it do.
		for (const ticket of late) limit.answered(ticket, 'ok');
		expect(limit.allowed()).toBe(cut);
		expect(limit.allowed()).toBeLessThan(cut + 1);
	});

	test('a burst refused beyond what the service takes cuts to the requests it is still working on: those in flight sent before one it refused', () => {
		// 50 sent; the service works on the first 8 and refuses the next 20 at once, while 22 more are on their way.
		const cutBy = (statusCode: number | undefined) => {
			const limit = new AdaptiveLimit(1000, () => 0, 50);
			const tickets = Array.from({ length: 50 }, () => limit.sent());
			for (const ticket of tickets.slice(8, 28)) limit.answered(ticket, 'busy', undefined, statusCode);
			return { limit, tickets };
		};
		// Not the share answered ok (none: 1), nor all in flight (30): the 8 sent before the newest refusal.
		expect(cutBy(429).limit.allowed()).toBe(8);
		expect(cutBy(503).limit.allowed()).toBe(8);
		// A timeout or a dropped connection says nothing of what the service took: the share answered ok.
		expect(cutBy(undefined).limit.allowed()).toBe(1);
		// One of the 8 answered before the cut: 7 left at work.
		const limit = new AdaptiveLimit(1000, () => 0, 50);
		const tickets = Array.from({ length: 50 }, () => limit.sent());
		limit.answered(tickets[0], 'ok');
		for (const ticket of tickets.slice(8, 28)) limit.answered(ticket, 'busy', undefined, 429);
		expect(limit.allowed()).toBe(7);
		// The next cut reads only the refusals heard since this one: timeouts after it cut to the share (none ok), though
		// the 7 are still at work.
		const after = Array.from({ length: 20 }, () => limit.sent());
		for (const ticket of after) limit.answered(ticket, 'busy');
		expect(limit.allowed()).toBe(1);
	});

	test(`a thin window never cuts: ${MIN_WINDOW - 1} busy answers of ${MIN_WINDOW - 1} do not, the ${MIN_WINDOW}th does`, () => {
		const limit = new AdaptiveLimit(1000, () => 0, 40);
		const tickets = Array.from({ length: 40 }, () => limit.sent());
		for (const ticket of tickets.slice(0, MIN_WINDOW - 1)) limit.answered(ticket, 'busy');
		expect(limit.allowed()).toBe(40);
		limit.answered(tickets[MIN_WINDOW - 1], 'busy');
		expect(limit.allowed()).toBe(1);
		// The rest of the burst (sent before the cut): heard, but it neither cuts nor grows.
		for (const ticket of tickets.slice(MIN_WINDOW)) limit.answered(ticket, 'ok');
		expect(limit.allowed()).toBe(1);
	});

	test('a window as small as the limit: at a bound of 4, two busy answers of four cut (to two), one does not', () => {
		// One busy of four is a quarter of the window, past a fifth, but a lone one: no cut.
		const one = new AdaptiveLimit(4, () => 0, 4);
		answerBurst(one, 4, 1);
		expect(one.allowed()).toBe(4);
		for (let i = 0; i < 5; i++) answerBurst(one, 4, 0);
		expect(one.allowed()).toBe(4);
		const two = new AdaptiveLimit(4, () => 0, 4);
		answerBurst(two, 4, 2);
		expect(two.allowed()).toBe(2);
	});

	test('after a cut, ok answers grow the limit by about one per round trip, never straight back to its bound', () => {
		const { limit, roundTrip } = harness(DEFAULT_MAX_IN_FLIGHT);
		for (let i = 0; i < 20; i++) roundTrip(20, 'busy');
		expect(limit.allowed()).toBe(1);
		expect(roundTrip(20)).toBe(1);
		expect(limit.allowed()).toBe(2);
		expect(roundTrip(20)).toBe(2);
		expect(limit.allowed()).toBe(2);
		for (let i = 0; i < 10; i++) roundTrip(20);
		expect(limit.allowed()).toBeLessThanOrEqual(12);
	});

	test('after a cut, growth past its level is a probe: one busy answer to a request sent above it takes the limit back one, never below the cut, and holds growth for a window', () => {
		const limit = new AdaptiveLimit(10, () => 0, 10);
		// At a bound of 10 the window is ten answers: 3 busy of 10 (past a fifth) cut to the 7 answered ok.
		answerBurst(limit, 10, 3);
		expect(limit.allowed()).toBe(7);
		// Grow past 7 by ok rounds (+1 per round trip): to 8.
		for (let i = 0; i < 2; i++) answerBurst(limit, limit.allowed(), 0);
		expect(limit.allowed()).toBe(8);
		// A lone busy answer to a request sent at 8 (above the cut's 7): back to 7, not below.
		const probe = limit.sent();
		limit.answered(probe, 'busy');
		expect(limit.allowed()).toBe(7);
		// Growth holds for a window of requests sent after it (MIN_WINDOW): answers to them do not grow it...
		answerBurst(limit, MIN_WINDOW - 1, 0);
		expect(limit.allowed()).toBe(7);
		// ...and grows again after.
		for (let i = 0; i < 3; i++) answerBurst(limit, limit.allowed(), 0);
		expect(limit.allowed()).toBeGreaterThan(7);
		// A busy answer to a request sent at the cut's level or below is no probe: a lone one cuts nothing.
		const level = new AdaptiveLimit(10, () => 0, 10);
		answerBurst(level, 10, 3);
		level.answered(level.sent(), 'busy');
		expect(level.allowed()).toBe(7);
	});

	test('a request is withdrawn once the limit allows fewer than when it was sent: after the cut, not before it; a probe taken back; never one sent after', () => {
		const limit = new AdaptiveLimit(1000, () => 0, 40);
		const tickets = Array.from({ length: 40 }, () => limit.sent());
		// A thin window decides nothing: refusals answered before the cut are not withdrawn (they wait their delay).
		for (const ticket of tickets.slice(0, MIN_WINDOW - 1)) limit.answered(ticket, 'busy');
		expect(tickets.slice(0, MIN_WINDOW).map((ticket) => limit.withdrawn(ticket))).toEqual(Array.from({ length: MIN_WINDOW }, () => false));
		// The answer that cuts, and every request of the burst, are.
		limit.answered(tickets[MIN_WINDOW - 1], 'busy');
		expect(limit.allowed()).toBe(1);
		expect(tickets.every((ticket) => limit.withdrawn(ticket))).toBe(true);
		// A request sent under the new limit is not.
		expect(limit.withdrawn(limit.sent())).toBe(false);
		// A probe past a cut's level, taken back by its busy answer, is; one sent at the level is not.
		const probing = new AdaptiveLimit(10, () => 0, 10);
		answerBurst(probing, 10, 3);
		for (let i = 0; i < 2; i++) answerBurst(probing, probing.allowed(), 0);
		expect(probing.allowed()).toBe(8);
		const probe = probing.sent();
		probing.answered(probe, 'busy');
		expect(probing.withdrawn(probe)).toBe(true);
		const atLevel = probing.sent();
		probing.answered(atLevel, 'busy');
		expect([probing.allowed(), probing.withdrawn(atLevel)]).toEqual([7, false]);
	});

	test('a lone busy answer withdraws nothing: it cuts nothing, and its request waits its retry delay', () => {
		const limit = new AdaptiveLimit(50, () => 0, 50);
		answerBurst(limit, 50, 0);
		const lone = limit.sent();
		limit.answered(lone, 'busy');
		expect(limit.withdrawn(lone)).toBe(false);
	});

	test('before any cut there is no probe: a lone busy answer at the bound cuts nothing', () => {
		const limit = new AdaptiveLimit(50, () => 0, 50);
		answerBurst(limit, 50, 0);
		limit.answered(limit.sent(), 'busy');
		expect(limit.allowed()).toBe(50);
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

	test('the refusals of one burst pause once: Retry-Afters of requests sent before the pause began extend nothing', () => {
		const { limit, advance } = harness(100);
		const burst = Array.from({ length: 50 }, () => limit.sent());
		limit.answered(burst[0], 'busy', 1000);
		for (const ticket of burst.slice(1)) {
			advance(10);
			limit.answered(ticket, 'busy', 1000);
		}
		// 490 ms later, the pause still ends 1000 ms after the first refusal, not after the last.
		expect(limit.pauseLeft()).toBe(510);
		advance(510);
		expect(limit.pauseLeft()).toBe(0);
		// A request sent after the pause began, refused with a Retry-After, pauses again.
		limit.answered(limit.sent(), 'busy', 1000);
		expect(limit.pauseLeft()).toBe(1000);
	});

	test('after a pause the limit is what the service accepted of the burst, and never grows past it again', () => {
		const { limit, advance, roundTrip } = harness(100);
		for (let i = 0; i < 5; i++) roundTrip(20);
		expect(limit.allowed()).toBe(100);
		// A burst of 100: 8 accepted (ok), 92 refused with a Retry-After of 1 s; their answers come in any order.
		const burst = Array.from({ length: 100 }, () => limit.sent());
		limit.answered(burst[50], 'busy', 1000);
		burst.forEach((ticket, n) => n !== 50 && limit.answered(ticket, n % 12 === 0 ? 'ok' : 'busy', 1000));
		expect(limit.pauseLeft()).toBe(1000);
		advance(1000);
		expect(limit.allowed()).toBe(9);
		for (let i = 0; i < 50; i++) roundTrip(20);
		expect(limit.allowed()).toBe(9);
	});

	test('a pause whose burst the service took none of resumes at one and may grow again (no ceiling of zero)', () => {
		const { limit, advance, roundTrip } = harness(100);
		answerBurst(limit, INITIAL_IN_FLIGHT, INITIAL_IN_FLIGHT, 500);
		advance(500);
		expect(limit.allowed()).toBe(1);
		for (let i = 0; i < 5; i++) roundTrip(20);
		expect(limit.allowed()).toBe(5);
	});

	test('a start past the bound starts at the bound', () => {
		const limit = new AdaptiveLimit(4, () => 0, INITIAL_IN_FLIGHT);
		expect(limit.allowed()).toBe(4);
	});

	test('neutral answers (no answer, a server error) change nothing', () => {
		const { limit } = harness(10);
		for (let i = 0; i < 20; i++) limit.answered(limit.sent(), 'neutral');
		expect(limit.allowed()).toBe(INITIAL_IN_FLIGHT);
	});
});

/**
 * Slots on a clock and a sleep the test drives: `wake()` ends the pending sleep. As n8n's own (n8n-workflow's sleep,
 * from @n8n/utils' sleep.ts), the sleep rejects at once when its signal aborts.
 */
function slotsHarness(max: number, cancel?: AbortSignal) {
	let now = 0;
	let wake: (() => void) | undefined;
	const sleeps: number[] = [];
	const slots = new InFlightLimit(new AdaptiveLimit(max, () => now), cancel, async (ms, signal) => {
		sleeps.push(ms);
		await new Promise<void>((resolve, reject) => {
			if (signal?.aborted) return reject(new Error('aborted'));
			wake = resolve;
			signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
		});
	});
	const granted: Array<PaceTicket | PaceRefusal | undefined> = [];
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
		const { slots, granted, ask, settle } = slotsHarness(50);
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
			expect(slots.running()).toBeLessThanOrEqual(50);
		}
		expect(slots.running()).toBe(50);
	});

	test('a busy refusal backs off until the cut that withdraws it, not before; its delay is woken, not waited out', async () => {
		// Six in flight (the first burst), every one refused: the window decides at the sixth answer.
		const { slots, granted, ask, settle, sleeps } = slotsHarness(INITIAL_IN_FLIGHT);
		ask(INITIAL_IN_FLIGHT);
		await settle();
		const tickets = granted as PaceTicket[];
		const backedOff: number[] = [];
		for (const [n, ticket] of tickets.slice(0, -1).entries()) {
			slots.answered(ticket, 'busy');
			void slots.backOff(ticket, 600_000).then(() => backedOff.push(n));
		}
		await settle();
		// Each waits in its own delay, none woken: no cut yet.
		expect(sleeps).toEqual(Array.from({ length: INITIAL_IN_FLIGHT - 1 }, () => 600_000));
		expect(backedOff).toEqual([]);
		// The sixth busy answer cuts the limit to one: every delay ends at once, no sleep waited out (the fake never wakes).
		slots.answered(tickets[INITIAL_IN_FLIGHT - 1], 'busy');
		await settle();
		expect(backedOff).toEqual([0, 1, 2, 3, 4]);
		expect(slots.withdrawn(tickets[INITIAL_IN_FLIGHT - 1])).toBe(true);
		// A request withdrawn already does not sleep at all.
		await slots.backOff(tickets[INITIAL_IN_FLIGHT - 1], 600_000);
		expect(sleeps).toHaveLength(INITIAL_IN_FLIGHT - 1);
	});

	test('a lone busy refusal backs off its whole delay: ok answers and a lone busy one after it wake nothing', async () => {
		const { slots, granted, ask, settle, sleeps, wake } = slotsHarness(50);
		ask(INITIAL_IN_FLIGHT);
		await settle();
		const [lone, ...rest] = granted as PaceTicket[];
		slots.answered(lone, 'busy');
		let done = false;
		void slots.backOff(lone, 250).then(() => (done = true));
		for (const ticket of rest) slots.answered(ticket, 'ok');
		await settle();
		expect([sleeps, done]).toEqual([[250], false]);
		wake();
		await settle();
		expect(done).toBe(true);
	});

	test('a back-off that ended leaves nothing behind: its listener on the execution\'s cancel signal is removed', async () => {
		const cancel = new AbortController();
		const { slots, granted, ask, settle, sleeps } = slotsHarness(INITIAL_IN_FLIGHT, cancel.signal);
		ask(INITIAL_IN_FLIGHT);
		await settle();
		const tickets = granted as PaceTicket[];
		const listening = getEventListeners(cancel.signal, 'abort').length;
		slots.answered(tickets[0], 'busy');
		const backOff = slots.backOff(tickets[0], 600_000, cancel.signal);
		await settle();
		expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(listening + 1);
		// The rest of the burst refused: the cut wakes it, and it lets go of the signal.
		for (const ticket of tickets.slice(1)) slots.answered(ticket, 'busy');
		await backOff;
		expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(listening);
		expect(sleeps).toEqual([600_000]);
	});

	test('a cancelled execution ends a back-off at once', async () => {
		const cancel = new AbortController();
		const { slots, granted, ask, settle } = slotsHarness(50, cancel.signal);
		ask(1);
		await settle();
		const ticket = granted[0] as PaceTicket;
		slots.answered(ticket, 'busy');
		let done = false;
		void slots.backOff(ticket, 600_000, cancel.signal).then(() => (done = true));
		await settle();
		expect(done).toBe(false);
		cancel.abort();
		await settle();
		expect(done).toBe(true);
	});

	test('a rate of busy answers cuts the slots: no waiter goes until fewer than the new limit are in flight', async () => {
		const { slots, granted, ask, settle } = slotsHarness(4);
		ask(20);
		await settle();
		expect(granted).toHaveLength(4);
		// ok, ok, busy, busy: each answer lets a waiter go until the fourth, which makes the window half busy: cut to 2.
		for (const [n, signal] of (['ok', 'ok', 'busy', 'busy'] as const).entries()) slots.answered(granted[n] as PaceTicket, signal);
		await settle();
		expect(slots.limit.allowed()).toBe(2);
		expect(granted).toHaveLength(7);
		// 3 in flight, 2 allowed: the next answer (to a request sent before the cut) lets none go, the one after lets one.
		slots.answered(granted[4] as PaceTicket, 'ok');
		await settle();
		expect(granted).toHaveLength(7);
		slots.answered(granted[5] as PaceTicket, 'ok');
		await settle();
		expect(granted).toHaveLength(8);
		expect(slots.running()).toBe(2);
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
		const extra = slots.takeNow();
		expect(extra).toBeDefined();
		expect(slots.running()).toBe(INITIAL_IN_FLIGHT + 1);
		// A Retry-After, every request then answered: with room again, still no slot at once while it lasts; one as soon as it has passed.
		slots.answered(now[1], 'busy', 1000);
		for (const ticket of [...now.slice(2), granted[0] as PaceTicket, extra as PaceTicket]) slots.answered(ticket, 'neutral');
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
		// The service accepted none of that burst: the limit resumes at 1, and 5 are in flight, so none goes until all are answered.
		expect(slots.limit.allowed()).toBe(1);
		for (const ticket of granted.slice(1, 5)) slots.answered(ticket as PaceTicket, 'neutral');
		await settle();
		expect(granted).toHaveLength(INITIAL_IN_FLIGHT);
		slots.answered(granted[5] as PaceTicket, 'neutral');
		await settle();
		expect(granted).toHaveLength(INITIAL_IN_FLIGHT + 1);
	});

	test('once a Retry-After has passed, the requests that waited through it go first: one asking then gets no slot ahead of them', async () => {
		const { slots, granted, ask, settle, advance, wake } = slotsHarness(10);
		ask(INITIAL_IN_FLIGHT + 2);
		await settle();
		// Paused for a second; every other request of the burst then answered ok (5 accepted): none in flight, two waiting.
		slots.answered(granted[0] as PaceTicket, 'busy', 1000);
		for (const ticket of granted.slice(1)) slots.answered(ticket as PaceTicket, 'ok');
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
		expect(await late).toHaveProperty('seq', INITIAL_IN_FLIGHT + 2);
	});

	test(`a pause longer than a waiting call can use (keeping MIN_LEFT_AFTER_PAUSE_MS, ${MIN_LEFT_AFTER_PAUSE_MS} ms, after it) refuses it at once, saying how long and why; one with a millisecond more waits it out`, async () => {
		const { slots, settle, sleeps, advance, wake } = slotsHarness(10);
		const now = Array.from({ length: INITIAL_IN_FLIGHT }, () => slots.takeNow() as PaceTicket);
		// Two waiters: one millisecond short of the pause plus the margin, and exactly that; then a 503 asks for 2 s.
		const results = [2000 + MIN_LEFT_AFTER_PAUSE_MS - 1, 2000 + MIN_LEFT_AFTER_PAUSE_MS].map((budget) => slots.slot(budget));
		await settle();
		slots.answered(now[0], 'busy', 2000, 503);
		await settle();
		expect(sleeps).toEqual([2000]);
		expect(await results[0]).toStrictEqual({ refusedFor: 2000, statusCode: 503 });
		expect(slots.waiting()).toBe(1);
		// A request asking half way through is met by the rest of the pause: one ms short of it plus the margin is refused, exactly that waits.
		advance(1000);
		expect(await slots.slot(1000 + MIN_LEFT_AFTER_PAUSE_MS - 1)).toStrictEqual({ refusedFor: 1000, statusCode: 503 });
		void slots.slot(1000 + MIN_LEFT_AFTER_PAUSE_MS);
		await settle();
		expect(slots.waiting()).toBe(2);
		for (const ticket of now.slice(1)) slots.answered(ticket, 'ok');
		advance(1000);
		wake();
		await settle();
		expect(slots.waiting()).toBe(0);
		expect(slots.running()).toBe(2);
	});

	test('a batch whose every answer asks for a pause longer than its calls can use ends within one pause: every waiter refused at its start', async () => {
		const { slots, granted, ask, settle, sleeps } = slotsHarness(100);
		const waiting = Array.from({ length: 200 }, () => slots.slot(MAX_PAUSE_MS));
		ask(0);
		await settle();
		const sent = slots.running();
		expect(sent).toBe(INITIAL_IN_FLIGHT);
		slots.answered({ seq: 0 }, 'busy', MAX_PAUSE_MS, 429);
		await settle();
		const outcomes = await Promise.all(waiting.slice(sent));
		expect(outcomes.every((outcome) => outcome !== undefined && 'refusedFor' in outcome && outcome.refusedFor === MAX_PAUSE_MS)).toBe(true);
		expect(slots.waiting()).toBe(0);
		expect(sleeps).toHaveLength(1);
		expect(granted).toHaveLength(0);
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

/** One step of a generated run of the slots: a request asks, an answer comes, or time passes. */
type Step =
	| { kind: 'ask'; budget: number }
	| { kind: 'answer'; pick: number; signal: AnswerSignal; retryAfterMs?: number; statusCode?: number }
	| { kind: 'advance'; ms: number };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
	fc.record({ kind: fc.constant('ask' as const), budget: fc.oneof(fc.constant(Infinity), fc.integer({ min: 1, max: 3000 })) }),
	fc.record(
		{
			kind: fc.constant('answer' as const),
			pick: fc.nat(),
			signal: fc.constantFrom<AnswerSignal>('ok', 'ok', 'ok', 'busy', 'neutral'),
			retryAfterMs: fc.option(fc.integer({ min: 0, max: MAX_PAUSE_MS + 1000 }), { nil: undefined }),
			// A busy answer with a status (a refusal) or without (a timeout, a dropped connection).
			statusCode: fc.option(fc.constantFrom(429, 503), { nil: undefined }),
		},
		{ requiredKeys: ['kind', 'pick', 'signal'] },
	),
	fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 2500 }) }),
);

/** A retry delay no generated run waits out: a back-off ends only when a cut withdraws its request. */
const BACK_OFF_MS = 600_000;

describe('InFlightLimit, generated runs (the rules in docs/guarantees.md, "The in-flight limiter")', () => {
	test('never over its bound nor its limit when a request is sent, none sent during a pause, every answer heard, a pause per burst, a waiter refused only by a pause longer than its call, a refusal backing off until exactly the cut that withdraws it', async () => {
		await fc.assert(
			fc.asyncProperty(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 60 }), fc.array(stepArbitrary, { maxLength: 150 }), async (bound, start, steps) => {
				let now = 0;
				const violations: string[] = [];
				const holder: { slots?: InFlightLimit } = {};
				const limit = new AdaptiveLimit(bound, () => now, start);
				const sent = limit.sent.bind(limit);
				// Checked at the moment each request is sent: within the bound and the limit, and outside any pause.
				let sends = 0;
				limit.sent = () => {
					sends++;
					const running = holder.slots?.running() ?? 0;
					if (running > limit.allowed() || limit.allowed() > bound) violations.push(`sent with ${running} in flight, ${limit.allowed()} allowed`);
					if (limit.pauseLeft() > 0) violations.push(`sent during a pause (${limit.pauseLeft()} ms left)`);
					return sent();
				};
				let wake: (() => void) | undefined;
				// A pause's sleep ends when the test advances its clock; a back-off's (BACK_OFF_MS) only when its signal aborts.
				const fakeSleep = async (ms: number, signal?: AbortSignal) =>
					await new Promise<void>((resolve, reject) => {
						if (ms !== BACK_OFF_MS) return void (wake = resolve);
						signal?.addEventListener('abort', () => reject(new Error('woken')), { once: true });
					});
				const slots = (holder.slots = new InFlightLimit(limit, undefined, fakeSleep));
				const inFlight: PaceTicket[] = [];
				// Busy refusals without Retry-After backing off: each must end exactly when a cut withdraws its request.
				const backingOff = new Map<PaceTicket, { ended: boolean }>();
				const settle = async () => {
					for (let i = 0; i < 6; i++) await Promise.resolve();
				};
				for (const step of steps) {
					if (step.kind === 'ask') {
						const pause = limit.pauseLeft();
						void slots.slot(step.budget).then((slot) => {
							if (slot && 'seq' in slot) inFlight.push(slot);
							// A refusal only for a pause at least as long as the call's time left.
							if (slot && 'refusedFor' in slot && !(slot.refusedFor >= 1 && step.budget - Math.max(pause, slot.refusedFor) < MIN_LEFT_AFTER_PAUSE_MS)) violations.push(`refused with ${step.budget} ms left`);
						});
					} else if (step.kind === 'answer' && inFlight.length > 0) {
						const [ticket] = inFlight.splice(step.pick % inFlight.length, 1);
						const [running, sendsBefore] = [slots.running(), sends];
						const pausedBefore = limit.pauseLeft();
						slots.answered(ticket, step.signal, step.retryAfterMs, step.statusCode);
						// Its slot is freed (and taken at once only by a waiter sent now).
						if (slots.running() !== running - 1 + (sends - sendsBefore)) violations.push('an answer did not free its slot');
						const asksPause = step.signal === 'busy' && step.retryAfterMs !== undefined && step.retryAfterMs > 0 && step.retryAfterMs <= MAX_PAUSE_MS;
						// A pause never grows once begun: the refusals of its burst pause nothing again.
						if (pausedBefore > 0 && limit.pauseLeft() > pausedBefore) violations.push('a pause was extended by its own burst');
						if (asksPause && pausedBefore === 0 && ticket.seq >= lastPauseSeq(limit) && limit.pauseLeft() === 0) violations.push('a Retry-After was not heard');
						if (step.signal === 'busy' && step.retryAfterMs === undefined) {
							const backOff = { ended: false };
							backingOff.set(ticket, backOff);
							void slots.backOff(ticket, BACK_OFF_MS).then(() => (backOff.ended = true));
						}
					} else if (step.kind === 'advance') {
						now += step.ms;
						wake?.();
					}
					await settle();
					if (limit.allowed() < 1 || limit.allowed() > bound) violations.push(`limit ${limit.allowed()} outside 1–${bound}`);
					for (const [ticket, { ended }] of backingOff) {
						if (ended !== limit.withdrawn(ticket)) violations.push(`a back-off ${ended ? 'ended before' : 'still waits after'} a cut withdrew its request (sent at ${ticket.atLimit}, ${limit.allowed()} allowed)`);
					}
				}
				expect(violations).toEqual([]);
			}),
			{ seed: 46, numRuns: 300 },
		);
	});

	test('a busy refusal without Retry-After backs off until exactly the cut that withdraws it, and is sent again within the limit', async () => {
		let woken = 0;
		const refusalStep = fc.oneof(
			fc.constant({ kind: 'ask' as const }),
			fc.record({ kind: fc.constant('answer' as const), pick: fc.nat(), signal: fc.constantFrom<AnswerSignal>('ok', 'busy', 'busy', 'neutral') }),
		);
		await fc.assert(
			fc.asyncProperty(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 60 }), fc.array(refusalStep, { minLength: 40, maxLength: 200, size: 'max' }), async (bound, start, steps) => {
				const violations: string[] = [];
				const limit = new AdaptiveLimit(bound, () => 0, start);
				const slots = new InFlightLimit(limit, undefined, async (_ms, signal) => await new Promise<void>((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('woken')), { once: true })));
				const inFlight: PaceTicket[] = [];
				const backingOff = new Map<PaceTicket, { ended: boolean; withdrawn: boolean }>();
				const take = (slot: PaceTicket | PaceRefusal | undefined) => {
					if (slots.running() > limit.allowed()) violations.push(`${slots.running()} in flight, ${limit.allowed()} allowed`);
					if (slot && 'seq' in slot) inFlight.push(slot);
				};
				for (const step of steps) {
					if (step.kind === 'ask') void slots.slot().then(take);
					else if (inFlight.length > 0) {
						const [ticket] = inFlight.splice(step.pick % inFlight.length, 1);
						slots.answered(ticket, step.signal);
						if (step.signal === 'busy') {
							const backOff = { ended: false, withdrawn: false };
							backingOff.set(ticket, backOff);
							// As the transport does: once the back-off ends, the request asks for a slot again.
							void slots.backOff(ticket, BACK_OFF_MS).then(async () => {
								backOff.ended = true;
								take(await slots.slot());
							});
						}
					}
					for (let i = 0; i < 6; i++) await Promise.resolve();
					// Ended at the first answer after which its request is withdrawn (the limit may grow back later), not before.
					for (const [ticket, backOff] of backingOff) {
						backOff.withdrawn ||= limit.withdrawn(ticket);
						if (backOff.ended !== backOff.withdrawn) violations.push(`a back-off ${backOff.ended ? 'ended before' : 'still waits after'} a cut withdrew its request (sent at ${ticket.atLimit}, ${limit.allowed()} allowed)`);
					}
				}
				expect(violations).toEqual([]);
				woken += [...backingOff.values()].filter(({ ended }) => ended).length;
			}),
			{ seed: 46, numRuns: 300 },
		);
		// The runs meet the rule: many back-offs ended by a cut.
		expect(woken).toBeGreaterThan(300);
	});
});

/** The first request whose Retry-After may pause again (requests sent before it were the last pause's burst). */
function lastPauseSeq(limit: AdaptiveLimit): number {
	return (limit as unknown as { pauseSeq: number }).pauseSeq;
}

describe("version 2's item loop (router.ts overlapped)", () => {
	/** Items that each send one request, then wait for their job until the test ends them. */
	function waitingItems(slots: InFlightLimit) {
		const started: number[] = [];
		const jobEnds: Array<() => void> = [];
		const run = async (itemIndex: number) => {
			started.push(itemIndex);
			const ticket = await slots.slot();
			if (ticket && 'seq' in ticket) slots.answered(ticket, 'ok');
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
			if (ticket && 'seq' in ticket) tickets.push(ticket);
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
	test('nor more than the answer budget lets fly: with room for the estimates of 3 answers, 3 requests in flight, 3 waiting, 6 items started, though the limit allows 50', async () => {
		const budget = new AnswerBudget(300, 10);
		const slots = new InFlightLimit(new AdaptiveLimit(DEFAULT_MAX_IN_FLIGHT, Date.now, 50), undefined, undefined, budget);
		// An answer of 100 seen: the estimate is 100, three fit.
		const teacher = slots.takeNow() as PaceTicket;
		teacher.answer?.resize(100);
		slots.answered(teacher, 'neutral');
		expect(slots.room()).toBe(3);
		const { started, tickets, run } = ticketHoldingItems(slots);
		const done = overlapped(slots)(20, () => false, run);
		await turns(20);
		expect(slots.running()).toBe(3);
		expect(slots.waiting()).toBe(3);
		expect(started).toHaveLength(6);
		while (tickets.length > 0) {
			slots.answered(tickets.shift() as PaceTicket, 'ok');
			await turns(3);
		}
		await done;
		expect(started).toHaveLength(20);
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
		const pace: RequestPace = { takeNow: () => ({ seq: 0 }), slot: async () => ({ seq: 0 }), answered: (_ticket, answer) => void heard.push(answer) , withdrawn: () => false, backOff: async () => undefined };
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
			withdrawn: () => false,
			backOff: async () => undefined,
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

describe('AnswerBudget (the answer bytes an execution reads at once, answerBudget.ts)', () => {
	const settle = async () => {
		for (let i = 0; i < 5; i++) await Promise.resolve();
	};

	/** Grows `hold` to `bytes`, noting in `grown` when it may read. */
	const grow = (hold: AnswerHold, bytes: number, grown: number[], name: number) => void Promise.resolve(hold.resize(bytes)).then(() => grown.push(name));

	test('a new request takes the estimate: the first estimate until an answer is known, then the largest answer reserved; new requests fit exactly up to the budget, one more does not', () => {
		const budget = new AnswerBudget(100, 10);
		expect(budget.estimate()).toBe(10);
		expect(budget.room()).toBe(10);
		const holds = Array.from({ length: 10 }, () => budget.take());
		expect(budget.reserved()).toBe(100);
		expect(budget.fits()).toBe(false);
		holds[0].release();
		holds[0].release();
		expect(budget.reserved()).toBe(90);
		expect(budget.fits()).toBe(true);
		// An answer of 20 teaches the estimate: five fit in the budget; a smaller answer later does not lower it.
		holds[1].resize(20);
		holds[2].resize(5);
		expect(budget.estimate()).toBe(20);
		expect(budget.room()).toBe(5);
		expect(budget.reserved()).toBe(20 + 5 + 70);
		expect(budget.fits()).toBe(false);
		holds[3].release();
		expect(budget.reserved()).toBe(85);
		expect(budget.fits()).toBe(false);
		holds[4].release();
		expect(budget.fits()).toBe(true);
		// Never more than the budget: an answer past it is reserved as the whole budget, and the estimate is the budget.
		expect(new AnswerBudget(100, 500).estimate()).toBe(100);
		expect(MAX_ANSWER_BYTES_HELD / FIRST_ANSWER_ESTIMATE).toBeGreaterThanOrEqual(DEFAULT_MAX_IN_FLIGHT);
	});

	test('an answer larger than its estimate waits only until the difference fits, before any new request; a smaller one gives the rest back at once', async () => {
		const budget = new AnswerBudget(100, 10);
		const [a, b, c] = [budget.take(), budget.take(), budget.take()];
		a.resize(70);
		expect(budget.reserved()).toBe(90);
		// b needs 30 more than its 10: exactly what fits beside a (70) and c (10) is 20 more, so it waits, holding nothing.
		const grown: number[] = [];
		grow(b, 30, grown, 1);
		await settle();
		expect(grown).toEqual([]);
		expect(budget.reserved()).toBe(80);
		// While it waits no new request takes an estimate (the estimate is at least what it waits for).
		expect(budget.fits()).toBe(false);
		// c gives back 9 of its 10: b's difference still does not fit (81 + 30 > 100); a second byte freed lets it go.
		c.resize(1);
		await settle();
		expect(grown).toEqual([]);
		c.release();
		await settle();
		expect(grown).toEqual([1]);
		expect(budget.reserved()).toBe(100);
		expect(budget.peak()).toBe(100);
		a.release();
		b.release();
		expect(budget.reserved()).toBe(0);
	});

	test('answers waiting to grow go in the order they came and never hold the budget from one another: every request sent under a small estimate is read in turn', async () => {
		const budget = new AnswerBudget(100, 10);
		const holds = Array.from({ length: 10 }, () => budget.take());
		const grown: number[] = [];
		// All ten learn they are 60 at once: had each kept its 10 while it waited, none could ever grow.
		holds.forEach((hold, n) => grow(hold, 60, grown, n));
		await settle();
		expect(grown).toEqual([0]);
		expect(budget.reserved()).toBe(60);
		for (let n = 0; n < 9; n++) {
			holds[n].release();
			await settle();
			expect(grown).toEqual(Array.from({ length: n + 2 }, (_, k) => k));
		}
		holds[9].release();
		expect(budget.reserved()).toBe(0);
	});

	test('a large answer waiting to grow is not passed over by a smaller one behind it that would fit', async () => {
		const budget = new AnswerBudget(100, 10);
		const [first, big, small] = [budget.take(), budget.take(), budget.take()];
		first.resize(80);
		const order: number[] = [];
		grow(big, 80, order, 80);
		grow(small, 20, order, 20);
		await settle();
		expect(budget.reserved()).toBe(80);
		expect(order).toEqual([]);
		first.release();
		await settle();
		expect(order).toEqual([80, 20]);
	});

	test('an attempt that ends while its answer waits to grow (its deadline, a cancel) gives everything back, and the wait ends at once', async () => {
		const budget = new AnswerBudget(100, 10);
		const [a, b] = [budget.take(), budget.take()];
		a.resize(90);
		const grown: number[] = [];
		grow(b, 50, grown, 1);
		await settle();
		expect(grown).toEqual([]);
		b.release();
		await settle();
		expect(grown).toEqual([1]);
		expect(budget.reserved()).toBe(90);
		// A released hold grows no more: its late headers reserve nothing.
		b.resize(50);
		expect(budget.reserved()).toBe(90);
		a.release();
		expect(budget.reserved()).toBe(0);
	});

	test('the slots take the estimate: a request whose estimate does not fit waits for its slot, unsent, and goes when an answer gives its bytes back; room() caps the waiting items', async () => {
		const budget = new AnswerBudget(100, 10);
		const slots = new InFlightLimit(new AdaptiveLimit(DEFAULT_MAX_IN_FLIGHT, Date.now, 50), undefined, undefined, budget);
		expect(slots.room()).toBe(10);
		const first = slots.takeNow() as PaceTicket;
		first.answer?.resize(40);
		expect(slots.room()).toBe(2);
		const second = slots.takeNow() as PaceTicket;
		expect(budget.reserved()).toBe(80);
		// A third estimate (40) would pass the budget: no slot now, and a request asking waits.
		expect(slots.takeNow()).toBeUndefined();
		let third: PaceTicket | undefined;
		void slots.slot().then((ticket) => (third = ticket as PaceTicket));
		await settle();
		expect(third).toBeUndefined();
		slots.answered(first, 'ok');
		await settle();
		expect(third?.answer?.bytes).toBe(40);
		expect(budget.reserved()).toBe(80);
		slots.answered(second, 'ok');
		slots.answered(third as PaceTicket, 'ok');
		expect(budget.reserved()).toBe(0);
		expect(slots.running()).toBe(0);
	});

	test('generated (seeded): requests taken while they fit, answers growing and shrinking, attempts ending in any order: never more than the budget held, every wait to grow ends, in the order they began', async () => {
		type Op = { kind: 'take' } | { kind: 'resize'; pick: number; bytes: number } | { kind: 'release'; pick: number };
		const op: fc.Arbitrary<Op> = fc.oneof(
			fc.constant({ kind: 'take' as const }),
			fc.record({ kind: fc.constant('resize' as const), pick: fc.nat(), bytes: fc.integer({ min: 0, max: 130 }) }),
			fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
		);
		await fc.assert(
			fc.asyncProperty(fc.integer({ min: 1, max: 40 }), fc.array(op, { maxLength: 120 }), async (first, ops) => {
				const budget = new AnswerBudget(100, first);
				const live: AnswerHold[] = [];
				const began: number[] = [];
				const grown: number[] = [];
				const waiting = new Map<AnswerHold, number>();
				const cancelled = new Set<number>();
				let waits = 0;
				const firstWaiting = () => [...waiting.keys()].find((hold) => hold.go !== undefined);
				const check = () => {
					expect(budget.reserved()).toBeLessThanOrEqual(100);
					expect(budget.reserved()).toBe(live.reduce((sum, hold) => sum + hold.bytes, 0));
					// No answer waits that could go: the first waiting one does not fit beside what is held.
					const head = firstWaiting();
					if (head) expect(budget.reserved() + head.wants).toBeGreaterThan(100);
				};
				for (const step of ops) {
					if (step.kind === 'take' && budget.fits()) live.push(budget.take());
					const hold = live[step.kind === 'take' ? -1 : step.pick % Math.max(1, live.length)];
					if (step.kind === 'resize' && hold && hold.go === undefined) {
						const name = waits++;
						const [before, queued] = [hold.bytes, firstWaiting() !== undefined];
						const wait = hold.resize(step.bytes);
						// An answer growing while others wait would pass them over.
						if (!wait && queued) expect(hold.bytes).toBeLessThanOrEqual(before);
						if (wait) {
							began.push(name);
							waiting.delete(hold);
							waiting.set(hold, name);
							void wait.then(() => grown.push(name));
						}
					}
					if (step.kind === 'release' && hold) {
						if (hold.go !== undefined) cancelled.add(waiting.get(hold) as number);
						hold.release();
						live.splice(live.indexOf(hold), 1);
					}
					await settle();
					check();
				}
				// Only attempts that are not waiting end: whatever was held, every wait to grow ends (no deadlock).
				while (live.length > 0) {
					const done = live.find((hold) => hold.go === undefined);
					if (!done) throw new Error(`${live.length} answers wait to grow and none can: a deadlock`);
					done.release();
					live.splice(live.indexOf(done), 1);
					await settle();
					check();
				}
				const kept = (names: number[]) => names.filter((name) => !cancelled.has(name));
				expect(kept(grown)).toEqual(kept(began));
			}),
			{ seed: 46, numRuns: 300 },
		);
	});

	test(`what an answer reserves: its Content-Length when sent as is, else the cap; never more than the cap (${MAX_JOB_ANSWER_BYTES} bytes)`, () => {
		expect(answerReservation('1234', '', MAX_JOB_ANSWER_BYTES)).toBe(1234);
		expect(answerReservation('1234', 'identity', MAX_JOB_ANSWER_BYTES)).toBe(1234);
		expect(answerReservation('1234', 'gzip', MAX_JOB_ANSWER_BYTES)).toBe(MAX_JOB_ANSWER_BYTES);
		expect(answerReservation('', '', MAX_JOB_ANSWER_BYTES)).toBe(MAX_JOB_ANSWER_BYTES);
		expect(answerReservation('12x', '', MAX_JOB_ANSWER_BYTES)).toBe(MAX_JOB_ANSWER_BYTES);
		expect(answerReservation(String(MAX_JOB_ANSWER_BYTES + 1), '', MAX_JOB_ANSWER_BYTES)).toBe(MAX_JOB_ANSWER_BYTES);
		// The execution's budget holds this many answers at the cap at once, and any number of small ones.
		expect(MAX_ANSWER_BYTES_HELD / MAX_JOB_ANSWER_BYTES).toBe(32);
	});
});
