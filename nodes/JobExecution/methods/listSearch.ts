import type { IDataObject, ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';

import { listFlowChoices, withListErrors } from '../../shared/flowChoices';
import { firstListed, readJobList } from '../../shared/jobList';
import { labelInZone, normalizeStatus, readableJobId, readTimestamp, toMillis } from '../../shared/jobVocabulary';
import type { CredentialType } from '../../shared/transport';
import { getConnection, MAX_JOBS_PER_LIST, NATIVE_CREDENTIAL, RELAY_CREDENTIAL } from '../../shared/transport';

/** The service lists at most 100 jobs per call: the active ones, then the finished ones, as the trigger reads them. */
const LISTS = ['active', 'history'] as const;

interface ListedJob {
	id: string;
	job: IDataObject;
}

/** A listed field for the label: text or a number, at most 100 characters (the answer's strings may be long). */
function text(value: unknown): string {
	const shown = typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
	return shown.length > 100 ? `${shown.slice(0, 100)}…` : shown;
}

/** Newest first: jobs not started yet (queued) lead, then by start time; the service's order breaks ties. */
function startedAt(job: IDataObject): number {
	return toMillis(job.startTime) ?? Number.POSITIVE_INFINITY;
}

/** The start time in the workflow's time zone, its offset said (the zone the time filters read typed times in). */
function toListItem({ id, job }: ListedJob, timeZone: string): INodeListSearchItems {
	const startMs = readTimestamp(job.startTime);
	const started = startMs === null ? 'not started' : labelInZone(startMs, timeZone);
	const parts = [text(job.flowName) || '(no flow name)', text(job.runProfileName) || '(no profile)', normalizeStatus(job.executionStatus) || '?', started];
	return { name: parts.join(' · '), value: id, description: id };
}

function credentialTypeOf(context: ILoadOptionsFunctions): CredentialType {
	const chosen = context.getNodeParameter('authentication', NATIVE_CREDENTIAL);
	return chosen === RELAY_CREDENTIAL ? RELAY_CREDENTIAL : NATIVE_CREDENTIAL;
}

/**
 * "From list" of the Job ID: the recent jobs (up to 100 active and 100 finished), newest first, each showing its
 * flow, run profile, status and start time; the search keeps the jobs whose ID or any of those contain it. A listed
 * job whose id could not name exactly one job is left out.
 */
export async function searchJobs(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	return await withListErrors(async () => await listedJobs(this, filter));
}

async function listedJobs(context: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const connection = await getConnection.call(context, credentialTypeOf(context));
	const byId = new Map<string, ListedJob>();
	for (const scope of LISTS) {
		const listed = await readJobList.call(context, connection, scope);
		const { jobs, left } = firstListed(listed.jobs);
		if (left > 0) context.logger.warn(`Job Execution list search: the ${scope} list held ${listed.jobs.length} jobs; the first ${MAX_JOBS_PER_LIST} are shown, ${left} left out.`);
		// A job that ended between the two reads is in both: the later read is the fresher.
		for (const job of jobs) {
			const id = readableJobId(job);
			if (id !== null) byId.set(id, { id, job });
		}
	}
	const needle = (filter ?? '').trim().toLowerCase();
	const results = [...byId.values()]
		.map((listed, order) => ({ listed, order }))
		.sort((a, b) => startedAt(b.listed.job) - startedAt(a.listed.job) || a.order - b.order)
		.map(({ listed }) => toListItem(listed, context.getTimezone()))
		.filter((item) => needle === '' || `${item.name} ${item.value}`.toLowerCase().includes(needle));
	return { results };
}

/** "From list" of version 2's Flow Name filter: the flow names the service's lists hold. */
export async function searchFlowNames(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	return await listFlowChoices(this, 'flowName', filter);
}

/** "From list" of version 2's Run Profile (Submit) and Run Profile filter: the run profile names the lists hold. */
export async function searchRunProfiles(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	return await listFlowChoices(this, 'runProfileName', filter);
}
