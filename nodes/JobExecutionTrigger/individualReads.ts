/**
 * Tracked jobs that fell off both capped lists, read one by one within a share of the poll's budget. A failed read
 * never fails the poll: the tracker reads that job again with backoff and gives it up after a stated number of reads.
 */
import type { IPollFunctions } from 'n8n-workflow';

import { isPlainObject, jobIdProblem } from '../shared/jobVocabulary';
import { settle } from '../shared/settle';
import type { ResolvedConnection } from '../shared/transport';
import { apiRequest, failureInWords, isRetryableError, readJobCall, retryAfterMs } from '../shared/transport';
import type { JobSnapshot } from './jobStatusTracker';

/** Stop individual reads when this share of the engine's poll budget is spent. */
const BUDGET_SHARE = 0.5;
/** n8n 1.x gives polls no budget: this bound keeps a poll well inside its minute there. */
const BUDGET_WITHOUT_ENGINE_MS = 60_000;

export interface Reads {
	individual: JobSnapshot[];
	notFound: string[];
	failed: string[];
	/** Why reads failed, in words, for the log line. */
	reasons: string[];
}

/** When the individual reads stop: the poll's deadline, or half the engine's poll budget from now. */
export function readsDeadline(context: IPollFunctions, deadline: number): number {
	const budgetMs = typeof context.getPollBudgetMs === 'function' ? context.getPollBudgetMs() : BUDGET_WITHOUT_ENGINE_MS;
	return Math.min(deadline, Date.now() + budgetMs * BUDGET_SHARE);
}

/** The jobs `ids`, one by one, until `readsEnd`; the rest wait for the next poll. */
export async function readIndividually(context: IPollFunctions, connection: ResolvedConnection, ids: string[], readsEnd: number): Promise<Reads> {
	const reads: Reads = { individual: [], notFound: [], failed: [], reasons: [] };
	for (const id of ids) {
		if (Date.now() >= readsEnd) break;
		// The tracker keeps only readable ids; a state stored before that rule may still hold others: no read can
		// name them, so they count as that job's trouble (given up), never the poll's.
		if (jobIdProblem(id) !== null) {
			reads.notFound.push(id);
			continue;
		}
		// Each read's limit is what is left of the reads' own budget, never the call's: its wall ceiling (three times
		// that) stays inside the poll's, as readsEnd is never past the poll's deadline.
		const read = await settle(Promise.resolve().then(() => apiRequest.call(context, connection, readJobCall(id), { deadline: readsEnd })));
		if (read.ok && isPlainObject(read.value.body)) {
			reads.individual.push(read.value.body as JobSnapshot);
			continue;
		}
		const reason = read.ok ? 'the answer was not a job' : failureInWords(read.error);
		if (!reads.reasons.includes(reason)) reads.reasons.push(reason);
		// The transport's classifier: a failure no retry can fix (unknown job, refused) or a passing one.
		(read.ok || isRetryableError(read.error) ? reads.failed : reads.notFound).push(id);
		// The service asked to wait: the other reads wait for the next poll.
		if (!read.ok && retryAfterMs(read.error) !== undefined) break;
	}
	return reads;
}
