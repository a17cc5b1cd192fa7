import type { IBinaryKeyData, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { JobOutputMode, JobShape } from '../../shared/jobOutput';
import type { SummaryOptions } from '../../shared/jobSummary';
import { VERSION_2_1 } from '../../shared/versionDisplay';
import { formatJob, JOB_STATUS_FIELDS, shapeJob } from '../../shared/jobOutput';
import { nodeTypeName, nodeVersion } from '../../shared/nodeVersion';
import { readableJobId } from '../../shared/jobVocabulary';
import { badParameter, checkBoolean, checkText, itemParameter, readOutputOptions } from './itemParameters';

/** An output item with a file (the log as a file): the router passes it on with its files and its pairedItem. */
export class ItemWithFiles {
	constructor(
		readonly json: IDataObject,
		readonly binary: IBinaryKeyData,
	) {}
}

/** How an item shows a job: the shape of its JSON, Status Only, and where the log goes as a file (version 2). */
export interface JobItemSettings {
	statusOnly: boolean;
	json(job: IDataObject, knownJobId?: string): IDataObject;
	/** The binary property the log goes to as a .log file; none unless asked. */
	logFileProperty?: string;
}

const OUTPUT_MODES: readonly JobOutputMode[] = ['simplified', 'raw', 'selected'];

/** Version 2: Simplify, or for the node used as an AI tool (n8n's "…Tool" variant) Output and its Fields. */
function readShapeMode(context: IExecuteFunctions, itemIndex: number): Pick<JobShape, 'mode' | 'fields'> {
	if (!nodeTypeName(context).endsWith('Tool')) {
		return { mode: checkBoolean(context, itemIndex, 'Simplify', itemParameter(context, 'simplify', itemIndex, true), true) ? 'simplified' : 'raw' };
	}
	const mode = itemParameter(context, 'output', itemIndex, 'simplified') as JobOutputMode;
	if (!OUTPUT_MODES.includes(mode)) throw badParameter(context, itemIndex, `Output must be one of ${OUTPUT_MODES.join(', ')}`);
	const fields = mode === 'selected' ? itemParameter(context, 'fields', itemIndex, []) : [];
	const known = new Set<string>(JOB_STATUS_FIELDS);
	if (!Array.isArray(fields) || fields.some((field) => !known.has(field as string))) {
		throw badParameter(context, itemIndex, `Fields must be among ${JOB_STATUS_FIELDS.join(', ')}`);
	}
	return { mode, fields: fields as string[] };
}

/** Version 2.1's Simplify: times in the workflow's time zone (the zone its filters are read in) and the failure reason. */
function summaryOptions(context: IExecuteFunctions): SummaryOptions | undefined {
	return nodeVersion(context) >= VERSION_2_1 ? { timeZone: context.getTimezone(), failureReason: true } : undefined;
}

/** The item's output settings in its node version: version 1 reads its Options as it always did. */
export function readJobItemSettings(context: IExecuteFunctions, itemIndex: number): JobItemSettings {
	if (nodeVersion(context) < 2) {
		const options = readOutputOptions(context, itemIndex);
		return { statusOnly: options.statusOnly === true, json: (job) => formatJob(job, options) };
	}
	const options = (itemParameter(context, 'options', itemIndex, {}) as IDataObject) ?? {};
	const flag = (name: string, label: string) => checkBoolean(context, itemIndex, `Option ${label}`, options[name], false);
	const shape: JobShape = { ...readShapeMode(context, itemIndex), parseLog: flag('parseLog', 'Parse Log'), summary: summaryOptions(context) };
	const logAsFile = flag('logAsFile', 'Log as File');
	const property = logAsFile ? checkText(context, itemIndex, 'Option Put Log File in Field', options.logFileProperty) || 'data' : undefined;
	return { statusOnly: flag('statusOnly', 'Status Only'), json: (job, knownJobId) => shapeJob(job, shape, knownJobId), logFileProperty: property };
}

/** Characters of the id kept in a log file's name (ids may hold 256): file systems take 255 bytes a name. */
const MAX_FILE_ID_CHARS = 100;

/**
 * Always `job-<safe id>.log`, with no directory, whatever the id holds: n8n's prepareBinaryData takes its second
 * argument as a path (a `/` would set the file's `directory`, `..` climb out of it), so every character but letters,
 * digits, `-` and `_` becomes `_`, dots included, and the id is cut to MAX_FILE_ID_CHARS.
 */
export function logFileName(jobId: string): string {
	const safe = jobId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_FILE_ID_CHARS);
	return safe === '' ? 'job.log' : `job-${safe}.log`;
}

/** The item of one job; with Log as File, the log as a text/plain `.log` file in the chosen binary property. */
export async function jobItem(
	context: IExecuteFunctions,
	settings: JobItemSettings,
	job: IDataObject,
	knownJobId?: string,
): Promise<IDataObject | ItemWithFiles> {
	const json = settings.json(job, knownJobId);
	if (settings.logFileProperty === undefined || typeof job.log !== 'string') return json;
	const file = await context.helpers.prepareBinaryData(Buffer.from(job.log, 'utf8'), logFileName(readableJobId(job) ?? knownJobId ?? ''), 'text/plain');
	return new ItemWithFiles(json, { [settings.logFileProperty]: file });
}
