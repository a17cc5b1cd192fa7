/**
 * Other work of n8n, in this process: 9 ms of synchronous work, then a turn of the event loop (at least 1 ms), again
 * and again, so that the loop is busy about nine-tenths of the time (an n8n running other workflows). The deadline
 * clock then counts about a tenth of the wall time as waiting on the service, and only the wall ceilings (three
 * times each limit, docs/guarantees.md "Deadlines", rule 6) end a run that the service holds.
 */
import { performance } from 'node:perf_hooks';

export interface BusyLoop {
	/** Ends the work; returns the loop's utilization (0 to 1) since it began. */
	stop(): number;
}

export function keepLoopBusy(busyMs = 9): BusyLoop {
	const from = performance.eventLoopUtilization();
	let timer: NodeJS.Timeout | undefined;
	const work = () => {
		const end = performance.now() + busyMs;
		while (performance.now() < end) {
			// other work of n8n
		}
		timer = setTimeout(work, 1);
	};
	timer = setTimeout(work, 1);
	return {
		stop() {
			clearTimeout(timer);
			return performance.eventLoopUtilization(performance.eventLoopUtilization(), from).utilization;
		},
	};
}
