/**
 * The clock that deadline tests read their upper bounds from (testkit/deadline.ts, slowOnlyClock): it never reads more
 * than the wall time since it started, and a loop held by other work makes it read less, so that a bound checked
 * against it fails only for a run that truly waited past its deadline.
 */
import { slowOnlyClock } from '../../testkit/deadline';

const idle = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

function hold(ms: number): void {
	const until = performance.now() + ms;
	while (performance.now() < until) {
		// other work of the process
	}
}

test('an idle wait is counted, never more than the wall time it took', async () => {
	const wallStart = performance.now();
	const clock = slowOnlyClock(20);
	await idle(400);
	const read = clock.stop();
	const wall = performance.now() - wallStart;
	expect(read).toBeLessThanOrEqual(wall);
	// The loop turned every 20 ms or so: most of the wait counts (a loaded machine only lowers it, hence the margin).
	expect(read).toBeGreaterThan(100);
});

test('a loop held by other work counts at most one tick for the whole hold', async () => {
	const clock = slowOnlyClock(20);
	hold(300);
	await idle(1);
	expect(clock.stop()).toBeLessThanOrEqual(20 + 20);
});

test('stopped, it counts no more', async () => {
	const clock = slowOnlyClock(20);
	await idle(60);
	const read = clock.stop();
	await idle(100);
	expect(clock.ms).toBe(read);
});
