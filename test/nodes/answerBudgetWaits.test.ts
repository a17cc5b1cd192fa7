/**
 * Version 2's answer budget (nodes/shared/answerBudget.ts) through n8n's engine: a request takes its answer's estimate
 * with its slot, before it is sent, so answers never wait, unread, for the budget on their calls' time. Issue 46's
 * failure, scaled: 300 Gets of large answers with short call limits (its full size, 1,000 Gets of 4 MiB at the
 * default limits, failed items after 180 s each). Answers, budget and first estimate are scaled down together
 * (answerBudgetSize): 32 answers fill the budget, as 32 answers at the 4 MiB cap fill 128 MiB. Proven by counts at the
 * service, never by a time: once the estimate has learnt the answers' size, a gate holds the requests until the
 * budget's worth pile up, and never more are outstanding at the service than the budget holds. With the budget taken
 * after the headers instead, the limit grew past it (42 and 134 outstanding at once in two runs) while answers waited,
 * unread, on their calls' clocks; whether items then failed their deadlines depended on the machine's load (one run of
 * two), so the count, not the failures, is what fails this test when the rule is broken. The second test holds the
 * queue itself past a call's wall ceiling, and no item may fail for waiting its turn (guarantees.md, Deadlines, rule 3).
 * Since the router starts an item only when the limit and the budget have room for it, a call no longer waits for its
 * first slot here, so counting the call from before that wait (the break this test was written for) fails it no more:
 * test/unit/transportDoor.test.ts holds a first slot past the ceiling and fails for that break.
 */
import { createServer } from 'http';
import type { AddressInfo } from 'net';

import { INITIAL_READS_IN_FLIGHT } from '../../nodes/shared/adaptiveLimit';
import { answerBudgetSize } from '../../nodes/shared/answerBudget';
import { transportTiming } from '../../nodes/shared/transport';
import { runActionNode } from '../../testkit/engine';
import { credentialsFor } from '../../testkit/fixtures';

const LATENCY_MS = 20;
const ITEMS = 300;
/**
 * The second test's answer time, and its calls' limit: the budget's queue (ITEMS / ANSWERS_HELD rounds) outlasts 3
 * calls. A call of 2 s leaves each attempt a 6 s wall ceiling: with 1 s calls, a machine running three other suites
 * kept the answers' last bytes unread past 3 s (the loop busy cleaning 32 answers of 256 KiB on a third of a core),
 * and items failed at the ceiling the test is not about.
 */
const SLOW_LATENCY_MS = 800;
const SLOW_CALL_MS = 2000;
/** Each answer's exact size (its Content-Length): a sixteenth of the 4 MiB cap. */
const ANSWER_BYTES = 256 * 1024;
/** Answers the budget holds at once, as MAX_ANSWER_BYTES_HELD holds answers at the cap. */
const ANSWERS_HELD = 32;
/** Requests from this one on are sent after answers taught the estimate their size (the first burst is before it). */
const GATE_FROM = 2 * INITIAL_READS_IN_FLIGHT;
const LINE = '2026-01-05 09:00:00.123 [main] INFO  node sales-by-region: 12345 rows written, 4321.0 rows/s\\n';

interface LargeJobService {
	url: string;
	/** The most requests from GATE_FROM on received and not yet answered to the end, at once. */
	peak(): number;
	gateFilled(): boolean;
	close(): Promise<void>;
}

/**
 * Every job answered after LATENCY_MS with exactly ANSWER_BYTES (its Content-Length); with `gate`, the requests from
 * GATE_FROM on are held until ANSWERS_HELD pile up (then all go), or 20 s passed.
 */
async function startLargeJobService(gate: boolean, latencyMs = LATENCY_MS): Promise<LargeJobService> {
	const log = LINE.repeat(Math.ceil(ANSWER_BYTES / LINE.length));
	const counts = { received: 0, outstanding: 0, peak: 0, filled: false };
	let held: Array<() => void> | undefined = gate ? [] : undefined;
	const giveUp = setTimeout(() => held?.splice(0).forEach((go) => go()), 20_000);
	const server = createServer((req, res) => {
		const index = counts.received++;
		const id = decodeURIComponent((req.url ?? '').split('?')[0].split('/').pop() ?? '');
		const head = `${JSON.stringify({ id, jobName: id, flowName: 'sales', runProfileName: 'default', executionStatus: 'COMPLETED', startTime: 1767603600000, endTime: 1767603660000 }).slice(0, -1)},"log":"`;
		// Cut to the size, never inside an escape.
		const body = Buffer.from(`${`${head}${log}`.slice(0, ANSWER_BYTES - 2).replace(/\\$/, ' ')}"}`);
		const counted = index >= GATE_FROM;
		if (counted) counts.peak = Math.max(counts.peak, ++counts.outstanding);
		res.on('finish', () => counted && counts.outstanding--);
		const answer = () =>
			setTimeout(() => {
				res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
				res.end(body);
			}, latencyMs);
		if (!counted || !held) {
			answer();
			return;
		}
		held.push(answer);
		if (held.length < ANSWERS_HELD) return;
		counts.filled = true;
		for (const release of held.splice(0)) release();
		held = undefined;
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		peak: () => counts.peak,
		gateFilled: () => counts.filled,
		close: () =>
			new Promise<void>((resolve) => {
				clearTimeout(giveUp);
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

const savedTiming = { ...transportTiming };
const savedBudget = { ...answerBudgetSize };
beforeEach(() => {
	answerBudgetSize.bytes = ANSWERS_HELD * ANSWER_BYTES;
	answerBudgetSize.firstEstimate = 4 * 1024;
});
afterEach(() => {
	Object.assign(transportTiming, savedTiming);
	Object.assign(answerBudgetSize, savedBudget);
});

async function getJobs(url: string, count: number) {
	const parameters = { authentication: 'jobExecutionApi', resource: 'job', operation: 'get', jobId: '={{ $json.jobId }}' };
	const items = Array.from({ length: count }, (_, n) => ({ jobId: `job-${n}` }));
	const result = await runActionNode({ typeVersion: 2, parameters, credentials: credentialsFor(url), items, continueOnFail: true });
	expect(result.error).toBeUndefined();
	expect(result.json.filter((json) => 'error' in json)).toEqual([]);
	expect(result.json.map((json) => json.jobId)).toEqual(items.map((item) => item.jobId));
}

test(`once the answers' size is known, exactly the budget's worth of requests is sent at once (${ANSWERS_HELD}), never one more, though the limit grew past it`, async () => {
	const service = await startLargeJobService(true);
	try {
		await getJobs(service.url, GATE_FROM + 2 * ANSWERS_HELD);
		expect(service.gateFilled()).toBe(true);
		expect(service.peak()).toBe(ANSWERS_HELD);
	} finally {
		await service.close();
	}
}, 60_000);

test(`${ITEMS} Gets of answers a budget holds ${ANSWERS_HELD} of, each answered in ${SLOW_LATENCY_MS} ms, with calls of ${SLOW_CALL_MS} ms: the queue for the budget outlasts a call's wall ceiling, and no item fails for it`, async () => {
	// ${ITEMS} / ${ANSWERS_HELD} rounds of ${SLOW_LATENCY_MS} ms: the last items wait about 7.2 s for a slot, past the 6 s
	// wall ceiling of a call counted from the item's start; a call counted from its first slot ends in one round.
	transportTiming.callMs = SLOW_CALL_MS;
	transportTiming.attemptMs = SLOW_CALL_MS;
	const service = await startLargeJobService(false, SLOW_LATENCY_MS);
	try {
		await getJobs(service.url, ITEMS);
		expect(service.peak()).toBeLessThanOrEqual(ANSWERS_HELD);
	} finally {
		await service.close();
	}
}, 120_000);
