/**
 * The fuzzer's block measure (testkit/cpuBlocks.ts): a test's own checks run `aside` do not count as the node's
 * event-loop block, and the node's work on both sides of them in the same task still adds up.
 */
import { execFileSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';

import { mainThreadCpuMs, mainThreadWaitedForCoreMs, watchCpuBlocks } from '../../testkit/cpuBlocks';

/**
 * Holds the event loop until its own thread has run `ms` of CPU (so wall time and the process's CPU time, the two the
 * watch takes the smaller of, have passed it too): a loaded machine lengthens the spin, never shortens it.
 */
function spin(ms: number): void {
	const start = mainThreadCpuMs();
	while (mainThreadCpuMs() - start < ms) {
		// the node's work
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

test('a block is the loop\'s own time when other threads of the process take its core from it', async () => {
	// Forced: this process on one core, two threads spinning beside a loop held for 40 ms of its own CPU. The stretch
	// then lasts about three times that in wall time, all of it the process's CPU: counted as CPU time alone (the
	// measure before the wait for a core was taken out), that read as a block of about 110 ms.
	const mask = execFileSync('taskset', ['-p', String(process.pid)], { encoding: 'latin1' }).trim().split(' ').pop() as string;
	execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)]);
	const spinners = Array.from({ length: 2 }, () => new Worker('for (;;) {}', { eval: true }));
	try {
		await Promise.all(spinners.map((worker) => new Promise((resolve) => worker.once('online', resolve))));
		const waitedBefore = mainThreadWaitedForCoreMs();
		const block = await longestBlock(() => spin(40));
		// The race happened: the loop waited for its core at least as long as it ran (else the test proves nothing).
		expect(mainThreadWaitedForCoreMs() - waitedBefore).toBeGreaterThan(40);
		expect(block).toBeGreaterThanOrEqual(25);
		expect(block).toBeLessThan(70);
	} finally {
		await Promise.all(spinners.map((worker) => worker.terminate()));
		execFileSync('taskset', ['-a', '-p', mask, String(process.pid)]);
	}
});
