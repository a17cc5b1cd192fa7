/**
 * The service's Retry-After on the trigger's lists: the trigger pauses until then. The pause is held in the node's
 * static data (what a poll's next run, in n8n's default mode, starts from) and in this process (with durable
 * cursors a poll that fails commits nothing, so the static data forgets it). Polls due before it ends send nothing.
 */
import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { settle } from '../shared/settle';
import type { ResolvedConnection } from '../shared/transport';
import { failureInWords, retryAfterMs } from '../shared/transport';
import { listJobs } from './listedJobs';
import type { Listed, PollBound } from './listedJobs';

/** The end of a pause per trigger in this process: a poll that fails commits nothing with durable cursors. */
const pauses = new Map<string, number>();
const MAX_PAUSED_TRIGGERS = 500;

/**
 * Both lists. A 429/503 with Retry-After pauses the trigger until then: stored, logged, and told where users look:
 * this poll fails with an error saying until when no request is sent, so the pause shows in the executions list and
 * reaches an error workflow.
 */
export async function readLists(
	context: IPollFunctions,
	connection: ResolvedConnection,
	staticData: IDataObject,
	key: string,
	bound: PollBound,
): Promise<{ active: Listed; history: Listed }> {
	// Active first, history second: a job ending in between shows up twice (never zero times).
	const active = await settle(listJobs(context, connection, 'active', bound));
	const history = active.ok ? await settle(listJobs(context, connection, 'history', bound)) : active;
	if (active.ok && history.ok) {
		if (staticData.pausedUntil !== undefined) delete staticData.pausedUntil;
		pauses.delete(key);
		return { active: active.value, history: history.value };
	}
	const error = active.ok ? (history.ok ? undefined : history.error) : active.error;
	const waitMs = retryAfterMs(error);
	if (waitMs === undefined) throw error;
	const until = Date.now() + waitMs;
	staticData.pausedUntil = until;
	pauses.set(key, until);
	if (pauses.size > MAX_PAUSED_TRIGGERS) pauses.delete(pauses.keys().next().value as string);
	const seconds = Math.ceil(waitMs / 1000);
	context.logger.warn(`Job Execution Trigger: ${failureInWords(error)} and asked to wait ${seconds} s (Retry-After): no poll until ${new Date(until).toISOString()}`);
	throw pausedError(context, error, seconds, until);
}

/** The error of the poll that learnt of a pause: what happened, until when, and that nothing is lost. */
function pausedError(context: IPollFunctions, cause: unknown, seconds: number, until: number): NodeOperationError {
	const message = `The service asked the trigger to wait ${seconds} s (Retry-After): no poll until ${new Date(until).toISOString()}`;
	const error = new NodeOperationError(context.getNode(), message, {
		description:
			`${failureInWords(cause)[0].toUpperCase()}${failureInWords(cause).slice(1)}. The trigger sends no request until then and resumes by itself; ` +
			'jobs that change meanwhile fire on the first poll after. To poll less often, raise the trigger\'s poll interval.',
	});
	// n8n replaces messages that hold a code with its own words; this one says when polling resumes.
	error.message = message;
	return error;
}

/** Polls due before the service's Retry-After ends send nothing, with one log line each. */
export function waitingForService(context: IPollFunctions, staticData: IDataObject, key: string, now: number): boolean {
	const stored = staticData.pausedUntil;
	const until = Math.max(typeof stored === 'number' && Number.isFinite(stored) ? stored : 0, pauses.get(key) ?? 0);
	if (until <= now) return false;
	context.logger.warn(`Job Execution Trigger: skipping this poll, the service asked to wait until ${new Date(until).toISOString()} (Retry-After)`);
	return true;
}
