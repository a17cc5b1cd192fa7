/**
 * The fuzzer's block measure (testkit/cpuBlocks.ts): a test's own checks run `aside` do not count as the node's
 * event-loop block, and the node's work on both sides of them in the same task still adds up.
 */
import { Worker } from 'node:worker_threads';

import { watchCpuBlocks } from '../../testkit/cpuBlocks';

/**
 * Holds the event loop until `ms` have passed both in wall time and in this process's CPU time: the two the watch
 * takes the smaller of. CPU time alone ends early when another thread of the process (a GC helper) runs beside the
 * loop on the second core; wall time alone ends early when the process waits for a core on a busy machine.
 */
function spin(ms: number): void {
	const start = process.cpuUsage();
	const wallStart = performance.now();
	for (;;) {
		const { user, system } = process.cpuUsage(start);
		if ((user + system) / 1000 >= ms && performance.now() - wallStart >= ms) return;
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

test('a block is measured whole while another thread of the process runs beside the loop (a GC helper, say)', async () => {
	// The process's CPU time then grows faster than the wall clock: forced here, as jest's workers met it by chance.
	const busy = new Worker('for (;;) {}', { eval: true });
	await new Promise((resolve) => busy.once('online', resolve));
	try {
		expect(await longestBlock(() => spin(150))).toBeGreaterThanOrEqual(120);
	} finally {
		await busy.terminate();
	}
});
