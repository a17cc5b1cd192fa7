/**
 * The deadline measures the service, never the node (docs/guarantees.md, "Deadlines"), through n8n's engine against a
 * real server on 127.0.0.1. Each race is forced, never hoped for: the event loop's waiting time (what the clock counts)
 * is held still where a test needs the node's own work, or the helper's timer, to outlast the limit; what is asserted
 * is what was sent and read, and the words of the error.
 */
import type { ServerResponse } from 'node:http';

import { transportTiming, wallCeiling } from '../../nodes/shared/transport';
import { runActionNode } from '../../testkit/engine';
import type { CredentialsMap } from '../../testkit/engine';
import { jobStatus } from '../../testkit/hostileServer';
import { serversClosedAfterEach } from '../../testkit/hostileServers';
import { denseJobText, denseListText, URL_LINES } from '../../testkit/workBounds';
import { createPoller } from '../../testkit/poller';
import { keepLoopBusy } from '../../testkit/busyLoop';
import { deadlineBound } from '../../testkit/deadline';

const JOB = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const TOKEN = 'deadline-token-&<>"\'+/%-4e';
const credentials = (url: string): CredentialsMap => ({ jobExecutionApi: { baseUrl: url, authType: 'bearerToken', token: TOKEN } });
const MiB = 1024 * 1024;
const PLAIN = 'a plain log line of the job ';

const saved = { ...transportTiming, retryDelaysMs: [...transportTiming.retryDelaysMs] };
beforeAll(() => (transportTiming.retryDelaysMs = [1, 1, 1]));
afterEach(() => {
	Object.assign(transportTiming, saved);
	transportTiming.retryDelaysMs = [1, 1, 1];
	jest.restoreAllMocks();
	wallCeiling.factor = 3;
});
afterAll(() => Object.assign(transportTiming, saved));

const serve = serversClosedAfterEach();

/**
 * The event loop seems never to wait: the clock sees no time pass, whatever the wall clock and the CPU do. The wall
 * ceiling (three times a limit, for an n8n that never waits; its own test is in deadlineClock.test.ts) is lifted, so
 * that a 1 ms limit proves the waiting-time rule alone.
 */
function holdWaitingTime(): void {
	jest.spyOn(performance, 'eventLoopUtilization').mockImplementation(() => ({ idle: 0, active: 0, utilization: 1 }));
	wallCeiling.factor = Infinity;
}

/**
 * Only the held clock could end an attempt: n8n's helper times a socket out a second of wall time past the limit,
 * and a machine busy with other work can keep even a small answer that long (seen: a poll's empty active list).
 */
function onlyTheClockEnds(): void {
	holdWaitingTime();
	transportTiming.helperMarginMs = 600_000;
}

/** A raw HTTP server whose answers the test writes by hand, each socket's end recorded. */
async function handServer(
	answer: (response: ServerResponse) => void,
): Promise<{ url: string; requests: number; closed: Promise<void>; last: () => ServerResponse | undefined; close: () => Promise<void> }> {
	const { createServer } = await import('node:http');
	let requests = 0;
	let latest: ServerResponse | undefined;
	let closedOnce: () => void = () => undefined;
	const closed = new Promise<void>((resolve) => (closedOnce = resolve));
	const server = createServer((request, response) => {
		requests++;
		latest = response;
		request.resume();
		response.socket?.once('close', () => closedOnce());
		answer(response);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	const sockets = new Set<import('node:net').Socket>();
	server.on('connection', (socket) => sockets.add(socket));
	return {
		url: `http://127.0.0.1:${port}`,
		get requests() {
			return requests;
		},
		closed,
		last: () => latest,
		close: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

describe("the node's own work never counts against the service", () => {
	test('a 9 MiB list (streamed) and a 1 MiB escape-dense job, each read in far more wall time than a 1 ms limit: one request each, read whole', async () => {
		// Reading either takes the node well over 1 ms; with waiting time held still, only a clock that counted the
		// node's own work would give the attempt up (and ask again, or call the service slow).
		Object.assign(transportTiming, { attemptMs: 1, callMs: 2 });
		onlyTheClockEnds();
		const list = denseListText(9, 9 * MiB, PLAIN);
		const job = denseJobText(MiB, URL_LINES);
		const server = await serve((request) => ({ kind: 'raw', text: request.target.startsWith('/api/v1/jobs/') ? job : list }));
		const many = await runActionNode({ credentials: credentials(server.url), parameters: { resource: 'job', operation: 'getMany', returnAll: true } });
		expect(many.error).toBeUndefined();
		expect(many.json).toHaveLength(9);
		const one = await runActionNode({ credentials: credentials(server.url), parameters: { resource: 'job', operation: 'get', jobId: JOB } });
		expect(one.error).toBeUndefined();
		expect(one.json[0].id).toBe('7c2f0000-0000-4000-8000-000000000000');
		expect(server.requests.map((request) => request.target)).toEqual(['/api/v1/jobs', `/api/v1/jobs/${JOB}`]);
	});

	test("the trigger's poll reads the same list once, under the same held clock", async () => {
		// The poll's limit counts from its start, and the node's work before its first call is counted as waiting
		// (waitedAtStart): a 2 ms limit was spent before the list was asked for on a loaded machine. A second for the
		// poll, 1 ms per attempt: reading the 9 MiB list still takes the node far longer than its attempt's limit.
		Object.assign(transportTiming, { attemptMs: 1, callMs: 1000 });
		onlyTheClockEnds();
		const list = denseListText(9, 9 * MiB, PLAIN);
		const server = await serve((request) => ({ kind: 'raw', text: request.target.includes('filter=history') ? list : '[]' }));
		const poller = createPoller({ triggerOn: 'anyChange', startFrom: 'existing' }, credentials(server.url));
		const events = (await poller.poll()) ?? [];
		expect(events).toHaveLength(9);
		expect(server.requests.filter((request) => request.target.includes('filter=history'))).toHaveLength(1);
	});
});

describe('a service that is slow is still late, and said to be', () => {
	test('a silent service whose only end is the helper’s own timer (the clock held still): "no complete answer", never "cannot be reached"', async () => {
		// The helper's timer (1 s past the limit, in wall time) is forced to end the attempt before the clock does.
		Object.assign(transportTiming, { attemptMs: 200, callMs: 200, retryDelaysMs: [] });
		holdWaitingTime();
		const server = await serve(() => ({ kind: 'silent' }));
		const result = await runActionNode({ credentials: credentials(server.url), parameters: { resource: 'job', operation: 'get', jobId: JOB } });
		expect(result.error?.message).toMatch(new RegExp(`^No complete answer from the service at 127\\.0\\.0\\.1:\\d+ for job ${JOB} within [0-9.]+ s$`));
		expect(server.requests).toHaveLength(1);
	});

	test("after an attempt's deadline, the job's answer is not read further: the connection is closed while the service still holds the rest", async () => {
		Object.assign(transportTiming, { attemptMs: 300, callMs: 300 });
		const body = JSON.stringify(jobStatus(JOB, 'COMPLETED', { start: 1, end: 2 }));
		const server = await handServer((response) => {
			response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length + 1000) });
			// Half of the answer, then nothing: only the node's reader can end this connection.
			response.write(body.slice(0, 40));
		});
		try {
			const result = await runActionNode({ credentials: credentials(server.url), parameters: { resource: 'job', operation: 'get', jobId: JOB } });
			expect(result.error?.message).toMatch(/^No complete answer from the service at .* within [0-9.]+ s$/);
			expect(server.requests).toBe(1);
			// More of the answer, never its end: a reader still reading would take it and keep the connection open. The
			// node let go of the body when the attempt ended, so the helper's stream ends the connection at this chunk
			// (n8n's helper has no signal in an execution, and its stream wrapper stops only between chunks).
			server.last()?.write(' '.repeat(100));
			let giveUp: NodeJS.Timeout | undefined;
			const outcome = await Promise.race([server.closed.then(() => 'closed'), new Promise((resolve) => (giveUp = setTimeout(resolve, 15_000, 'still open')))]);
			// Cleared: a pending timer would hold jest's worker past its last file ("failed to exit gracefully").
			clearTimeout(giveUp);
			expect(outcome).toBe('closed');
		} finally {
			await server.close();
		}
	});
});

describe('a connection broken after the service answered is not "cannot be reached"', () => {
	/** Headers and the start of the body, then the socket is destroyed. */
	const brokenAnswer = (response: ServerResponse) => {
		response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
		response.write('[{"id":"7c2f');
		// Destroyed once the request is read whole: a socket closed with request bytes still unread sends a reset, and
		// a reset can discard the answer's start before a busy node reads it (the service would seem never to answer).
		const destroy = () => setImmediate(() => response.socket?.destroy());
		if (response.req.readableEnded) destroy();
		else response.req.once('end', destroy);
	};

	test('Get Many: says the service answered and the connection broke, and reads again (a read is safe to retry)', async () => {
		const server = await handServer(brokenAnswer);
		try {
			const result = await runActionNode({ credentials: credentials(server.url), parameters: { resource: 'job', operation: 'getMany', returnAll: true } });
			expect(result.error?.message).toMatch(/^The service at 127\.0\.0\.1:\d+ answered the job list \(HTTP 200\), but the connection broke before its answer ended \(E[A-Z]+\)$/);
			expect(result.error?.message).not.toContain('cannot be reached');
			expect(server.requests).toBe(1 + transportTiming.retryDelaysMs.length);
		} finally {
			await server.close();
		}
	});

	test('Submit: sent once, and the job may exist', async () => {
		const server = await handServer(brokenAnswer);
		try {
			const result = await runActionNode({
				credentials: credentials(server.url),
				parameters: { resource: 'job', operation: 'submit', flowFileName: '/Shared/Flows/sales.flow', runProfileName: 'default' },
			});
			expect(result.error?.message).toMatch(/^The service at .* answered the submission \(HTTP 200\), but the connection broke before its answer ended/);
			expect(result.error?.description).toContain('may have accepted the job');
			expect(server.requests).toBe(1);
		} finally {
			await server.close();
		}
	});
});

describe('a run ends within three times its limit on a loop other work keeps 90 % busy (a run’s ceiling is the run’s)', () => {
	/** Reads: `slow` 503s, each after `slowMs`, then a body that never ends; a submission is answered at once. */
	async function slowThenEndless(slow: number, slowMs: number): Promise<{ url: string; reads: () => number; firstReadAt: () => number; close: () => Promise<void> }> {
		let reads = 0;
		let firstReadAt = 0;
		const timers = new Set<NodeJS.Timeout>();
		const server = await handServer((response) => {
			if (response.req.method === 'POST') {
				response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jobId: JOB }));
				return;
			}
			if (++reads === 1) firstReadAt = performance.now();
			if (reads > slow) {
				response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
				response.write('[{"id":"');
				return;
			}
			timers.add(setTimeout(() => response.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"busy"}'), slowMs));
		});
		return {
			url: server.url,
			reads: () => reads,
			firstReadAt: () => firstReadAt,
			close: async () => {
				for (const timer of timers) clearTimeout(timer);
				await server.close();
			},
		};
	}

	/** When the run ended, and the loop's utilization while it ran. */
	async function onBusyLoop(run: () => Promise<unknown>): Promise<{ endedAt: number; utilization: number }> {
		const busy = keepLoopBusy();
		let utilization = 0;
		try {
			await run();
		} finally {
			utilization = busy.stop();
		}
		return { endedAt: performance.now(), utilization };
	}

	/**
	 * A first run of each kind loads the engine's paths (modules, the error's): a few hundred ms of the node's own work on
	 * a busy loop, after its ceiling. Run once each beforehand (against a silent service, 50 ms limits), so the figures
	 * measure the call.
	 */
	async function warmedUp(): Promise<void> {
		const server = await serve(() => ({ kind: 'silent' }));
		Object.assign(transportTiming, { attemptMs: 50, callMs: 50 });
		await runActionNode({ credentials: credentials(server.url), parameters: { resource: 'job', operation: 'get', jobId: JOB } });
		await createPoller({ authentication: 'jobExecutionApi' }, credentials(server.url))
			.poll()
			.catch(() => undefined);
	}

	test('a Get and a trigger poll (1 s limits, scaled): the fourth attempt starts at about 2.4 s, and each run ends by its 3 s ceiling, not at about 4.7 s', async () => {
		// Slow 503s at 0.8 s each: without the rule the fourth attempt, begun at about 2.4 s with what was left of the
		// call's waiting time (about 0.76 s), would run to its own ceiling, 3 × 0.76 s later.
		await warmedUp();
		Object.assign(transportTiming, { attemptMs: 1000, callMs: 1000, helperMarginMs: 600_000 });
		const ceilingMs = 1000 * wallCeiling.factor;
		const withoutTheRuleMs = 2400 + 3 * 760;
		const figures: string[] = [];
		for (const target of ['get', 'trigger'] as const) {
			const server = await slowThenEndless(3, 800);
			try {
				let message = '';
				const { endedAt, utilization } = await onBusyLoop(async () => {
					if (target === 'get') {
						const result = await runActionNode({ credentials: credentials(server.url), parameters: { resource: 'job', operation: 'get', jobId: JOB } });
						message = result.error?.message ?? '';
					} else {
						await createPoller({ authentication: 'jobExecutionApi' }, credentials(server.url))
							.poll()
							.catch((error: Error) => (message = error.message));
					}
				});
				expect(message).toMatch(/^No complete answer from the service at 127\.0\.0\.1:\d+ for (job .*|the active job list) within [0-9.]+ s$/);
				expect(server.reads()).toBe(4);
				expect(utilization).toBeGreaterThan(0.8);
				// From its first request: the engine's own start (a first run loads n8n's modules) is not the call's.
				const elapsedMs = endedAt - server.firstReadAt();
				expect(elapsedMs).toBeLessThan(deadlineBound(ceilingMs, withoutTheRuleMs));
				figures.push(`${target} ${Math.round(elapsedMs)} ms (loop ${Math.round(utilization * 100)} % busy)`);
			} finally {
				await server.close();
			}
		}
		process.stdout.write(`on a busy loop, ceiling ${ceilingMs} ms: ${figures.join(', ')}\n`);
	});

	test('Submit + Wait (Timeout 2 s, a 10 s call limit): the wait’s read runs on what is left of the Timeout, and the run ends within 3 × 2 s', async () => {
		// The wait sleeps its 1 s Poll Interval, then reads with 1 s of its Timeout left: a body that never ends.
		Object.assign(transportTiming, { attemptMs: 10_000, callMs: 10_000, helperMarginMs: 600_000 });
		const server = await slowThenEndless(0, 0);
		try {
			let result: Awaited<ReturnType<typeof runActionNode>> | undefined;
			const started = performance.now();
			const { endedAt, utilization } = await onBusyLoop(async () => {
				result = await runActionNode({
					credentials: credentials(server.url),
					parameters: { resource: 'job', operation: 'submit', flowFileName: '/Shared/Flows/sales.flow', runProfileName: 'default', waitForCompletion: true, waitSettings: { pollInterval: 1, timeout: 2 } },
				});
			});
			expect(result?.error?.message).toMatch(/^Timed out after 2 s waiting for job .*: last status not read yet; the last read failed: the service did not answer in time$/);
			expect(server.reads()).toBe(1);
			expect(utilization).toBeGreaterThan(0.8);
			const elapsedMs = endedAt - started;
			// A read on the call's 10 s limit instead would end 30 s after it began.
			expect(elapsedMs).toBeLessThan(deadlineBound(2000 * wallCeiling.factor, 1000 + 10_000 * wallCeiling.factor));
			process.stdout.write(`on a busy loop, Submit + Wait with a 2 s Timeout: ${Math.round(elapsedMs)} ms (loop ${Math.round(utilization * 100)} % busy)\n`);
		} finally {
			await server.close();
		}
	});
});
