// The longest event-loop block in CPU time, as the fuzzer's children and the heap-capped child measure it.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

function cpuMs(): number {
	const { user, system } = process.cpuUsage();
	return (user + system) / 1000;
}

const MAIN_THREAD_SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

/** A field of Linux's schedstat for the main thread (the event loop's), in ms; undefined where the kernel does not say. */
function schedstatMs(field: 0 | 1): number | undefined {
	try {
		return Number(readFileSync(MAIN_THREAD_SCHEDSTAT, 'latin1').split(' ')[field]) / 1e6;
	} catch {
		return undefined;
	}
}

/**
 * How long the main thread has waited for a core, in ms: schedstat's second field (the time runnable but not
 * running). 0 where the kernel does not say, and the measure is then the older one.
 */
export function mainThreadWaitedForCoreMs(): number {
	return schedstatMs(1) ?? 0;
}

/**
 * The main thread's own CPU time in ms (schedstat's first field), or the process's where the kernel does not say. The
 * kernel updates it at its scheduler's ticks (1-4 ms) while the thread runs: for stretches of tens of ms, not less.
 */
export function mainThreadCpuMs(): number {
	return schedstatMs(0) ?? cpuMs();
}

export interface CpuBlockWatch {
	/** Runs the test's own synchronous work (checking output for secrets, say) without counting it as the node's. */
	aside<T>(work: () => T): T;
	/** Ends the watch: the longest block seen, in ms. */
	stop(): number;
}

interface Marks {
	wall: number;
	cpu: number;
	waited: number;
}

function marks(): Marks {
	return { wall: performance.now(), cpu: cpuMs(), waited: mainThreadWaitedForCoreMs() };
}

/**
 * The longest stretch the event loop was held, less what a loaded machine adds: a 10 ms tick measures, since the last
 * tick, the wall time less the main thread's wait for a core, and the process's CPU time; a stretch counts the
 * smaller of the two (less the tick). The wall side keeps a main thread that sleeps while GC helpers work for it; the
 * CPU side keeps helpers that run beside a loop that turns. Without the wait for a core taken out, helpers running
 * while the loop merely waited for one counted as a block (a 4 MiB escape-dense Get, 15-36 ms held, read 70-140 ms
 * with three busy processes on two cores).
 */
export function watchCpuBlocks(): CpuBlockWatch {
	let last = marks();
	let longest = 0;
	const tick = setInterval(() => {
		const now = marks();
		const held = now.wall - last.wall - (now.waited - last.waited);
		longest = Math.max(longest, Math.min(held, now.cpu - last.cpu) - 10);
		last = now;
	}, 10);
	return {
		aside(work) {
			const before = marks();
			try {
				return work();
			} finally {
				// The stretch resumes where it was before the test's work: the node's work around it still adds up.
				const after = marks();
				last = { wall: last.wall + after.wall - before.wall, cpu: last.cpu + after.cpu - before.cpu, waited: last.waited + after.waited - before.waited };
			}
		},
		stop() {
			clearInterval(tick);
			return Math.max(0, longest);
		},
	};
}
