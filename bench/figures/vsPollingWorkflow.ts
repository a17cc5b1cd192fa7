/**
 * Figure C: the trigger against the polling workflow users build from n8n's own nodes: Schedule Trigger → HTTP
 * Request (`GET /api/v1/jobs?filter=history`) → Remove Duplicates ("Remove Items Processed in Previous
 * Executions", Value Is New, on `{{ $json.id }}`). Both poll the same reference server (in this process, on a
 * manual clock) at the same instants, under one seeded churn: random arrivals, bursts of 110–230 jobs over the
 * lists' cap of 100, COMPLETED, ERROR and CANCELLED outcomes, rare long jobs that end far below the lists, n8n
 * restarts (some with 8–16 s of downtime). Each poll of the hand-made workflow is one execution in trigger mode
 * starting at the Schedule Trigger node with the item it emits, as n8n runs a workflow when a schedule fires.
 * Remove Duplicates keeps its default History Size (10,000): past it, n8n 2.41.1's node fails every execution
 * (n8n issue #38475), so the misses are split into those before and after that point.
 * Ground truth is the server's record of every job: each job submitted after activation ends once, so it
 * should give exactly one event, with its final status.
 */
import type { IDataObject } from 'n8n-workflow';

import { ManualClock, mulberry32, startReferenceServer } from '../../server';
import type { ReferenceServer } from '../../server';
import { credentialsFor, NATIVE_TOKEN, RELAY_KEY, USER_KEY } from '../../testkit/fixtures';
import { createPoller } from '../../testkit/poller';
import type { Poller } from '../../testkit/poller';
import type { Figure } from '../lib/figure';
import { verdict } from '../lib/figure';
import { httpRequestNode } from '../lib/httpRequestNode';
import { loadN8nBaseNodes, processedData, REMOVE_DUPLICATES, SCHEDULE_TRIGGER } from '../lib/n8nBaseNodes';
import { formatBytes } from '../lib/stats';
import { canvasNode, connect, lastOutput, runWorkflow } from '../lib/workflowRunner';
import type { WorkflowDefinition } from '../lib/workflowRunner';

const JOBS = 10_200;
const SEED = 20261123;
const FINAL = ['COMPLETED', 'ERROR', 'CANCELLED'];
const CHURN_CATALOG = {
	flows: [
		{ flowFileName: '/Shared/Flows/a.flow', flowName: 'a', steps: 1, stepMs: 800, outcome: 'COMPLETED' as const },
		{ flowFileName: '/Shared/Flows/b.flow', flowName: 'b', steps: 2, stepMs: 600, outcome: 'ERROR' as const },
		{ flowFileName: '/Shared/Flows/c.flow', flowName: 'c', steps: 3, stepMs: 900, outcome: 'CANCELLED' as const },
		{ flowFileName: '/Shared/Flows/d.flow', flowName: 'd', steps: 2, stepMs: 1000, outcome: 'COMPLETED' as const },
		// Rare and long: hundreds of newer jobs end while it runs, so it ends below the history list's 100.
		{ flowFileName: '/Shared/Flows/e.flow', flowName: 'e', steps: 4, stepMs: 5000, outcome: 'COMPLETED' as const },
	],
};
const LONG_FLOW_SHARE = 0.03;
/** Jobs already finished when both are activated. */
const BEFORE_ACTIVATION = 150;

/** One way of turning polls into events, and its tally. */
interface Contender {
	label: string;
	poll(at: number): Promise<IDataObject[] | undefined>;
	restart(): void;
	storedState(): { entries: number; bytes: number };
	events: Map<string, number>;
	spurious: number;
	duplicated: number;
	failedPolls: number;
	firstFailureAtJob?: number;
	firstFailureAt?: number;
	requests: number;
	polls: number;
	maxStoredBytes: number;
}

function tally(label: string, rest: Pick<Contender, 'poll' | 'restart' | 'storedState'>): Contender {
	return { label, ...rest, events: new Map(), spurious: 0, duplicated: 0, failedPolls: 0, requests: 0, polls: 0, maxStoredBytes: 0 };
}

/** Jobs in the trigger's static data: not yet finished, plus the window of recent finished ones. */
function trackedJobs(stored: IDataObject): number {
	const tracker = ((stored['node:Job Execution Trigger'] ?? {}) as IDataObject).tracker as { open?: object; done?: unknown[] } | undefined;
	return Object.keys(tracker?.open ?? {}).length + (tracker?.done?.length ?? 0);
}

function ourTrigger(url: string): Contender {
	const poller: Poller = createPoller({ authentication: 'jobExecutionApi', triggerOn: 'statuses', statuses: FINAL }, credentialsFor(url));
	return tally('Job Execution Trigger', {
		poll: () => poller.poll().then((items) => (items ?? []).map((item) => item.json), () => undefined),
		restart: () => poller.restart(),
		storedState: () => ({ entries: trackedJobs(poller.storedState()), bytes: JSON.stringify(poller.storedState()).length }),
	});
}

function pollingWorkflow(id: string, url: string): WorkflowDefinition {
	return {
		id,
		nodes: [
			canvasNode('Schedule Trigger', SCHEDULE_TRIGGER, 1.2, { rule: { interval: [{ field: 'seconds', secondsInterval: 30 }] } }),
			httpRequestNode('Get Finished Jobs', 'native', url, 'list'),
			canvasNode('Remove Duplicates', REMOVE_DUPLICATES, 2, {
				operation: 'removeItemsSeenInPreviousExecutions',
				logic: 'removeItemsWithAlreadySeenKeyValues',
				dedupeValue: '={{ $json.id }}',
				options: {},
			}),
		],
		connections: connect([
			['Schedule Trigger', 'Get Finished Jobs'],
			['Get Finished Jobs', 'Remove Duplicates'],
		]),
	};
}

/** What the Schedule Trigger emits when it fires. */
function scheduleItem(at: number): IDataObject {
	const date = new Date(at);
	return { timestamp: date.toISOString(), 'Readable date': date.toUTCString(), Timezone: 'UTC (UTC+00:00)' };
}

function theirWorkflow(label: string, definition: WorkflowDefinition): Contender {
	const credentials = { httpBearerAuth: { token: NATIVE_TOKEN } };
	const dedupeNode = definition.nodes.find((node) => node.type === REMOVE_DUPLICATES)!;
	return tally(label, {
		poll: async (at) => {
			const result = await runWorkflow(definition, { credentials, start: 'Schedule Trigger', items: [scheduleItem(at)], mode: 'trigger' });
			return result.error ? undefined : lastOutput(result, 'Remove Duplicates', 0);
		},
		// The processed-data record is in n8n's database: a restart keeps it.
		restart: () => {},
		storedState: () => ({ entries: processedData.storedEntries(definition.id, dedupeNode.id), bytes: processedData.storedBytes(definition.id, dedupeNode.id) }),
	});
}

interface Churn {
	jobs: number;
	bursts: number;
	largestBurst: number;
	restarts: number;
	longGaps: number;
	polls: number;
	/** Jobs on a list at some poll: the ones any client can know of (the service has no paging). */
	listed: Set<string>;
}

/** One poll of every contender at the same instant, counting requests and events. */
async function pollAll(server: ReferenceServer, clock: ManualClock, contenders: Contender[], known: Set<string>, jobsSoFar: number): Promise<void> {
	for (const contender of contenders) {
		const before = server.stats.requests;
		const items = await contender.poll(clock.now());
		contender.requests += server.stats.requests - before;
		contender.polls++;
		contender.maxStoredBytes = Math.max(contender.maxStoredBytes, contender.storedState().bytes);
		if (items === undefined) {
			contender.failedPolls++;
			contender.firstFailureAtJob ??= jobsSoFar;
			contender.firstFailureAt ??= clock.now();
			continue;
		}
		for (const item of items) {
			const id = String(item.id);
			if (!known.has(id)) contender.spurious++;
			else if (contender.events.has(id)) contender.duplicated++;
			contender.events.set(id, (contender.events.get(id) ?? 0) + 1);
		}
	}
}

async function runChurn(server: ReferenceServer, clock: ManualClock, contenders: Contender[], known: Set<string>): Promise<Churn> {
	const random = mulberry32(SEED);
	const churn: Churn = { jobs: 0, bursts: 0, largestBurst: 0, restarts: 0, longGaps: 0, polls: 0, listed: new Set() };
	const active = () => server.store.list('active').length;
	const poll = async () => {
		churn.polls++;
		for (const job of [...server.store.list('active'), ...server.store.list('history')]) churn.listed.add(job.id);
		await pollAll(server, clock, contenders, known, churn.jobs);
	};
	await poll(); // activation
	while (churn.jobs < JOBS) {
		// A burst over the cap once the previous one drained (under a backlog over 100 a job can stay off both lists).
		const burst = random() < 0.025 && active() < 100;
		const arrivals = Math.min(burst ? 110 + Math.floor(random() * 120) : Math.floor(random() * 26), JOBS - churn.jobs);
		if (burst) {
			churn.bursts++;
			churn.largestBurst = Math.max(churn.largestBurst, arrivals);
		}
		const flows = Array.from({ length: arrivals }, () => (random() < LONG_FLOW_SHARE ? CHURN_CATALOG.flows[4] : CHURN_CATALOG.flows[Math.floor(random() * 4)]));
		for (const flow of flows) {
			known.add((await server.submitJob({ flow: server.catalog.byFileName(flow.flowFileName)!, runProfileName: 'default', notificationEnabled: false, parameters: [] })).job.id);
			churn.jobs++;
		}
		clock.advance(700 + Math.floor(random() * 1100));
		if (random() < 0.04) {
			churn.restarts++;
			for (const contender of contenders) contender.restart();
			// n8n was down a while: more than 100 jobs can end unseen.
			if (active() < 100) {
				churn.longGaps++;
				clock.advance(8000 + Math.floor(random() * 8000));
			}
		}
		await poll();
	}
	for (let i = 0; i < 200 && active() > 0; i++) {
		clock.advance(1000);
		await poll();
	}
	clock.advance(1000);
	await poll();
	return churn;
}

/** Jobs any client could have seen (listed at a poll) that gave no event. */
function missedOf(contender: Contender, known: Set<string>, listed: Set<string>): number {
	let missed = 0;
	for (const id of known) if (listed.has(id) && !contender.events.has(id)) missed++;
	return missed;
}

export async function measureVsPollingWorkflow(): Promise<Figure[]> {
	await loadN8nBaseNodes();
	const clock = new ManualClock();
	const server = await startReferenceServer({
		port: 0,
		clock,
		catalog: CHURN_CATALOG,
		concurrency: 48,
		maxJobs: 2 * JOBS,
		relayApiKey: RELAY_KEY,
		userApiKey: USER_KEY,
		nativeAuth: { type: 'bearer', token: NATIVE_TOKEN },
	});
	try {
		for (let i = 0; i < BEFORE_ACTIVATION; i++) await server.submitJob({ flow: server.catalog.byFileName(CHURN_CATALOG.flows[0].flowFileName)!, runProfileName: 'default', notificationEnabled: false, parameters: [] });
		clock.advance(60_000);
		const ours = ourTrigger(server.url);
		const theirs = theirWorkflow('Schedule → HTTP Request → Remove Duplicates', pollingWorkflow('polling-default', server.url));
		const contenders = [ours, theirs];
		const known = new Set<string>();
		const churn = await runChurn(server, clock, contenders, known);
		const jobs = server.store.all().filter((job) => known.has(job.id));
		const outcomes = FINAL.map((status) => `${jobs.filter((job) => job.outcome === status).length} ${status}`).join(', ');
		const endOf = new Map(jobs.map((job) => [job.id, (job.startTime ?? Infinity) + job.steps * job.stepMs]));
		return buildFigures(contenders, known, churn, outcomes, endOf);
	} finally {
		await server.close();
	}
}

function buildFigures(contenders: Contender[], known: Set<string>, churn: Churn, outcomes: string, endOf: Map<string, number>): Figure[] {
	const [ours, theirs] = contenders;
	const missed = contenders.map((contender) => missedOf(contender, known, churn.listed));
	const neverListed = [...known].filter((id) => !churn.listed.has(id)).length;
	const stuckAt = theirs.firstFailureAt ?? Infinity;
	const missedBeforeStuck = [...known].filter((id) => churn.listed.has(id) && !theirs.events.has(id) && (endOf.get(id) ?? Infinity) < stuckAt).length;
	const perPoll = (c: Contender) => (c.requests / c.polls).toFixed(2);
	const row = (c: Contender, i: number) =>
		`${c.label}: ${c.events.size.toLocaleString('en')} jobs reported, ${missed[i]} missed, ${c.duplicated} duplicated, ${c.spurious} events for jobs that ended before activation, ${c.failedPolls} failed polls` +
		`${c.firstFailureAtJob !== undefined ? ` (every poll from the one after ${c.firstFailureAtJob.toLocaleString('en')} jobs on)` : ''}, ${perPoll(c)} requests per poll, stored state at most ${formatBytes(c.maxStoredBytes)} (${c.storedState().entries.toLocaleString('en')} jobs in it at the end)`;
	return [
		{
			id: 'C1',
			name: `Trigger under churn (${churn.jobs.toLocaleString('en')} jobs): events missed / duplicated, Job Execution Trigger vs Schedule Trigger → HTTP Request → Remove Duplicates`,
			measured: `${missed[0]} / ${ours.duplicated} vs ${missed[1].toLocaleString('en')} / ${theirs.duplicated}`,
			goal: 'ours 0 / 0',
			verdict: verdict(missed[0] === 0 && neverListed === 0 && ours.duplicated === 0 && ours.failedPolls === 0),
			details: [
				`churn: ${churn.jobs.toLocaleString('en')} jobs (${outcomes}), ${churn.bursts} bursts over the lists' cap (largest ${churn.largestBurst}), ${churn.restarts} n8n restarts (${churn.longGaps} after 8–16 s down), ${churn.polls} polls; ${BEFORE_ACTIVATION} jobs had ended before activation; ${neverListed} jobs never on a list at a poll (invisible to any client: not counted as missed)`,
				...contenders.map(row),
			],
		},
		{
			id: 'C2',
			name: '… the polling workflow’s misses: while it worked (lists capped at 100, downtime) / after Remove Duplicates reached its History Size (10,000) and failed every poll',
			measured: `${missedBeforeStuck} / ${(missed[1] - missedBeforeStuck).toLocaleString('en')}`,
			goal: '(context)',
			verdict: 'info',
		},
		{
			id: 'C3',
			name: 'Trigger: events for jobs that had ended before activation, ours vs the polling workflow',
			measured: `${ours.spurious} vs ${theirs.spurious}`,
			goal: 'ours 0',
			verdict: verdict(ours.spurious === 0),
		},
		{
			id: 'C4',
			name: 'Trigger: requests per poll, ours vs the polling workflow',
			measured: `${perPoll(ours)} vs ${perPoll(theirs)}`,
			goal: '(context)',
			verdict: 'info',
		},
		{
			id: 'C5',
			name: 'Trigger: stored state at most, static data vs Remove Duplicates’ processed-data record',
			measured: `${formatBytes(ours.maxStoredBytes)} vs ${formatBytes(theirs.maxStoredBytes)}`,
			goal: '(context)',
			verdict: 'info',
		},
	];
}
