import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { isParsableLog, parseJobLog } from './logParser';
import { simplifyJob } from './jobSummary';
import { checkBoolean } from '../JobExecution/helpers/itemParameters';

export interface JobOutputOptions {
	parseLog?: boolean;
	simplify?: boolean;
}

const OPTION_LABELS: Record<string, string> = { parseLog: 'Parse Log', simplify: 'Simplify', statusOnly: 'Status Only' };

/** The item's Options collection, each switch checked (an expression giving "yes" is refused, not taken as true). */
export function readOutputOptions(context: IExecuteFunctions, itemIndex: number): JobOutputOptions & { statusOnly?: boolean } {
	const raw = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const options: Record<string, boolean> = {};
	for (const [name, label] of Object.entries(OPTION_LABELS)) {
		options[name] = checkBoolean(context, itemIndex, `Option ${label}`, raw?.[name], false);
	}
	return options;
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
