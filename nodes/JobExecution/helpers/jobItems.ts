import type { IBinaryKeyData, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { JobOutputMode, JobShape } from '../../shared/jobOutput';
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

/** The item's output settings in its node version: version 1 reads its Options as it always did. */
export function readJobItemSettings(context: IExecuteFunctions, itemIndex: number): JobItemSettings {
	if (nodeVersion(context) < 2) {
		const options = readOutputOptions(context, itemIndex);
		return { statusOnly: options.statusOnly === true, json: (job) => formatJob(job, options) };
	}
	const options = (itemParameter(context, 'options', itemIndex, {}) as IDataObject) ?? {};
	const flag = (name: string, label: string) => checkBoolean(context, itemIndex, `Option ${label}`, options[name], false);
	const shape: JobShape = { ...readShapeMode(context, itemIndex), parseLog: flag('parseLog', 'Parse Log') };
	const logAsFile = flag('logAsFile', 'Log as File');
	const property = logAsFile ? checkText(context, itemIndex, 'Option Put Log File in Field', options.logFileProperty) || 'data' : undefined;
	return { statusOnly: flag('statusOnly', 'Status Only'), json: (job, knownJobId) => shapeJob(job, shape, knownJobId), logFileProperty: property };
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
	const jobId = readableJobId(job) ?? knownJobId ?? 'job';
	const file = await context.helpers.prepareBinaryData(Buffer.from(job.log, 'utf8'), `job-${jobId}.log`, 'text/plain');
	return new ItemWithFiles(json, { [settings.logFileProperty]: file });
}
