import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from './jobVocabulary';
import type { ApiContext, ApiRequestOptions, ResolvedConnection } from './transport';
import { apiRequest, listCall, MAX_JOBS_PER_LIST } from './transport';
import { toNodeApiError } from './transport/errors';

/**
 * Job lists as every reader takes them (Get Many, the list search, the credential test, the trigger): one request,
 * one shape check, one error when the answer is not a list.
 */

/** The job list in any shape the service may use: an array, or an object wrapping one. Non-object entries are dropped. */
export function asJobArray(body: unknown): IDataObject[] | undefined {
	if (Array.isArray(body)) return body.filter(isPlainObject);
	if (isPlainObject(body)) {
		const arrays = Object.values(body).filter(Array.isArray);
		if (arrays.length === 1) return (arrays[0] as unknown[]).filter(isPlainObject);
	}
	return undefined;
}

/** The first MAX_JOBS_PER_LIST jobs of a list, and how many were left (the service promises at most 100). */
export function firstListed(jobs: IDataObject[]): { jobs: IDataObject[]; left: number } {
	return { jobs: jobs.slice(0, MAX_JOBS_PER_LIST), left: Math.max(0, jobs.length - MAX_JOBS_PER_LIST) };
}

/**
 * Lists all jobs, or the active or finished ones: `jobs` are the listed objects, `listed` the entries the answer held
 * (objects or not). An answer that is no list fails as the transport's failures do ("The service's answer is not a
 * job list"), so the credential test reads it as "answered, but not as a Job Execution Service".
 */
export async function readJobList(
	this: ApiContext,
	connection: ResolvedConnection,
	scope: 'active' | 'history' | undefined,
	options: ApiRequestOptions = {},
): Promise<{ jobs: IDataObject[]; listed: number }> {
	const call = listCall(scope);
	const { body, statusCode } = await apiRequest.call(this, connection, call, options);
	const jobs = asJobArray(body);
	if (jobs === undefined) {
		const failure = { kind: 'unreadable', statusCode, problem: 'is not a job list' } as const;
		throw toNodeApiError(this.getNode(), failure, call, connection, connection.secrets, options.itemIndex);
	}
	return { jobs, listed: Array.isArray(body) ? body.length : jobs.length };
}
