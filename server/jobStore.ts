// Jobs and their simulated lifecycle. No timers: advance(now) replays, in time order, every event
// (job end, queued job start) up to the clock's time, on each request.
import { randomUUID } from 'crypto';

import type { Outcome, ResolvedFlow } from './catalog';
import type { Clock } from './clock';
import { formatElapsed, formatRuntime, formatTimestamp } from './formats';
import { buildJobLog } from './jobLog';

export type ExecutionStatus = 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'ERROR' | 'CANCELLED';
export type ListFilter = 'active' | 'history';

export interface JobParameter {
	name: string;
	type: 'string' | 'integer' | 'float';
	value: string;
}

// Everything needed to rebuild a job: this is what the data file holds.
export interface StoredJob {
	id: string;
	seq: number;
	submittedAt: number;
	flowFileName: string;
	flowId: string;
	flowName: string;
	runProfileName: string;
	notificationEnabled: boolean;
	parameters: JobParameter[];
	steps: number;
	stepMs: number;
	outcome: Outcome;
	nodes?: string[];
	reason?: string;
	startTime: number | null;
}

// The 20 fields of the spec, in the spec's order.
export interface JobStatus {
	id: string;
	jobType: 'RUNPROFILE';
	flowName: string;
	runProfileName: string;
	jobName: string;
	startTime: number | null;
	endTime: number | null;
	executionStatus: ExecutionStatus;
	log: string | null;
	executionPerformanceReport: null;
	error: null;
	currentStepId: string;
	currentStepDescription: string;
	currentStepStartTime: number | null;
	currentStepStatus: 'RUNNING' | 'COMPLETED';
	runProfile: string;
	runtimeFormatted: string;
	startTimeFormatted: string;
	endTimeFormatted: string;
	currentStepElapsedTime: string;
}

export interface SubmitInput {
	flow: ResolvedFlow;
	runProfileName: string;
	notificationEnabled: boolean;
	parameters: JobParameter[];
}

export interface JobStoreOptions {
	clock: Clock;
	stepMs?: number;
	concurrency?: number;
	maxJobs?: number;
}

export const LIST_CAP = 100;

interface Job extends StoredJob {
	log?: string;
}

function endOf(job: StoredJob): number | null {
	return job.startTime === null ? null : job.startTime + job.steps * job.stepMs;
}

export class JobStore {
	readonly clock: Clock;
	readonly stepMs: number;
	readonly concurrency: number;
	readonly maxJobs: number;
	private readonly byId = new Map<string, Job>();
	// Submission order (ascending seq).
	private order: Job[] = [];
	private running = new Set<Job>();
	private queue: Job[] = [];
	private nextSeq = 1;
	private processedUntil = -Infinity;

	constructor(options: JobStoreOptions) {
		this.clock = options.clock;
		this.stepMs = options.stepMs ?? 1000;
		this.concurrency = options.concurrency ?? 4;
		this.maxJobs = options.maxJobs ?? 10000;
		if (!Number.isInteger(this.stepMs) || this.stepMs < 1) throw new Error('stepMs must be a positive integer');
		if (!Number.isInteger(this.concurrency) || this.concurrency < 1) throw new Error('concurrency must be a positive integer');
		if (!Number.isInteger(this.maxJobs) || this.maxJobs < 1) throw new Error('maxJobs must be a positive integer');
	}

	// Replays job ends up to `now`; each end hands its slot to the earliest queued job at that exact time.
	advance(now: number = this.clock.now()): void {
		for (;;) {
			let next: Job | undefined;
			let nextEnd = Infinity;
			for (const job of this.running) {
				const end = endOf(job) as number;
				if (end < nextEnd || (end === nextEnd && next !== undefined && job.seq < next.seq)) {
					next = job;
					nextEnd = end;
				}
			}
			if (next === undefined || nextEnd > now) break;
			this.running.delete(next);
			this.fillSlots(nextEnd);
		}
		// Free slots can exist after a restore with queued jobs; they start now.
		this.fillSlots(Math.max(now, this.processedUntil));
		this.processedUntil = Math.max(this.processedUntil, now);
	}

	private fillSlots(at: number): void {
		while (this.running.size < this.concurrency && this.queue.length > 0) {
			const job = this.queue.shift() as Job;
			job.startTime = at;
			this.running.add(job);
		}
	}

	// Adds a job; `started` tells whether it runs at once (200) or waits in the queue (202).
	submit(input: SubmitInput): { job: StoredJob; started: boolean } {
		const now = this.clock.now();
		this.advance(now);
		const job: Job = {
			id: randomUUID(),
			seq: this.nextSeq++,
			submittedAt: now,
			flowFileName: input.flow.flowFileName,
			flowId: input.flow.flowId,
			flowName: input.flow.flowName,
			runProfileName: input.runProfileName,
			notificationEnabled: input.notificationEnabled,
			parameters: input.parameters.map((p) => ({ ...p })),
			steps: input.flow.steps,
			stepMs: input.flow.stepMs ?? this.stepMs,
			outcome: input.flow.outcome,
			nodes: input.flow.nodes,
			reason: input.flow.reason,
			startTime: null,
		};
		this.byId.set(job.id, job);
		this.order.push(job);
		let started = false;
		if (this.running.size < this.concurrency && this.queue.length === 0) {
			job.startTime = now;
			this.running.add(job);
			started = true;
		} else {
			this.queue.push(job);
		}
		this.evict(now);
		return { job, started };
	}

	// Retention: beyond maxJobs, the oldest terminal jobs go first (queued and running jobs are kept). The scan
	// stops once enough are gone: a submission then costs one removal near the front, not a pass over every job.
	private evict(now: number): void {
		let excess = this.order.length - this.maxJobs;
		for (let i = 0; excess > 0 && i < this.order.length; i++) {
			const job = this.order[i];
			if (!this.isTerminal(job, now)) continue;
			this.byId.delete(job.id);
			// shift() at the front is constant time in V8 (splice copies the rest of the array).
			if (i === 0) this.order.shift();
			else this.order.splice(i, 1);
			i--;
			excess--;
		}
	}

	private isTerminal(job: StoredJob, now: number): boolean {
		const end = endOf(job);
		return end !== null && end <= now && !this.running.has(job as Job);
	}

	// Undo a submission (used when persisting it failed).
	remove(id: string): void {
		const job = this.byId.get(id);
		if (!job) return;
		this.byId.delete(id);
		this.order = this.order.filter((j) => j !== job);
		this.running.delete(job);
		this.queue = this.queue.filter((j) => j !== job);
		this.advance();
	}

	has(id: string): boolean {
		return this.byId.has(id);
	}

	count(): number {
		return this.byId.size;
	}

	// Copies of the stored jobs in submission order (tests, persistence).
	all(): StoredJob[] {
		this.advance();
		return this.order.map((job) => {
			const copy: StoredJob = { ...job, parameters: job.parameters.map((p) => ({ ...p })) };
			delete (copy as Job).log;
			return copy;
		});
	}

	status(id: string): JobStatus | undefined {
		const now = this.clock.now();
		this.advance(now);
		const job = this.byId.get(id);
		return job ? this.statusOf(job, now) : undefined;
	}

	// Newest submission first, at most LIST_CAP.
	list(filter?: ListFilter): JobStatus[] {
		const now = this.clock.now();
		this.advance(now);
		const out: JobStatus[] = [];
		for (let i = this.order.length - 1; i >= 0 && out.length < LIST_CAP; i--) {
			const job = this.order[i];
			if (filter !== undefined) {
				const terminal = this.isTerminal(job, now);
				if (filter === 'active' && terminal) continue;
				if (filter === 'history' && !terminal) continue;
			}
			out.push(this.statusOf(job, now));
		}
		return out;
	}

	private statusOf(job: Job, now: number): JobStatus {
		const jobName = `${job.flowName}_${job.runProfileName}`;
		const base = {
			id: job.id,
			jobType: 'RUNPROFILE' as const,
			flowName: job.flowName,
			runProfileName: job.runProfileName,
			jobName,
		};
		const m = job.steps;
		if (job.startTime === null) {
			// QUEUED: not started, so no times; the step fields describe the first step to come.
			return {
				...base,
				startTime: null,
				endTime: null,
				executionStatus: 'QUEUED',
				log: null,
				executionPerformanceReport: null,
				error: null,
				currentStepId: 'Step 1',
				currentStepDescription: `Step 1 (0 of ${m} completed)`,
				currentStepStartTime: null,
				currentStepStatus: 'RUNNING',
				runProfile: jobName,
				runtimeFormatted: '',
				startTimeFormatted: '',
				endTimeFormatted: '',
				currentStepElapsedTime: '0:00:00',
			};
		}
		const start = job.startTime;
		const end = start + m * job.stepMs;
		if (!this.isTerminal(job, now)) {
			const t = Math.max(now, start);
			const n = Math.min(m, Math.floor((t - start) / job.stepMs) + 1);
			const stepStart = start + (n - 1) * job.stepMs;
			return {
				...base,
				startTime: start,
				endTime: null,
				executionStatus: 'RUNNING',
				log: null,
				executionPerformanceReport: null,
				error: null,
				currentStepId: `Step ${n}`,
				currentStepDescription: `Step ${n} (${n - 1} of ${m} completed)`,
				currentStepStartTime: stepStart,
				currentStepStatus: 'RUNNING',
				runProfile: jobName,
				runtimeFormatted: '',
				startTimeFormatted: formatTimestamp(start),
				endTimeFormatted: '',
				currentStepElapsedTime: formatElapsed(t - stepStart),
			};
		}
		if (job.log === undefined) {
			job.log = buildJobLog({
				jobId: job.id,
				jobName,
				flowId: job.flowId,
				flowName: job.flowName,
				flowFileName: job.flowFileName,
				notificationEnabled: job.notificationEnabled,
				parameters: job.parameters,
				steps: m,
				stepMs: job.stepMs,
				outcome: job.outcome,
				startTime: start,
				nodes: job.nodes,
				reason: job.reason,
			});
		}
		return {
			...base,
			startTime: start,
			endTime: end,
			executionStatus: job.outcome,
			log: job.log,
			executionPerformanceReport: null,
			error: null,
			currentStepId: `Step ${m}`,
			currentStepDescription: `Step ${m} (${m})`,
			currentStepStartTime: start + (m - 1) * job.stepMs,
			currentStepStatus: 'COMPLETED',
			runProfile: jobName,
			runtimeFormatted: formatRuntime(end - start),
			startTimeFormatted: formatTimestamp(start),
			endTimeFormatted: formatTimestamp(end),
			currentStepElapsedTime: 'N/A',
		};
	}

	// Rebuilds the state from persisted jobs (submission order by seq).
	restore(jobs: StoredJob[]): void {
		const sorted = [...jobs].sort((a, b) => a.seq - b.seq);
		for (const stored of sorted) {
			const job: Job = { ...stored, parameters: stored.parameters.map((p) => ({ ...p })) };
			this.byId.set(job.id, job);
			this.order.push(job);
			if (job.startTime === null) this.queue.push(job);
			else this.running.add(job);
			this.nextSeq = Math.max(this.nextSeq, job.seq + 1);
		}
		this.advance();
	}
}
