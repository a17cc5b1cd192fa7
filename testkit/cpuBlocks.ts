// The longest event-loop block in CPU time, as the fuzzer's children and the heap-capped child measure it.
import { performance } from 'node:perf_hooks';

function cpuMs(): number {
	const { user, system } = process.cpuUsage();
	return (user + system) / 1000;
}

export interface CpuBlockWatch {
	/** Runs the test's own synchronous work (checking output for secrets, say) without counting it as the node's. */
	aside<T>(work: () => T): T;
	/** Ends the watch: the longest block seen, in ms. */
	stop(): number;
}

/**
 * The longest stretch the event loop was held, in CPU time: a 10 ms tick measures the wall time and the process's
 * CPU time since the last tick, and a stretch counts the smaller of the two (less the tick). On a loaded machine a
 * process waiting for a core gains wall time, not CPU time, so only work done on the loop counts as a block.
 */
export function watchCpuBlocks(): CpuBlockWatch {
	let lastWall = performance.now();
	let lastCpu = cpuMs();
	let longest = 0;
	const tick = setInterval(() => {
		const wall = performance.now();
		const cpu = cpuMs();
		longest = Math.max(longest, Math.min(wall - lastWall, cpu - lastCpu) - 10);
		lastWall = wall;
		lastCpu = cpu;
	}, 10);
	return {
		aside(work) {
			const wall = performance.now();
			const cpu = cpuMs();
			try {
				return work();
			} finally {
				// The stretch resumes where it was before the test's work: the node's work around it still adds up.
				lastWall += performance.now() - wall;
				lastCpu += cpuMs() - cpu;
			}
		},
		stop() {
			clearInterval(tick);
			return Math.max(0, longest);
		},
	};
}
