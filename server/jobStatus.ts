// The JobStatus of a job at a moment: pure, from the stored job and its start time.
import { formatElapsed, formatRuntime, formatTimestamp } from './formats';
import { buildJobLog } from './jobLog';
import type { HeldJob, JobStatus } from './jobTypes';

// A log is kept on its job once built unless the job's parameters are large: the log's parameter table would
// hold each of them a second time (a store full of jobs at the parameter limit would need twice its stored
// bytes). Those logs go to a cache of the most recently read, bounded in characters.
const KEPT_PARAMETER_CHARS = 4096;
export const LOG_CACHE_CHARS = 32 * 1024 * 1024;

export class LogCache {
	private readonly logs = new Map<HeldJob, string>();
	private chars = 0;

	constructor(private readonly maxChars: number = LOG_CACHE_CHARS) {}

	get(job: HeldJob): string | undefined {
		const log = this.logs.get(job);
		if (log !== undefined) {
			// Most recently read last: Map keeps insertion order.
			this.logs.delete(job);
			this.logs.set(job, log);
		}
		return log;
	}

	delete(job: HeldJob): void {
		const log = this.logs.get(job);
		if (log === undefined) return;
		this.logs.delete(job);
		this.chars -= log.length;
	}

	set(job: HeldJob, log: string): void {
		if (log.length > this.maxChars) return;
		this.logs.set(job, log);
		this.chars += log.length;
		for (const [oldest, text] of this.logs) {
			if (this.chars <= this.maxChars) break;
			this.logs.delete(oldest);
			this.chars -= text.length;
		}
	}
}

function parameterChars(job: HeldJob): number {
	let chars = 0;
	for (const p of job.parameters) chars += p.name.length + p.value.length;
	return chars;
}

export function endOf(job: { startTime: number | null; steps: number; stepMs: number }): number | null {
	return job.startTime === null ? null : job.startTime + job.steps * job.stepMs;
}

function logOf(job: HeldJob, jobName: string, cache: LogCache | undefined): string {
	const known = job.log ?? cache?.get(job);
	if (known !== undefined) return known;
	const log = buildJobLog({
		jobId: job.id,
		jobName,
		flowId: job.flowId,
		flowName: job.flowName,
		flowFileName: job.flowFileName,
		notificationEnabled: job.notificationEnabled,
		parameters: job.parameters,
		steps: job.steps,
		stepMs: job.stepMs,
		outcome: job.outcome,
		startTime: job.startTime as number,
		nodes: job.nodes,
		reason: job.reason,
	});
	if (parameterChars(job) <= KEPT_PARAMETER_CHARS) job.log = log;
	else cache?.set(job, log);
	return log;
}

type Phase = Pick<
	JobStatus,
	| 'startTime' | 'endTime' | 'executionStatus' | 'log' | 'currentStepId' | 'currentStepDescription' | 'currentStepStartTime'
	| 'currentStepStatus' | 'runtimeFormatted' | 'startTimeFormatted' | 'endTimeFormatted' | 'currentStepElapsedTime'
>;

// The fields that depend on where the job is in its life: QUEUED (no times; the step fields describe the first
// step to come), RUNNING (step n of m), or its outcome.
function phaseOf(job: HeldJob, jobName: string, now: number, cache: LogCache | undefined): Phase {
	const m = job.steps;
	const start = job.startTime;
	if (start === null) {
		return {
			startTime: null, endTime: null, executionStatus: 'QUEUED', log: null,
			currentStepId: 'Step 1', currentStepDescription: `Step 1 (0 of ${m} completed)`, currentStepStartTime: null,
			currentStepStatus: 'RUNNING', runtimeFormatted: '', startTimeFormatted: '', endTimeFormatted: '', currentStepElapsedTime: '0:00:00',
		};
	}
	const end = start + m * job.stepMs;
	if (end > now) {
		const t = Math.max(now, start);
		const n = Math.min(m, Math.floor((t - start) / job.stepMs) + 1);
		const stepStart = start + (n - 1) * job.stepMs;
		return {
			startTime: start, endTime: null, executionStatus: 'RUNNING', log: null,
			currentStepId: `Step ${n}`, currentStepDescription: `Step ${n} (${n - 1} of ${m} completed)`, currentStepStartTime: stepStart,
			currentStepStatus: 'RUNNING', runtimeFormatted: '', startTimeFormatted: formatTimestamp(start), endTimeFormatted: '',
			currentStepElapsedTime: formatElapsed(t - stepStart),
		};
	}
	return {
		startTime: start, endTime: end, executionStatus: job.outcome, log: logOf(job, jobName, cache),
		currentStepId: `Step ${m}`, currentStepDescription: `Step ${m} (${m})`, currentStepStartTime: start + (m - 1) * job.stepMs,
		currentStepStatus: 'COMPLETED', runtimeFormatted: formatRuntime(end - start), startTimeFormatted: formatTimestamp(start),
		endTimeFormatted: formatTimestamp(end), currentStepElapsedTime: 'N/A',
	};
}

// The 20 fields of the spec, in the spec's order, built once.
export function statusOf(job: HeldJob, now: number, cache?: LogCache): JobStatus {
	const jobName = `${job.flowName}_${job.runProfileName}`;
	const p = phaseOf(job, jobName, now, cache);
	return {
		id: job.id,
		jobType: 'RUNPROFILE',
		flowName: job.flowName,
		runProfileName: job.runProfileName,
		jobName,
		startTime: p.startTime,
		endTime: p.endTime,
		executionStatus: p.executionStatus,
		log: p.log,
		executionPerformanceReport: null,
		error: null,
		currentStepId: p.currentStepId,
		currentStepDescription: p.currentStepDescription,
		currentStepStartTime: p.currentStepStartTime,
		currentStepStatus: p.currentStepStatus,
		runProfile: jobName,
		runtimeFormatted: p.runtimeFormatted,
		startTimeFormatted: p.startTimeFormatted,
		endTimeFormatted: p.endTimeFormatted,
		currentStepElapsedTime: p.currentStepElapsedTime,
	};
}
