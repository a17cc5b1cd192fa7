// The job's shapes, shared by the store, the status builder, the routes and the data file (no logic here, so
// none of them imports another for a type).
import type { Outcome, ResolvedFlow } from './catalog';

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

// A job as the store holds it: a short log is kept once built (the first read of the finished job).
export interface HeldJob extends StoredJob {
	log?: string;
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
