import type { IDataObject } from 'n8n-workflow';

import { isParsableLog, MAX_PARSED_LOG_CHARS, parseJobLog } from './logParser';
import { simplifyJob } from './jobSummary';
import { LIST_CUT_FIELD } from './transport/listReader';

/** Whether a listed job's log was cut by the list reader (a list too large to keep whole): its end is missing. */
function logCutInList(job: IDataObject): boolean {
	const fields = (job[LIST_CUT_FIELD] as { fields?: unknown } | undefined)?.fields;
	return Array.isArray(fields) && fields.includes('log');
}

export interface JobOutputOptions {
	parseLog?: boolean;
	simplify?: boolean;
}

/** A JobStatus as the user asked to see it: raw, with the parsed log beside the raw one, or summarised. */
export function formatJob(job: IDataObject, options: JobOutputOptions): IDataObject {
	const output: IDataObject = options.simplify ? simplifyJob(job) : { ...job };
	if (options.parseLog) {
		const log = job.log;
		if (logCutInList(job)) {
			// Its end (the results and the final status) is cut: a partial parse would look like a job that never finished.
			output.logParsed = null;
			output.logNotParsed = `The log was cut in the job list (see "${LIST_CUT_FIELD}"): read the job by its ID (Get) to parse its log whole.`;
		} else if (typeof log === 'string' && log.length > MAX_PARSED_LOG_CHARS) {
			// Kept raw: a bounded log bounds how long one item blocks n8n (the parser is linear, not free).
			output.logParsed = null;
			output.logNotParsed = `The log has ${log.length} characters, more than the ${MAX_PARSED_LOG_CHARS} the node parses: it is kept raw in "log".`;
		} else {
			output.logParsed = isParsableLog(log) ? parseJobLog(log) : null;
		}
	}
	return output;
}
