/**
 * The fuzzer's block measure (testkit/cpuBlocks.ts): a test's own checks run `aside` do not count as the node's
 * event-loop block, and the node's work on both sides of them in the same task still adds up.
 */
import { watchCpuBlocks } from '../../testkit/cpuBlocks';

/** Holds the event loop for `ms` of this process's CPU time. */
function spin(ms: number): void {
	const start = process.cpuUsage();
	for (;;) {
		const { user, system } = process.cpuUsage(start);
		if ((user + system) / 1000 >= ms) return;
	}
}

/** The longest block while `work` runs as one task, the loop turned a few times before and after. */
async function longestBlock(work: (aside: <T>(inner: () => T) => T) => void): Promise<number> {
	const watch = watchCpuBlocks();
	await new Promise((resolve) => setTimeout(resolve, 30));
	work(watch.aside);
	await new Promise((resolve) => setTimeout(resolve, 30));
	return watch.stop();
}

test('a block of the node is measured; the test work run aside is not', async () => {
	expect(await longestBlock(() => spin(150))).toBeGreaterThanOrEqual(120);
	expect(await longestBlock((aside) => aside(() => spin(150)))).toBeLessThan(60);
});

test('the node work before and after a test check in the same task is one block', async () => {
	const block = await longestBlock((aside) => {
		spin(100);
		aside(() => spin(150));
		spin(100);
	});
	expect(block).toBeGreaterThanOrEqual(170);
	expect(block).toBeLessThan(260);
});
