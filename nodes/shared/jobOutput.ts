import type { IDataObject } from 'n8n-workflow';

import { isParsableLog, parseJobLog } from './logParser';
import { simplifyJob } from './jobSummary';

export interface JobOutputOptions {
	parseLog?: boolean;
	simplify?: boolean;
}

/** A JobStatus as the user asked to see it: raw, with the parsed log beside the raw one, or summarised. */
export function formatJob(job: IDataObject, options: JobOutputOptions): IDataObject {
	const output: IDataObject = options.simplify ? (simplifyJob(job) as unknown as IDataObject) : { ...job };
	if (options.parseLog) {
		output.logParsed = isParsableLog(job.log) ? (parseJobLog(job.log) as unknown as IDataObject) : null;
	}
	return output;
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
