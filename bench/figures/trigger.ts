/**
 * Figure 4: the trigger. Requests per poll and CPU per poll through n8n's PollContext against the server in its
 * own process; static-data size and time per poll over 1,000,000 jobs by driving the pure state module.
 */
import { computeEvents, jobsToReadIndividually, loadState } from '../../nodes/JobExecutionTrigger/jobStatusTracker';
import type { JobSnapshot, TrackerOptions, TrackerState } from '../../nodes/JobExecutionTrigger/jobStatusTracker';
import { credentialsFor } from '../../testkit/fixtures';
import { createPoller } from '../../testkit/poller';
import { BENCH_CATALOG, HOUR_FLOW, INSTANT_FLOW } from '../lib/catalog';
import type { Figure } from '../lib/figure';
import { verdict } from '../lib/figure';
import { rawClient, submitJobs } from '../lib/rawClient';
import { startRecordingFront } from '../../testkit/recordingFront';
import { startServerProcess } from '../lib/serverProcess';
import { formatBytes, median, medianRatio, timeSyncMs } from '../lib/stats';

const MAX_READS = 25; // the trigger's default Max Individual Reads per Poll
const STATE_GOAL_BYTES = 64 * 1024;
const FLAT_GOAL = 1.25;
const TRIGGER_PARAMETERS = { authentication: 'jobExecutionApi', triggerOn: 'anyChange' };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** 100 finished jobs, then 100 running ones. */
async function fillServer(url: string): Promise<void> {
	const client = rawClient(url);
	await submitJobs(client, 100, INSTANT_FLOW);
	await pause(100);
	await submitJobs(client, 100, HOUR_FLOW);
}

async function requestsPerPoll(): Promise<Figure> {
	const server = await startServerProcess({ catalog: BENCH_CATALOG, concurrency: 10_000, stepMs: 1 });
	const front = await startRecordingFront(server.url);
	try {
		await fillServer(server.url);
		const poller = createPoller(TRIGGER_PARAMETERS, credentialsFor(front.url));
		await poller.poll(); // baseline: every job tracked
		const countPoll = async () => {
			front.requests.length = 0;
			await poller.poll();
			const lists = front.requests.filter((r) => r.path.includes('?filter=')).length;
			const individual = front.requests.filter((r) => !r.path.includes('?filter=')).map((r) => decodeURIComponent(r.path.split('/').pop() as string));
			return { lists, individual };
		};
		const steady = await countPoll();
		// 100 newer running jobs push the tracked ones off the active list (capped at 100, newest first).
		const activeNow = await rawClient(server.url).get('/api/v1/jobs?filter=active');
		const tracked = new Set((activeNow.data as Array<{ id: string }>).map((job) => job.id));
		await submitJobs(rawClient(server.url), 100, HOUR_FLOW);
		const pushedOff = await countPoll();
		const next = await countPoll();
		const onlyTracked = [...pushedOff.individual, ...next.individual].every((id) => tracked.has(id));
		const rotated = new Set([...pushedOff.individual, ...next.individual]).size === pushedOff.individual.length + next.individual.length;
		const ok =
			steady.lists === 2 && steady.individual.length === 0 && pushedOff.lists === 2 && pushedOff.individual.length === MAX_READS && onlyTracked && rotated;
		return {
			id: '4a',
			name: 'Trigger: requests per poll, 100 active + 100 finished jobs',
			measured: `${steady.lists} lists + ${steady.individual.length} reads; with 100 tracked jobs off the lists: ${pushedOff.lists} + ${pushedOff.individual.length}`,
			goal: `≤ 2 lists + reads only of tracked jobs off the lists (≤ ${MAX_READS})`,
			verdict: verdict(ok),
			details: [
				`off-list polls read ${pushedOff.individual.length} then ${next.individual.length} jobs, ${onlyTracked ? 'all' : 'NOT all'} tracked and off the lists, ${rotated ? 'none twice' : 'some twice'} (rotation)`,
			],
		};
	} finally {
		await front.close();
		await server.stop();
	}
}

/** CPU time of the bench process (n8n's PollContext, the HTTP client, JSON, our poll) for one poll, in ms. */
async function pollCpuMs(poller: ReturnType<typeof createPoller>): Promise<number> {
	const before = process.cpuUsage();
	await poller.poll();
	const used = process.cpuUsage(before);
	return (used.user + used.system) / 1000;
}

/**
 * Two services side by side: one with 200 jobs, one through which 10,200 jobs went while its trigger polled
 * (so its state holds a full window of finished jobs). Polls alternate between them: a ratio from one time span.
 */
async function pollCpu(): Promise<Figure[]> {
	const [small, large] = await Promise.all([0, 1].map(() => startServerProcess({ catalog: BENCH_CATALOG, concurrency: 10_000, stepMs: 1 })));
	try {
		await Promise.all([fillServer(small.url), fillServer(large.url)]);
		const smallPoller = createPoller(TRIGGER_PARAMETERS, credentialsFor(small.url));
		const largePoller = createPoller(TRIGGER_PARAMETERS, credentialsFor(large.url));
		await smallPoller.poll();
		await largePoller.poll();
		const client = rawClient(large.url);
		for (let chunk = 0; chunk < 100; chunk++) {
			await Promise.all(Array.from({ length: 4 }, () => submitJobs(client, 25, INSTANT_FLOW)));
			await pause(5);
			await largePoller.poll();
		}
		const smallCpu: number[] = [];
		const largeCpu: number[] = [];
		const wall: number[] = [];
		for (let round = 0; round < 60; round++) {
			const start = process.hrtime.bigint();
			const a = await pollCpuMs(smallPoller);
			wall.push(Number(process.hrtime.bigint() - start) / 1e6);
			const b = await pollCpuMs(largePoller);
			// The first rounds warm the JIT up.
			if (round >= 20) {
				smallCpu.push(a);
				largeCpu.push(b);
			}
		}
		const ratio = medianRatio(largeCpu, smallCpu);
		const stateBytes = JSON.stringify(largePoller.storedState()).length;
		return [
			{
				id: '4b',
				name: 'Trigger: CPU time of one poll (n8n PollContext + HTTP + our code), 100 active + 100 finished',
				measured: `${median(smallCpu).toFixed(1)} ms CPU (${median(wall.slice(20)).toFixed(1)} ms wall)`,
				goal: '(context)',
				verdict: 'info',
			},
			{
				id: '4c',
				name: 'Trigger: CPU per poll after 10,200 jobs went through the service / with 200',
				measured: `${ratio.toFixed(2)}× (${median(largeCpu).toFixed(1)} ms vs ${median(smallCpu).toFixed(1)} ms)`,
				goal: `flat (≤ ${FLAT_GOAL}×)`,
				verdict: verdict(ratio <= FLAT_GOAL),
				details: [`static data of the trigger after the 10,200 jobs: ${formatBytes(stateBytes)}`],
			},
		];
	} finally {
		await Promise.all([small.stop(), large.stop()]);
	}
}

/** Job ids shaped like the service's (UUIDs), from a counter. */
function jobIdOf(n: number): string {
	const hex = n.toString(16).padStart(12, '0');
	return `5e1f0c2a-7b3d-4e8f-9a6b-${hex}`;
}

interface RecordedPoll {
	stored: unknown;
	active: JobSnapshot[];
	history: JobSnapshot[];
}

const STATE_OPTIONS: TrackerOptions = { watch: ['COMPLETED', 'ERROR', 'CANCELLED'], startFrom: 'now' };

/** What the trigger's poll does with the service's answers: load the state, pick reads, compute events. */
function pollWork(poll: RecordedPoll): { state: TrackerState; events: number } {
	const state = loadState(poll.stored);
	if (jobsToReadIndividually(state, poll.active, poll.history, MAX_READS).length > 0) throw new Error('unexpected individual reads');
	const result = computeEvents(state, { active: poll.active, history: poll.history }, STATE_OPTIONS);
	return { state: result.state, events: result.events.length };
}

/**
 * 1,000,000 jobs through the pure module, 50 per poll: at poll k, batch k is queued, k-1 running, k-2 and
 * k-3 finished (both lists full at 100, newest first), as a busy service shows them. The polls at 10,000
 * and 1,000,000 jobs are kept to be timed side by side afterwards.
 */
function driveStateModule(totalJobs: number, keepAt: number[]) {
	const batch = 50;
	const polls = totalJobs / batch + 3;
	const t0 = Date.UTC(2026, 10, 21);
	const snapshot = (n: number, status: string, poll: number): JobSnapshot => ({
		id: jobIdOf(n),
		executionStatus: status,
		flowName: 'sales',
		runProfileName: 'default',
		startTime: status === 'QUEUED' ? null : t0 + poll * 1000,
		endTime: status === 'COMPLETED' ? t0 + poll * 1000 + (n % batch) : null,
	});
	const batchOf = (k: number, status: string, poll: number): JobSnapshot[] => {
		if (k < 0 || k * batch >= totalJobs) return [];
		const jobs: JobSnapshot[] = [];
		for (let n = (k + 1) * batch - 1; n >= k * batch; n--) jobs.push(snapshot(n, status, poll));
		return jobs;
	};
	let stored: unknown = undefined;
	let events = 0;
	let maxBytes = 0;
	const kept: Record<number, RecordedPoll> = {};
	for (let k = 0; k < polls; k++) {
		const poll: RecordedPoll = {
			stored,
			active: [...batchOf(k, 'QUEUED', k), ...batchOf(k - 1, 'RUNNING', k)],
			history: [...batchOf(k - 2, 'COMPLETED', k - 1), ...batchOf(k - 3, 'COMPLETED', k - 2)],
		};
		if (keepAt.includes(k * batch)) kept[k * batch] = poll;
		const result = pollWork(poll);
		events += result.events;
		stored = result.state;
		if (k % 1000 === 0 || k === polls - 1) maxBytes = Math.max(maxBytes, JSON.stringify(stored).length);
	}
	return { events, finalBytes: JSON.stringify(stored).length, maxBytes, kept };
}

function stateModule(): Figure[] {
	const total = 1_000_000;
	const early = 10_000;
	const late = total - 50;
	const run = driveStateModule(total, [early, late]);
	// The same two polls, repeated alternately: both timed under the same machine load.
	const times = { early: [] as number[], late: [] as number[] };
	for (let round = 0; round < 400; round++) {
		times.early.push(timeSyncMs(() => pollWork(run.kept[early])));
		times.late.push(timeSyncMs(() => pollWork(run.kept[late])));
	}
	const ratio = medianRatio(times.late.slice(100), times.early.slice(100));
	return [
		{
			id: '4d',
			name: 'Trigger: static-data size after 1,000,000 jobs (pure state module)',
			measured: `${formatBytes(run.finalBytes)} (max sampled ${formatBytes(run.maxBytes)})`,
			goal: `≤ ${formatBytes(STATE_GOAL_BYTES)}`,
			verdict: verdict(run.maxBytes <= STATE_GOAL_BYTES && run.finalBytes <= STATE_GOAL_BYTES),
			details: [`${run.events.toLocaleString('en')} events for ${total.toLocaleString('en')} jobs (one per job: the COMPLETED status)`],
		},
		{
			id: '4e',
			name: 'Trigger: state-module time of a poll at 1,000,000 jobs / at 10,000',
			measured: `${ratio.toFixed(2)}× (${(median(times.late.slice(100)) * 1000).toFixed(0)} µs vs ${(median(times.early.slice(100)) * 1000).toFixed(0)} µs)`,
			goal: `flat (≤ ${FLAT_GOAL}×)`,
			verdict: verdict(ratio <= FLAT_GOAL && run.events === total),
		},
	];
}

export async function measureTrigger(): Promise<Figure[]> {
	return [await requestsPerPoll(), ...(await pollCpu()), ...stateModule()];
}
