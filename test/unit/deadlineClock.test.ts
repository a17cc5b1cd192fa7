/**
 * The run's one clock for every attempt's deadline (nodes/shared/transport/deadlineClock.ts): each deadline fires
 * once, at its time and not a millisecond before, unless finished; an earlier deadline added later is not delayed
 * by the pending sleep; a closed clock leaves no timer behind. n8n's `sleep` is setTimeout underneath, so jest's
 * fake timers drive it.
 */
import fc from 'fast-check';

import { AttemptStop, DeadlineClock, wallCeiling } from '../../nodes/shared/transport';
import { waitedAtStart } from '../../nodes/shared/transport/deadlineClock';

beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
afterEach(() => jest.useRealTimers());

/** A clock whose loop is never busy: every ms of wall time is waiting time (fake timers move both). */
function quietClock(): DeadlineClock {
	return new DeadlineClock(Date.now, () => Date.now());
}

/** Lets the sleep's promise callbacks run after timers fired. */
async function advance(ms: number): Promise<void> {
	await jest.advanceTimersByTimeAsync(ms);
}

test('a deadline fires at its time, once, and not before', async () => {
	const clock = quietClock();
	const late = jest.fn();
	clock.add(20_000, late);
	await advance(19_999);
	expect(late).not.toHaveBeenCalled();
	await advance(1);
	expect(late).toHaveBeenCalledTimes(1);
	await advance(60_000);
	expect(late).toHaveBeenCalledTimes(1);
	expect(clock.pending).toBe(0);
});

test('a finished deadline never fires, and the ones left still do', async () => {
	const clock = quietClock();
	const first = jest.fn();
	const second = jest.fn();
	clock.finish(clock.add(100, first));
	clock.add(200, second);
	await advance(150);
	expect(first).not.toHaveBeenCalled();
	await advance(50);
	expect(second).toHaveBeenCalledTimes(1);
	expect(first).not.toHaveBeenCalled();
});

test('an earlier deadline added while a later one is pending fires at its own time', async () => {
	const clock = quietClock();
	const later = jest.fn();
	const earlier = jest.fn();
	clock.add(20_000, later);
	clock.add(500, earlier);
	await advance(500);
	expect(earlier).toHaveBeenCalledTimes(1);
	expect(later).not.toHaveBeenCalled();
	await advance(19_499);
	expect(later).not.toHaveBeenCalled();
	await advance(1);
	expect(later).toHaveBeenCalledTimes(1);
});

test('a thousand attempts, most finished: each unfinished one fires once at its time, through sweeps', async () => {
	const clock = quietClock();
	const fired: number[] = [];
	for (let i = 0; i < 1000; i++) {
		const entry = clock.add(1000 + i, () => fired.push(i));
		if (i % 10 !== 0) clock.finish(entry);
	}
	expect(clock.pending).toBe(100);
	await advance(1000);
	expect(fired).toEqual([0]);
	await advance(999);
	expect(fired).toEqual(Array.from({ length: 100 }, (_, k) => k * 10));
	expect(clock.pending).toBe(0);
});

test('closed with nothing pending, the clock leaves no timer; a later deadline still fires', async () => {
	const clock = quietClock();
	clock.finish(clock.add(20_000, jest.fn()));
	expect(jest.getTimerCount()).toBe(1);
	clock.close();
	await advance(0);
	expect(jest.getTimerCount()).toBe(0);
	const late = jest.fn();
	clock.add(300, late);
	await advance(300);
	expect(late).toHaveBeenCalledTimes(1);
});

test('closed while a deadline is pending, the clock keeps it', async () => {
	const clock = quietClock();
	const late = jest.fn();
	clock.add(300, late);
	clock.close();
	await advance(300);
	expect(late).toHaveBeenCalledTimes(1);
});

test('an attempt stop aborts the helper signal with its reason and tells the reader once', () => {
	const stop = new AttemptStop();
	const reader = jest.fn();
	const removed = jest.fn();
	stop.listen(removed);
	stop.listen(undefined);
	stop.listen(reader);
	expect(stop.stopped).toBe(false);
	expect(stop.signal.aborted).toBe(false);
	stop.stop();
	stop.stop();
	expect(stop.stopped).toBe(true);
	expect(stop.signal.aborted).toBe(true);
	expect((stop.signal.reason as Error).message).toBe('the attempt is over');
	expect(reader).toHaveBeenCalledTimes(1);
	expect(removed).not.toHaveBeenCalled();
});

test('a signal asked for after the attempt stopped is already aborted', () => {
	const stop = new AttemptStop();
	stop.stop();
	expect(stop.signal.aborted).toBe(true);
	expect((stop.signal.reason as Error).message).toBe('the attempt is over');
});

test('only waiting counts: while the loop is busy the deadline does not advance, and it fires once the limit was waited', async () => {
	let frozen: number | undefined;
	let busyMs = 0;
	const clock = new DeadlineClock(Date.now, () => frozen ?? Date.now() - busyMs);
	const late = jest.fn();
	const start = Date.now();
	clock.add(1000, late);
	await advance(600);
	// 700 ms of the node's own work: the wall clock passes the limit, the waiting does not.
	frozen = Date.now();
	await advance(700);
	expect(late).not.toHaveBeenCalled();
	frozen = undefined;
	busyMs = 700;
	await advance(399);
	expect(late).not.toHaveBeenCalled();
	// Due once 1000 ms were waited (at +1700); the clock looks again at most one busy stretch later.
	await advance(100);
	expect(late).toHaveBeenCalledTimes(1);
	expect(Date.now() - start).toBe(1799);
});

test("a finished deadline (the answer's last byte is in) never fires, however long the node then works", async () => {
	let busyMs = 0;
	const clock = new DeadlineClock(Date.now, () => Date.now() - busyMs);
	const late = jest.fn();
	const entry = clock.add(1000, late);
	await advance(400);
	clock.finish(entry);
	busyMs += 5000;
	await advance(5000);
	expect(late).not.toHaveBeenCalled();
	expect(clock.pending).toBe(0);
});

test("by default the waiting counted is the event loop's idle time", () => {
	jest.useRealTimers();
	const clock = new DeadlineClock();
	const idle = performance.eventLoopUtilization().idle;
	expect(clock.waited()).toBeGreaterThanOrEqual(idle);
	expect(clock.waited()).toBeLessThan(idle + 1000);
});

test('however busy n8n is, a deadline fires at its wall ceiling: three times its limit, not a millisecond before', async () => {
	// The loop never waits (other workflows keep it busy): waiting time stands still for the whole test.
	const clock = new DeadlineClock(Date.now, () => 0);
	const late = jest.fn();
	clock.add(1000, late);
	await advance(1000 * wallCeiling.factor - 1);
	expect(late).not.toHaveBeenCalled();
	await advance(1);
	expect(late).toHaveBeenCalledTimes(1);
	expect(wallCeiling.factor).toBe(3);
});

/** A loop idle `idleShare` of the time since `from` (the rest is other work of n8n): waiting time at that rate. */
function partlyIdle(idleShare: number, from = Date.now()): () => number {
	return () => Math.floor((Date.now() - from) * idleShare);
}

test.each([
	['90 % busy', 0.1],
	['99.9 % busy (the clock wakes to almost no waiting each time)', 0.001],
])('however busy n8n is, and though its loop waits now and then (%s), a deadline fires at its wall ceiling, not a wake later', async (_name, idleShare) => {
	// Each wake finds a little waited and sleeps for the rest: those sleeps must stop at the ceiling, not pass it.
	const clock = new DeadlineClock(Date.now, partlyIdle(idleShare));
	const start = Date.now();
	let firedAt: number | undefined;
	clock.add(1000, () => (firedAt = Date.now()));
	await advance(1000 * wallCeiling.factor - 1);
	expect(firedAt).toBeUndefined();
	await advance(2000);
	expect(firedAt! - start).toBe(1000 * wallCeiling.factor);
});

describe("an attempt's ceiling is capped by its call's and its poll's", () => {
	test('an attempt added one tick before the ceiling it is given fires at that ceiling, however busy the loop', async () => {
		const clock = new DeadlineClock(Date.now, () => 0);
		const start = Date.now();
		let firedAt: number | undefined;
		clock.add(1000, () => (firedAt = Date.now()), start + 1);
		await advance(0);
		expect(firedAt).toBeUndefined();
		await advance(1);
		expect(firedAt! - start).toBe(1);
	});

	test('on a quiet loop, a ceiling before the limit ends the attempt at the ceiling; one past three limits changes nothing', async () => {
		const clock = quietClock();
		const start = Date.now();
		const fired: Array<[string, number]> = [];
		clock.add(1000, () => fired.push(['capped', Date.now() - start]), start + 400);
		clock.add(1000, () => fired.push(['uncapped', Date.now() - start]), start + 10_000);
		await advance(5000);
		expect(fired).toEqual([
			['capped', 400],
			['uncapped', 1000],
		]);
	});

	test('a ceiling already passed fires at the next turn of the clock', async () => {
		const clock = new DeadlineClock(Date.now, () => 0);
		const late = jest.fn();
		clock.add(1000, late, Date.now() - 5);
		await advance(0);
		expect(late).toHaveBeenCalledTimes(1);
	});

	test('generated: whatever the loop waits and whatever ceiling it is given, a deadline fires once it waited its limit or at the earlier ceiling, never past it', async () => {
		// The model (docs/guarantees.md, "Deadlines"): due once `limit` was waited, or at min(3 × limit, the ceiling given).
		await fc.assert(
			fc.asyncProperty(fc.integer({ min: 1, max: 2000 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 8000 }), async (limit, idleShare, capAfter) => {
				const start = Date.now();
				const clock = new DeadlineClock(Date.now, partlyIdle(idleShare, start));
				const fired: number[] = [];
				clock.add(limit, () => fired.push(Date.now() - start), start + capAfter);
				const ceiling = Math.min(limit * wallCeiling.factor, capAfter);
				await advance(ceiling + 1);
				expect(fired).toHaveLength(1);
				const [at] = fired;
				expect(at).toBeLessThanOrEqual(ceiling);
				expect(at >= ceiling || Math.floor(at * idleShare) >= limit).toBe(true);
				expect(at).toBeGreaterThanOrEqual(Math.min(limit, ceiling));
				await advance(limit * 4);
				expect(fired).toHaveLength(1);
			}),
			{ seed: 48, numRuns: 60 },
		);
	});
});

test('the clock looks at the waiting time only once a deadline may be due: not before its limit has passed in wall time', async () => {
	let looks = 0;
	const clock = new DeadlineClock(Date.now, () => {
		looks++;
		return Date.now();
	});
	const late = jest.fn();
	clock.add(1000, late);
	expect(looks).toBe(1);
	await advance(999);
	expect(looks).toBe(1);
	await advance(1);
	expect(late).toHaveBeenCalledTimes(1);
	expect(looks).toBe(2);
});

describe('what the clock keeps (mutation survivors, issue 48)', () => {
	/** A clock holding `total` far deadlines, the first `finished` of them finished. */
	function withFinished(total: number, finished: number): { clock: DeadlineClock; entries: ReturnType<DeadlineClock['add']>[] } {
		const clock = quietClock();
		const entries = Array.from({ length: total }, () => clock.add(60_000, jest.fn()));
		entries.slice(0, finished).forEach((entry) => clock.finish(entry));
		return { clock, entries };
	}

	test('finished entries are swept once more than 64 are and they are over half of those kept, not one sooner', () => {
		// 65 of 130 finished: more than 64, but not over half: kept.
		const { clock, entries } = withFinished(130, 65);
		expect(clock.held).toBe(130);
		// The 66th: over half, swept.
		clock.finish(entries[65]);
		expect(clock.held).toBe(64);
		expect(clock.pending).toBe(64);
	});

	test('64 finished entries are kept even when they are most of the list; the 65th sweeps them', () => {
		const { clock, entries } = withFinished(100, 64);
		expect(clock.held).toBe(100);
		clock.finish(entries[64]);
		expect(clock.held).toBe(35);
	});

	test('an entry finished twice counts once', () => {
		const clock = quietClock();
		const entry = clock.add(1000, jest.fn());
		clock.add(1000, jest.fn());
		clock.finish(entry);
		clock.finish(entry);
		expect(clock.pending).toBe(1);
	});

	test('a finished entry is never told it is late, even when a wake finds it due', async () => {
		let waited = 0;
		const clock = new DeadlineClock(Date.now, () => waited);
		const finished = jest.fn();
		const other = jest.fn();
		const entry = clock.add(100, finished);
		clock.add(100, other);
		clock.finish(entry);
		waited = 100;
		await advance(100);
		expect(other).toHaveBeenCalledTimes(1);
		expect(finished).not.toHaveBeenCalled();
	});

	test('after a wake, the clock sleeps until the next entry may be due, not again at once', async () => {
		let reads = 0;
		const clock = new DeadlineClock(Date.now, () => {
			reads++;
			return Date.now();
		});
		const first = jest.fn();
		clock.add(100, first);
		clock.add(60_000, jest.fn());
		const added = reads;
		await advance(100);
		expect(first).toHaveBeenCalledTimes(1);
		// One wake at 100 ms read the waiting time; none more for the next 10 s (the other entry is due at 60 s).
		await advance(10_000);
		expect(reads - added).toBe(1);
	});
});

describe('the waiting time counted at the start of a bound shared by several calls (waitedAtStart)', () => {
	test('as if the loop had waited since the bound began; a start still ahead counts from now', () => {
		expect(waitedAtStart(4_000_001, () => 1000, 4_001_001)).toBe(0);
		expect(waitedAtStart(4_002_001, () => 700, 4_001_001)).toBe(700);
	});

	test('kept for the bound, the oldest of more than 256 forgotten', () => {
		// Fill the marks with bounds of their own first, whatever other tests left.
		for (let n = 0; n < 300; n++) waitedAtStart(5_000_000 + n, () => 0, 5_000_000 + n);
		const starts = Array.from({ length: 256 }, (_, n) => 6_000_000 + n);
		for (const start of starts) waitedAtStart(start, () => 0, start);
		// All 256 are kept: asked again with another waiting time, the first gives its mark.
		expect(waitedAtStart(starts[0], () => 999, starts[0])).toBe(0);
		// The 257th pushes the oldest (the first) out: asked again, it is counted anew.
		waitedAtStart(6_000_256, () => 0, 6_000_256);
		expect(waitedAtStart(starts[0], () => 999, starts[0])).toBe(999);
	});
});
