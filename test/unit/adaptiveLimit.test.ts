/**
 * Version 2's adaptive limit of requests in flight (nodes/shared/adaptiveLimit.ts) on a hand-driven clock: it grows
 * while answers come fast and ok, never past its bound, halves once per burst of 429/503/timeouts, stops growing
 * while answers are slow, and holds new requests for a Retry-After.
 */
import { AdaptiveLimit, DEFAULT_MAX_IN_FLIGHT, INITIAL_IN_FLIGHT, MAX_PAUSE_MS } from '../../nodes/shared/adaptiveLimit';

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
	test('starts at INITIAL_IN_FLIGHT, doubles per fast round trip, and stops exactly at its bound', () => {
		const { limit, roundTrip } = harness(DEFAULT_MAX_IN_FLIGHT);
		expect(limit.allowed()).toBe(INITIAL_IN_FLIGHT);
		const sizes = Array.from({ length: 6 }, () => roundTrip(20));
		expect(sizes.slice(0, 4)).toEqual([4, 8, 16, 32]);
		expect(limit.allowed()).toBe(DEFAULT_MAX_IN_FLIGHT);
		for (let i = 0; i < 1000; i++) roundTrip(20);
		expect(limit.allowed()).toBe(DEFAULT_MAX_IN_FLIGHT);
	});

	test('a bound of 1 is one at a time whatever the answers', () => {
		const { limit, roundTrip } = harness(1);
		for (let i = 0; i < 50; i++) expect(roundTrip(5)).toBe(1);
		expect(limit.allowed()).toBe(1);
	});

	test('a burst of 429s halves the limit once, and answers to requests sent before the cut do not grow it back', () => {
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

	test('answers slower than twice the fastest plus 10 ms stop its growth (and end slow start) without cutting it', () => {
		const { limit, roundTrip } = harness(DEFAULT_MAX_IN_FLIGHT);
		roundTrip(20);
		expect(limit.allowed()).toBe(8);
		// 50 ms = 2 × 20 + 10: still fast, slow start doubles.
		roundTrip(50);
		expect(limit.allowed()).toBe(16);
		for (let i = 0; i < 10; i++) roundTrip(51);
		expect(limit.allowed()).toBe(16);
		// Fast again: one more per round trip, not double.
		roundTrip(20);
		roundTrip(20);
		expect(limit.allowed()).toBe(17);
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

	test('neutral answers (no answer, a server error) change nothing', () => {
		const { limit } = harness(10);
		for (let i = 0; i < 20; i++) limit.answered(limit.sent(), 'neutral');
		expect(limit.allowed()).toBe(INITIAL_IN_FLIGHT);
	});
});
