/**
 * A run's ceiling is the run's (docs/guarantees.md, "Deadlines", rule 6): an attempt that starts just before its call's
 * or its poll's wall ceiling ends at that ceiling, not three of its own limits later; a read inside a poll runs on the
 * reads' own budget, never the call's. Through n8n's engine against a real server on 127.0.0.1, on a held clock: the
 * wall clock (Date) is jest's, moved only by the test (timers stay real: the deadline clock's sleeps wake it, and it
 * reads the held time); the event loop's waiting time is held still (an n8n whose loop other work keeps busy: every
 * limit stretches to its ceiling). The server answers when the test says, at a held time. So each run ends at the
 * exact held millisecond the rule says, whatever the machine's load; what is asserted is when, what was sent and what
 * the error says.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';

import { transportTiming, wallCeiling } from '../../nodes/shared/transport';
import { runActionNode } from '../../testkit/engine';
import type { CredentialsMap } from '../../testkit/engine';
import { jobStatus } from '../../testkit/hostileServer';
import { createPoller } from '../../testkit/poller';

const JOB = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const credentials = (url: string): CredentialsMap => ({ jobExecutionApi: { baseUrl: url, authType: 'bearerToken', token: 'ceiling-token-4e7f9a0b' } });

const saved = { ...transportTiming, retryDelaysMs: [...transportTiming.retryDelaysMs] };
/** Scaled limits: 1 s per attempt and per call, so the wall ceiling of each is 3 s (of the held clock). */
const LIMIT_MS = 1000;
const CEILING_MS = LIMIT_MS * 3;
const START = 1_800_000_000_000;

beforeEach(() => {
	Object.assign(transportTiming, { attemptMs: LIMIT_MS, callMs: LIMIT_MS, retryDelaysMs: [0, 0, 0], helperMarginMs: 600_000 });
	// The loop never waits: only the wall ceilings end an attempt.
	jest.spyOn(performance, 'eventLoopUtilization').mockImplementation(() => ({ idle: 0, active: 0, utilization: 1 }));
	// Only Date is held; every timer stays real.
	jest.useFakeTimers({
		doNotFake: [
			'hrtime',
			'nextTick',
			'performance',
			'queueMicrotask',
			'requestAnimationFrame',
			'cancelAnimationFrame',
			'requestIdleCallback',
			'cancelIdleCallback',
			'setImmediate',
			'clearImmediate',
			'setInterval',
			'clearInterval',
			'setTimeout',
			'clearTimeout',
		],
		now: START,
	});
});
afterEach(() => {
	jest.useRealTimers();
	jest.restoreAllMocks();
	Object.assign(transportTiming, saved);
	transportTiming.retryDelaysMs = [...saved.retryDelaysMs];
});
afterAll(() => expect(wallCeiling.factor).toBe(3));

interface Received {
	target: string;
	/** The held clock when it arrived. */
	at: number;
	response: ServerResponse;
}

/** A real server on 127.0.0.1 that records each request with the held time it arrived at, and answers as `answer` says (or as the test later does). */
async function heldServer(answer: (request: Received, index: number) => void): Promise<{ url: string; requests: Received[]; close: () => Promise<void> }> {
	const requests: Received[] = [];
	const sockets = new Set<Socket>();
	const server = createServer((message: IncomingMessage, response: ServerResponse) => {
		message.resume();
		message.on('end', () => {
			const request = { target: message.url ?? '', at: Date.now(), response };
			requests.push(request);
			answer(request, requests.length - 1);
		});
	});
	server.on('connection', (socket) => sockets.add(socket));
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		close: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/** A 503, now. */
function answer503(response: ServerResponse): void {
	response.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"busy"}');
}

/** Headers and the start of a body that never ends. */
function endlessBody(response: ServerResponse): void {
	response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
	response.write('{"id":"');
}

/** Moves the held wall clock to `offset` ms past the start. */
function heldAt(offset: number): void {
	jest.setSystemTime(START + offset);
}

/**
 * Real time passes (sockets and timers do their work) while the held clock stands still, until `done`; a hang bound
 * far from any real duration fails the test instead of hanging it.
 */
async function until(done: () => boolean, what: string, hangMs = 15_000): Promise<void> {
	const giveUpAt = performance.now() + hangMs;
	while (!done()) {
		if (performance.now() > giveUpAt) throw new Error(`never: ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}

/** Real time passes for `ms` while the held clock stands still (for what must not happen). */
async function whileHeld(ms: number): Promise<void> {
	await new Promise((resolve) => setTimeout(resolve, ms));
}

/** A run, and the held clock's time when it settled. */
function tracked<T>(run: Promise<T>): { settled: () => boolean; endedAt: () => number | undefined; outcome: Promise<T> } {
	let endedAt: number | undefined;
	const outcome = run.finally(() => (endedAt = Date.now()));
	outcome.catch(() => undefined);
	return { settled: () => endedAt !== undefined, endedAt: () => endedAt, outcome };
}

/** Where the edge lies: the limits, and the held times of the 503s that keep each attempt going until the last starts one tick before the ceiling. */
interface Edge {
	attemptMs: number;
	callMs: number;
	answersAt: number[];
}

const EDGES: Array<[string, Edge]> = [
	['scaled (1 s per attempt and per call, a 3 s ceiling)', { attemptMs: 1000, callMs: 1000, answersAt: [2999] }],
	// Each 503 comes one tick before its attempt's own ceiling (three times 20 s): the fourth attempt starts at 179.997 s.
	['full scale (20 s per attempt, 60 s per call, a 180 s ceiling)', { attemptMs: 20_000, callMs: 60_000, answersAt: [59_999, 119_998, 179_997] }],
];

test.each(EDGES)(
	'%s: a Get and a trigger poll whose last attempt starts just before the ceiling end at the ceiling, not three of its limits later',
	async (_scale, { attemptMs, callMs, answersAt }) => {
		Object.assign(transportTiming, { attemptMs, callMs });
		const ceilingMs = callMs * wallCeiling.factor;
		// Each server holds its first answers for the test; the last attempt gets a body that never ends.
		const servers = await Promise.all([0, 1].map(async () => await heldServer(({ response }, index) => index === answersAt.length && endlessBody(response))));
		try {
			const [get, poll] = [
				tracked(runActionNode({ credentials: credentials(servers[0].url), parameters: { resource: 'job', operation: 'get', jobId: JOB } })),
				tracked(createPoller({ authentication: 'jobExecutionApi' }, credentials(servers[1].url)).poll()),
			];
			const received = (count: number) => () => servers.every((server) => server.requests.length === count);
			await until(received(1), 'the first requests');
			for (const [index, at] of answersAt.entries()) {
				heldAt(at);
				for (const server of servers) answer503(server.requests[index].response);
				await until(received(index + 2), `attempt ${index + 2}`);
			}
			for (const server of servers) expect(server.requests.map((request) => request.at - START)).toEqual([0, ...answersAt]);
			expect(servers[1].requests.every((request) => request.target.startsWith('/api/v1/jobs?filter=active'))).toBe(true);
			await whileHeld(300);
			expect([get.settled(), poll.settled()]).toEqual([false, false]);
			heldAt(ceilingMs);
			// The deadline clock sleeps in real time until its first attempt's limit: it looks at the held clock then.
			await until(() => get.settled() && poll.settled(), 'the end of both runs at the ceiling', attemptMs + 15_000);
			expect([get.endedAt()! - START, poll.endedAt()! - START]).toEqual([ceilingMs, ceilingMs]);
			const seconds = ceilingMs / 1000;
			expect((await get.outcome).error?.message).toMatch(new RegExp(`^No complete answer from the service at 127\\.0\\.0\\.1:\\d+ for job ${JOB} within ${seconds} s$`));
			await expect(poll.outcome).rejects.toThrow(new RegExp(`^No complete answer from the service at 127\\.0\\.0\\.1:\\d+ for the active job list within ${seconds} s$`));
			for (const server of servers) expect(server.requests).toHaveLength(answersAt.length + 1);
		} finally {
			await Promise.all(servers.map(async (server) => await server.close()));
		}
	},
	60_000,
);

test('Get: a retry whose delay would end at the call’s ceiling is not made: the call fails at once with the service’s answer', async () => {
	transportTiming.retryDelaysMs = [1, 1, 1];
	const server = await heldServer(() => undefined);
	try {
		const run = tracked(runActionNode({ credentials: credentials(server.url), parameters: { resource: 'job', operation: 'get', jobId: JOB } }));
		await until(() => server.requests.length === 1, 'the first request');
		heldAt(CEILING_MS - 1);
		answer503(server.requests[0].response);
		await until(run.settled, 'the end of the run');
		expect(run.endedAt()! - START).toBe(CEILING_MS - 1);
		const result = await run.outcome;
		expect(result.error?.message).toBe('The service failed (HTTP 503): busy');
		expect(server.requests).toHaveLength(1);
	} finally {
		await server.close();
	}
});

describe('a trigger poll', () => {
	const list = (response: ServerResponse, jobs: unknown[] = []) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jobs));
	const isRead = (request: Received) => request.target === `/api/v1/jobs/${JOB}`;

	/**
	 * A poll that tracks the job, then one where it left both lists: its lists answer at `listsAt` ms into the poll, and
	 * its individual read gets a 503 one tick before `readEndsAt`, then a body that never ends. The poll must end at
	 * `readEndsAt` (held), and not before.
	 */
	async function pollWithSlowRead(listsAt: number, readEndsAt: number, pollBudgetMs?: number): Promise<{ warnings: string[]; requests: Received[] }> {
		let phase: 'tracking' | 'held' = 'tracking';
		const server = await heldServer((request) => {
			if (phase === 'tracking') list(request.response, request.target.includes('active') ? [jobStatus(JOB, 'RUNNING', { start: 1 })] : []);
			else if (isRead(request) && server.requests.filter(isRead).length > 1) endlessBody(request.response);
		});
		try {
			const poller = createPoller({ authentication: 'jobExecutionApi' }, credentials(server.url), { pollBudgetMs });
			await poller.poll();
			phase = 'held';
			const from = server.requests.length;
			const pollStart = 10_000;
			heldAt(pollStart);
			const run = tracked(poller.poll());
			for (const which of ['active', 'history']) {
				await until(() => server.requests.length > from + (which === 'active' ? 0 : 1), `the ${which} list`);
				heldAt(pollStart + listsAt);
				list(server.requests[server.requests.length - 1].response);
			}
			await until(() => server.requests.filter(isRead).length === 1, 'the individual read');
			heldAt(pollStart + readEndsAt - 1);
			answer503(server.requests.filter(isRead)[0].response);
			await until(() => server.requests.filter(isRead).length === 2, 'the read again');
			await whileHeld(300);
			expect(run.settled()).toBe(false);
			heldAt(pollStart + readEndsAt);
			await until(run.settled, 'the end of the poll at its read’s ceiling');
			expect(run.endedAt()! - START - pollStart).toBe(readEndsAt);
			// A failed read never fails the poll: the job is read again in a later one.
			expect(await run.outcome).toBeNull();
			return { warnings: poller.warnings, requests: server.requests.slice(from).map((request) => ({ ...request, at: request.at - START - pollStart })) };
		} finally {
			await server.close();
		}
	}

	test('an individual read runs on what is left of the reads’ budget, the poll’s deadline (100 ms at 900 ms in): it ends 3 × 100 ms later, not at 3 × the call’s limit', async () => {
		const { warnings, requests } = await pollWithSlowRead(900, 900 + 3 * 100);
		expect(requests.filter(isRead).map((request) => request.at)).toEqual([900, 1199]);
		expect(warnings.some((line) => line.includes('could not read 1 tracked job(s)') && line.includes('did not answer in time'))).toBe(true);
	});

	test('an individual read runs on the reads’ share of the engine’s poll budget (half of 400 ms): it ends 3 × 200 ms into the poll', async () => {
		const { requests } = await pollWithSlowRead(0, 3 * 200, 400);
		expect(requests.filter(isRead).map((request) => request.at)).toEqual([0, 599]);
	});
});
