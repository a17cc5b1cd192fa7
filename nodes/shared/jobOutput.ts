import type { IDataObject } from 'n8n-workflow';

import { isParsableLog, MAX_PARSED_LOG_CHARS, parseJobLog } from './logParser';
import { MAX_JOBS_PER_LIST } from './transport/answer';
import { simplifyJob } from './jobSummary';

export interface JobOutputOptions {
	parseLog?: boolean;
	simplify?: boolean;
}

/** A JobStatus as the user asked to see it: raw, with the parsed log beside the raw one, or summarised. */
export function formatJob(job: IDataObject, options: JobOutputOptions): IDataObject {
	const output: IDataObject = options.simplify ? (simplifyJob(job) as unknown as IDataObject) : { ...job };
	if (options.parseLog) {
		const log = job.log;
		if (typeof log === 'string' && log.length > MAX_PARSED_LOG_CHARS) {
			// Kept raw: a bounded log bounds how long one item blocks n8n (the parser is linear, not free).
			output.logParsed = null;
			output.logNotParsed = `The log has ${log.length} characters, more than the ${MAX_PARSED_LOG_CHARS} the node parses: it is kept raw in "log".`;
		} else {
			output.logParsed = isParsableLog(log) ? (parseJobLog(log) as unknown as IDataObject) : null;
		}
	}
	return output;
}

/** The first MAX_JOBS_PER_LIST jobs of a list, and how many were left (the service promises at most 100). */
export function firstListed(jobs: IDataObject[]): { jobs: IDataObject[]; left: number } {
	return { jobs: jobs.slice(0, MAX_JOBS_PER_LIST), left: Math.max(0, jobs.length - MAX_JOBS_PER_LIST) };
}

/** The job list in any shape the service may use: an array, or an object wrapping one. */
export function asJobArray(body: unknown): IDataObject[] | undefined {
	if (Array.isArray(body)) return body.filter(isJobObject);
	if (body && typeof body === 'object') {
		const arrays = Object.values(body).filter(Array.isArray);
		if (arrays.length === 1) return (arrays[0] as unknown[]).filter(isJobObject);
	}
	return undefined;
}

export function isJobObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}
