/**
 * Figure D (issue 46): a batch against a service that pushes back, every contender side by side in one run, rounds
 * interleaved. The service is testkit/limitedService.ts in front of the reference server (its own process): it serves
 * CAPACITY requests at once, SERVICE_MS each, and beyond that queues or answers 429 at once (with or without
 * `Retry-After: 1`), or answers a seeded tenth of requests 503 whatever its load. Between it and the server a ledger
 * (bench/lib/submissionLedger.ts) records every job created by the item it belongs to, so a job created twice shows.
 * Contenders: the Job Execution node (version 2) at its defaults; n8n's HTTP Request node at its defaults, with On
 * Error: Continue, with Retry On Fail (3 tries, 1 s apart, its defaults) and with its Batching option set for the
 * service (CAPACITY items per batch, BATCH_INTERVAL_MS apart); and a client keeping exactly CAPACITY in flight, the
 * reference. Every row prints per contender the median time, the peak served at once, the items failed and the jobs
 * created against the jobs its output holds. Row D6 measures resident memory in a child process
 * (bench/lib/answerMemoryChild.ts) reading 1,000 jobs of about 4 MiB.
 */
import axios from 'axios';
import type { IDataObject } from 'n8n-workflow';

import { MAX_ANSWER_BYTES_HELD } from '../../nodes/shared/answerBudget';
import { transportTiming } from '../../nodes/shared/transport';
import { runActionNode } from '../../testkit/engine';
import { NATIVE_TOKEN } from '../../testkit/fixtures';
import { startLimitedService } from '../../testkit/limitedService';
import type { LimitedServiceOptions } from '../../testkit/limitedService';
import { BENCH_CATALOG, INSTANT_FLOW } from '../lib/catalog';
import type { Figure } from '../lib/figure';
import { verdict } from '../lib/figure';
import { allCredentials, httpRequestNode } from '../lib/httpRequestNode';
import type { Operation } from '../lib/httpRequestNode';
import { loadN8nBaseNodes } from '../lib/n8nBaseNodes';
import { rawClient, submitJobs } from '../lib/rawClient';
import { startServerProcess } from '../lib/serverProcess';
import { items as batchOf, rounds, rowWanted } from '../lib/smoke';
import { median } from '../lib/stats';
import { startSubmissionLedger } from '../lib/submissionLedger';
import type { SubmissionLedger } from '../lib/submissionLedger';
import { runWorkflow } from '../lib/workflowRunner';
import { measureAnswerMemory } from './answerMemory';

const GETS = batchOf(1000);
const SUBMITS = batchOf(200);
const ROUNDS = rounds(5);
const CAPACITY = 8;
const SERVICE_MS = 20;
const BATCH_INTERVAL_MS = 50;
/** Goals (issue 46): against the fixed client at the capacity, and the scattered errors' pace. */
const PUSHBACK_GOAL = 1.25;
const QUEUE_GOAL = 1.0;

/** What one run of a contender left: its output, and what the service and the ledger saw. */
interface Outcome {
	ms: number;
	/** Items in the output, of them items holding an error; the execution's error when it failed. */
	items: number;
	failed: number;
	error?: string;
	/** Distinct job IDs the output holds (submissions). */
	jobsInOutput: number;
	peak: number;
	refused: number;
	created: number;
	createdTwice: number;
	/** The most attempts one item's request took (ours: from the requests n8n's helper sent). */
	mostAttempts?: number;
}

type Run = (url: string, operation: Operation, count: number) => Promise<Omit<Outcome, 'ms' | 'peak' | 'refused' | 'created' | 'createdTwice'>>;

const FLOW_BODY = { flowFileName: INSTANT_FLOW, runProfileName: 'default' };
/** Each item's number as the job parameter `item`: the ledger tells a job created twice by it. */
const numbered = (n: number) => ({ ...FLOW_BODY, parameters: [{ name: 'item', type: 'integer', value: String(n) }] });

let jobIds: string[] = [];
/** An output item that holds an error instead of a job (On Error: Continue); a job's own `error` field is null. */
const failedItem = (json: IDataObject) => json.error !== undefined && json.error !== null && json.id === undefined && json.jobId === undefined;
const itemsFor = (operation: Operation, count: number) => Array.from({ length: count }, (_, n) => (operation === 'get' ? { jobId: jobIds[n % jobIds.length], n } : { n }));

/** Ours at version 2's defaults (On Error: Continue when `continueOnFail`). */
function ours(continueOnFail = false): Run {
	return async (url, operation, count) => {
		const parameters =
			operation === 'get'
				? { authentication: 'jobExecutionApi', resource: 'job', operation: 'get', jobId: '={{ $json.jobId }}' }
				: { authentication: 'jobExecutionApi', resource: 'job', operation: 'submit', ...FLOW_BODY, parameters: { parameter: [{ name: 'item', type: 'integer', value: '={{ $json.n }}' }] } };
		const result = await runActionNode({ typeVersion: 2, parameters, credentials: allCredentials(url), items: itemsFor(operation, count), continueOnFail });
		const attempts = new Map<string, number>();
		for (const request of result.sent) attempts.set(String(request.url), (attempts.get(String(request.url)) ?? 0) + 1);
		return {
			items: result.json.length,
			failed: result.json.filter(failedItem).length,
			error: result.error?.message,
			jobsInOutput: new Set(result.json.map((json) => json.jobId).filter((id) => typeof id === 'string')).size,
			mostAttempts: operation === 'get' ? Math.max(0, ...attempts.values()) : undefined,
		};
	};
}

type TheirSetting = 'defaults' | 'continue' | 'retryOnFail' | 'batching';

/** n8n's HTTP Request node (4.2) as a user sets it up, with one of its settings for a busy service. */
function theirs(setting: TheirSetting): Run {
	return async (url, operation, count) => {
		const node = httpRequestNode('HTTP Request', 'native', url, operation);
		if (operation === 'submit') node.parameters.jsonBody = `={{ JSON.stringify(${JSON.stringify(FLOW_BODY).slice(0, -1)}, "parameters": [{ "name": "item", "type": "integer", "value": String($json.n) }] }) }}`;
		if (setting === 'continue') node.onError = 'continueRegularOutput';
		if (setting === 'retryOnFail') Object.assign(node, { retryOnFail: true, maxTries: 3, waitBetweenTries: 1000 });
		if (setting === 'batching') node.parameters.options = { batching: { batch: { batchSize: CAPACITY, batchInterval: BATCH_INTERVAL_MS } } };
		const result = await runWorkflow({ id: 'http-request', nodes: [node], connections: {} }, { credentials: allCredentials(url), start: node.name, items: itemsFor(operation, count) });
		const runs = result.runsOf(node.name);
		const output = (runs[runs.length - 1]?.data?.main?.[0] ?? []).map((item) => item.json);
		return {
			items: output.length,
			failed: output.filter(failedItem).length,
			error: result.error?.message,
			jobsInOutput: new Set(output.map((json) => json.jobId).filter((id) => typeof id === 'string')).size,
		};
	};
}

/** The reference: a plain client with exactly `inFlight` requests in flight, each sent once. */
function fixedClient(inFlight: number): Run {
	return async (url, operation, count) => {
		const client = axios.create({ baseURL: url, headers: { Authorization: `Bearer ${NATIVE_TOKEN}` }, validateStatus: () => true });
		const statuses: number[] = [];
		const jobs = new Set<string>();
		let next = 0;
		const worker = async () => {
			for (let n = next++; n < count; n = next++) {
				const answer = operation === 'get' ? await client.get(`/api/v1/jobs/${jobIds[n % jobIds.length]}`) : await client.post('/api/v1/jobs', numbered(n));
				statuses.push(answer.status);
				if (operation === 'submit' && answer.status < 300) jobs.add(String((answer.data as { jobId: string }).jobId));
			}
		};
		await Promise.all(Array.from({ length: Math.min(inFlight, count) }, worker));
		return { items: count, failed: statuses.filter((status) => status >= 300).length, jobsInOutput: jobs.size };
	};
}

/** One run of a contender against a fresh limited service (its counts are the run's own). */
async function measured(run: Run, ledger: SubmissionLedger, service: LimitedServiceOptions, operation: Operation, count: number): Promise<Outcome> {
	const limited = await startLimitedService(ledger.url, service);
	ledger.reset();
	try {
		const started = process.hrtime.bigint();
		const outcome = await run(limited.url, operation, count);
		const ms = Number(process.hrtime.bigint() - started) / 1e6;
		return { ...outcome, ms, peak: limited.peak(), refused: limited.refused() + limited.scattered(), created: ledger.created(), createdTwice: ledger.createdTwice() };
	} finally {
		await limited.close();
	}
}

/** Rounds of every contender on one service, the order rotating per round. */
async function sideBySide(contenders: Record<string, { run: Run; service: LimitedServiceOptions }>, ledger: SubmissionLedger, operation: Operation, count: number): Promise<Record<string, Outcome[]>> {
	const names = Object.keys(contenders);
	const outcomes: Record<string, Outcome[]> = Object.fromEntries(names.map((name) => [name, []]));
	for (let round = 0; round < ROUNDS; round++) {
		for (let k = 0; k < names.length; k++) {
			const name = names[(round + k) % names.length];
			outcomes[name].push(await measured(contenders[name].run, ledger, contenders[name].service, operation, count));
		}
	}
	return outcomes;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mid = (outcomes: Outcome[], pick: (outcome: Outcome) => number) => median(outcomes.map(pick));

/** One contender's medians in words: time, peak served at once, refused, failed items, jobs created / in the output. */
function describe(name: string, outcomes: Outcome[], operation: Operation): string {
	const errors = outcomes.filter((outcome) => outcome.error).length;
	const jobs = operation === 'submit' ? `, jobs created ${mid(outcomes, (o) => o.created)} / in the output ${mid(outcomes, (o) => o.jobsInOutput)} (created twice: max ${Math.max(...outcomes.map((o) => o.createdTwice))})` : '';
	const failedExecutions = errors > 0 ? `, the execution failed in ${errors} of ${outcomes.length} rounds ("${outcomes.find((o) => o.error)?.error?.slice(0, 90)}")` : '';
	return `${name}: ${seconds(mid(outcomes, (o) => o.ms))}, peak served at once ${Math.max(...outcomes.map((o) => o.peak))}, refused ${mid(outcomes, (o) => o.refused)}, items out ${mid(outcomes, (o) => o.items)}, failed items ${mid(outcomes, (o) => o.failed)}${jobs}${failedExecutions}`;
}

/** Every item done, none failed, no execution error, no job twice. */
const allDone = (outcomes: Outcome[], count: number) => outcomes.every((o) => !o.error && o.items === count && o.failed === 0 && o.createdTwice === 0);

const THEIR_SETTINGS: Array<[string, TheirSetting]> = [
	['HTTP Request at its defaults', 'defaults'],
	['HTTP Request with On Error: Continue', 'continue'],
	['HTTP Request with Retry On Fail', 'retryOnFail'],
	[`HTTP Request with Batching (${CAPACITY} items per ${BATCH_INTERVAL_MS} ms)`, 'batching'],
];

/** Rows D1 (Gets) and D2 (Submits): the service serves CAPACITY at once and answers 429 beyond, without and with Retry-After: 1. */
async function refusingService(ledger: SubmissionLedger, operation: Operation, retryAfter: string | undefined, id: string): Promise<Figure> {
	const count = operation === 'get' ? GETS : SUBMITS;
	const service: LimitedServiceOptions = { capacity: CAPACITY, serviceMs: SERVICE_MS, beyond: 429, retryAfter };
	const contenders: Record<string, { run: Run; service: LimitedServiceOptions }> = { 'Job Execution at its defaults': { run: ours(), service } };
	for (const [name, setting] of THEIR_SETTINGS) contenders[name] = { run: theirs(setting), service };
	contenders[`a client with exactly ${CAPACITY} in flight`] = { run: fixedClient(CAPACITY), service };
	const outcomes = await sideBySide(contenders, ledger, operation, count);
	const ourRuns = outcomes['Job Execution at its defaults'];
	const reference = outcomes[`a client with exactly ${CAPACITY} in flight`];
	const pauseMs = retryAfter === undefined ? 0 : Number(retryAfter) * 1000;
	const ratio = median(ourRuns.map((o, i) => o.ms / (reference[i].ms + pauseMs)));
	const what = `${count.toLocaleString('en')} ${operation === 'get' ? 'Gets' : 'Submits'}`;
	return {
		id,
		name: `${what}, a service serving ${CAPACITY} at once (${SERVICE_MS} ms each) and answering 429 beyond${retryAfter ? ` with Retry-After: ${retryAfter}` : ''}: Job Execution at its defaults / a client with exactly ${CAPACITY} in flight${pauseMs ? ' plus one pause' : ''}`,
		measured: `${ratio.toFixed(2)}× (${seconds(mid(ourRuns, (o) => o.ms))} vs ${seconds(mid(reference, (o) => o.ms))}${pauseMs ? ` + ${seconds(pauseMs)}` : ''}); ours: failed items ${mid(ourRuns, (o) => o.failed)}${operation === 'submit' ? `, jobs created twice ${Math.max(...ourRuns.map((o) => o.createdTwice))}` : ''}`,
		goal: `every item done, ≤ ${PUSHBACK_GOAL}×${operation === 'submit' ? ', no job created twice' : ''}`,
		verdict: verdict(allDone(ourRuns, count) && ratio <= PUSHBACK_GOAL),
		details: Object.entries(outcomes).map(([name, runs]) => describe(name, runs, operation)),
	};
}

/** The delays an item waited before its last attempt (the transport's retry delays, one per attempt after the first). */
const retryWaitMs = (attempts: number) => transportTiming.retryDelaysMs.slice(0, Math.max(0, attempts - 1)).reduce((a, b) => a + b, 0);

/** Row D3: a healthy service answering a seeded tenth of requests 503; Gets against the same batch without errors, Submits never doubled. */
async function scatteredErrors(ledger: SubmissionLedger): Promise<Figure[]> {
	const healthy: LimitedServiceOptions = { capacity: 100_000, serviceMs: SERVICE_MS, beyond: 'queue' };
	const scattered: LimitedServiceOptions = { ...healthy, scatteredBusy: { share: 0.1, seed: 46 } };
	const gets = await sideBySide(
		{
			'Job Execution, 10 % 503s': { run: ours(), service: scattered },
			'Job Execution, no errors': { run: ours(), service: healthy },
			'HTTP Request with On Error: Continue, 10 % 503s': { run: theirs('continue'), service: scattered },
		},
		ledger,
		'get',
		GETS,
	);
	const withErrors = gets['Job Execution, 10 % 503s'];
	const clean = gets['Job Execution, no errors'];
	const allowed = withErrors.map((o, i) => PUSHBACK_GOAL * clean[i].ms + retryWaitMs(o.mostAttempts ?? 1));
	const ratio = median(withErrors.map((o, i) => o.ms / allowed[i]));
	const submits = await sideBySide({ 'Job Execution, 10 % 503s': { run: ours(), service: scattered }, 'Job Execution with On Error: Continue, 10 % 503s': { run: ours(true), service: scattered } }, ledger, 'submit', SUBMITS);
	const submitRuns = Object.values(submits).flat();
	return [
		{
			id: 'D3a',
			name: `${GETS.toLocaleString('en')} Gets, a healthy service (${SERVICE_MS} ms) answering a random 10 % 503: Job Execution at its defaults / (${PUSHBACK_GOAL}× the same batch without errors + the retry delays its unluckiest item waited)`,
			measured: `${ratio.toFixed(2)}× (${seconds(mid(withErrors, (o) => o.ms))}; without errors ${seconds(mid(clean, (o) => o.ms))}; the unluckiest item: ${mid(withErrors, (o) => o.mostAttempts ?? 1)} attempts, ${seconds(mid(withErrors, (o) => retryWaitMs(o.mostAttempts ?? 1)))} of delays); failed items ${mid(withErrors, (o) => o.failed)}`,
			goal: '≤ 1.0×, every Get read',
			verdict: verdict(ratio <= 1 && allDone(withErrors, GETS)),
			details: Object.entries(gets).map(([name, runs]) => describe(name, runs, 'get')),
		},
		{
			id: 'D3b',
			name: `${SUBMITS.toLocaleString('en')} Submits, the same service: jobs created twice (a submission answered 503 may have created a job: never resent)`,
			measured: `created twice: ${Math.max(...submitRuns.map((o) => o.createdTwice))} in ${submitRuns.length} runs`,
			goal: 'none',
			verdict: verdict(submitRuns.every((o) => o.createdTwice === 0)),
			details: Object.entries(submits).map(([name, runs]) => describe(name, runs, 'submit')),
		},
	];
}

/** Row D4: a service that queues its excess (serves CAPACITY at once, the rest wait): ours against the HTTP Request node. */
async function queueingService(ledger: SubmissionLedger): Promise<Figure> {
	const service: LimitedServiceOptions = { capacity: CAPACITY, serviceMs: SERVICE_MS, beyond: 'queue' };
	const outcomes = await sideBySide(
		{ 'Job Execution at its defaults': { run: ours(), service }, 'HTTP Request at its defaults': { run: theirs('defaults'), service }, [`a client with exactly ${CAPACITY} in flight`]: { run: fixedClient(CAPACITY), service } },
		ledger,
		'get',
		GETS,
	);
	const ourRuns = outcomes['Job Execution at its defaults'];
	const theirRuns = outcomes['HTTP Request at its defaults'];
	const ratio = median(ourRuns.map((o, i) => o.ms / theirRuns[i].ms));
	return {
		id: 'D4',
		name: `${GETS.toLocaleString('en')} Gets, a service serving ${CAPACITY} at once (${SERVICE_MS} ms each) that queues the rest: Job Execution / HTTP Request, both at their defaults`,
		measured: `${ratio.toFixed(2)}× (${seconds(mid(ourRuns, (o) => o.ms))} vs ${seconds(mid(theirRuns, (o) => o.ms))})`,
		goal: `≤ ${QUEUE_GOAL.toFixed(1)}×, every item done`,
		verdict: verdict(ratio <= QUEUE_GOAL && allDone(ourRuns, GETS)),
		details: Object.entries(outcomes).map(([name, runs]) => describe(name, runs, 'get')),
	};
}

/**
 * Row D5: every refusal asks for a pause longer than a call can use. The call's limits are scaled down by
 * CALL_SCALE as the tests do (transportTiming): a call of 6 s, refusals with `Retry-After: 6`.
 */
const CALL_SCALE = 10;

async function pauseLongerThanACall(ledger: SubmissionLedger): Promise<Figure> {
	const saved = { ...transportTiming };
	Object.assign(transportTiming, { callMs: saved.callMs / CALL_SCALE, attemptMs: saved.attemptMs / CALL_SCALE });
	const pauseMs = transportTiming.callMs;
	const service: LimitedServiceOptions = { capacity: CAPACITY, serviceMs: SERVICE_MS, beyond: 429, retryAfter: String(pauseMs / 1000) };
	try {
		const outcomes = await sideBySide({ 'Job Execution at its defaults': { run: ours(), service }, 'Job Execution with On Error: Continue': { run: ours(true), service } }, ledger, 'get', GETS);
		const slowest = Math.max(...Object.values(outcomes).flatMap((runs) => runs.map((o) => o.ms)));
		return {
			id: 'D5',
			name: `${GETS.toLocaleString('en')} Gets, every refusal (429 beyond ${CAPACITY} at once) asking for a pause as long as a call (limits scaled 1/${CALL_SCALE}: a call of ${seconds(pauseMs)}, Retry-After: ${pauseMs / 1000}): the slowest batch / one pause`,
			measured: `${(slowest / pauseMs).toFixed(2)}× (slowest ${seconds(slowest)})`,
			goal: 'about one pause: ≤ 1.25×',
			verdict: verdict(slowest <= 1.25 * pauseMs),
			details: Object.entries(outcomes).map(([name, runs]) => describe(name, runs, 'get')),
		};
	} finally {
		Object.assign(transportTiming, saved);
	}
}

export async function measurePushback(): Promise<Figure[]> {
	await loadN8nBaseNodes();
	// Every contender's submissions of rows D2 and D3 (about 10,000 jobs) would otherwise evict the jobs D4 and D5 read.
	const server = await startServerProcess({ catalog: BENCH_CATALOG, concurrency: 10_000, stepMs: 1, maxJobs: 100_000 });
	const ledger = await startSubmissionLedger(server.url);
	const figures: Figure[] = [];
	try {
		jobIds = await submitJobs(rawClient(server.url), Math.min(GETS, 1000), INSTANT_FLOW, 50);
		for (const [operation, row] of [['get', 'D1'], ['submit', 'D2']] as const) {
			if (rowWanted(`${row}a`)) figures.push(await refusingService(ledger, operation, undefined, `${row}a`));
			if (rowWanted(`${row}b`)) figures.push(await refusingService(ledger, operation, '1', `${row}b`));
		}
		if (rowWanted('D3a') || rowWanted('D3b')) figures.push(...(await scatteredErrors(ledger)));
		if (rowWanted('D4')) figures.push(await queueingService(ledger));
		if (rowWanted('D5')) figures.push(await pauseLongerThanACall(ledger));
	} finally {
		await ledger.close();
		await server.stop();
	}
	if (rowWanted('D6')) figures.push(await measureAnswerMemory(GETS, MAX_ANSWER_BYTES_HELD));
	return figures;
}
