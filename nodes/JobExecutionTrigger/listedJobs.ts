/** The service's two capped lists as the trigger reads them: the jobs, and how many entries were not jobs. */
import type { IPollFunctions } from 'n8n-workflow';

import { readJobList } from '../shared/jobList';
import type { ResolvedConnection } from '../shared/transport';
import type { JobSnapshot } from './jobStatusTracker';

export interface Listed {
	jobs: JobSnapshot[];
	dropped: number;
}

/** The bound of one poll: every request of it ends by `deadline`. */
export interface PollBound {
	deadline: number;
	startedAt: number;
}

export async function listJobs(context: IPollFunctions, connection: ResolvedConnection, filter: 'active' | 'history', bound: PollBound): Promise<Listed> {
	const { jobs, listed } = await readJobList.call(context, connection, filter, bound);
	// Entries that are not objects are dropped by readJobList; the tracker counts and skips the other unreadable ones.
	return { jobs: jobs as JobSnapshot[], dropped: listed - jobs.length };
}
