/**
 * A batch's steady state, apart from its start (a ramp) and its end (the last requests in flight): the time from the
 * start of one request to a later one's, and how busy the bench process's event loop was meanwhile. Requests are
 * counted as Node's HTTP client starts them (diagnostics channel `http.client.request.start`), whichever node sends.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { EventLoopUtilization } from 'node:perf_hooks';
import { performance } from 'node:perf_hooks';

export interface SteadyWindow {
	/** Milliseconds per request between the two. */
	msPerRequest: number;
	/** The event loop's busy time per request between the two (µs): what the main thread spends on each. */
	busyUsPerRequest: number;
}

let started = 0;
let mark: { from: number; to: number; startMs?: number; startLoop?: EventLoopUtilization; result?: SteadyWindow } | undefined;

subscribe('http.client.request.start', () => {
	started++;
	if (!mark) return;
	if (started === mark.from) {
		mark.startMs = performance.now();
		mark.startLoop = performance.eventLoopUtilization();
	} else if (started === mark.to && mark.startMs !== undefined) {
		const requests = mark.to - mark.from;
		const busyMs = performance.eventLoopUtilization(mark.startLoop).active;
		mark.result = { msPerRequest: (performance.now() - mark.startMs) / requests, busyUsPerRequest: (busyMs * 1000) / requests };
	}
});

/** Runs `run` and measures from its `from`-th request start to its `to`-th; undefined when it sent fewer. */
export async function measureSteadyWindow(run: () => Promise<void>, from: number, to: number): Promise<SteadyWindow | undefined> {
	started = 0;
	mark = { from, to };
	try {
		await run();
		return mark.result;
	} finally {
		mark = undefined;
	}
}
