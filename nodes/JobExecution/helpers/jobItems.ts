import type { IBinaryKeyData, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { JobOutputMode, JobShape } from '../../shared/jobOutput';
import type { SummaryOptions } from '../../shared/jobSummary';
import { VERSION_2_1 } from '../../shared/versionDisplay';
import { formatJob, JOB_STATUS_FIELDS, shapeJob } from '../../shared/jobOutput';
import { nodeTypeName, nodeVersion } from '../../shared/nodeVersion';
import { isKnownZone, readableJobId } from '../../shared/jobVocabulary';
import { hintOnce } from './hints';
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
	/** The file's name for a job id: version 2's rule, or 2.1's, which never gives two jobs one name. */
	logFileName?: (jobId: string) => string;
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

/**
 * Version 2.1's Simplify and Parse Log: times in the workflow's time zone (the zone its filters are read in), and the
 * failure reason. A zone Intl does not know is said once, not silently read as UTC.
 */
function summaryOptions(context: IExecuteFunctions): SummaryOptions | undefined {
	if (nodeVersion(context) < VERSION_2_1) return undefined;
	const timeZone = context.getTimezone();
	if (!isKnownZone(timeZone)) {
		hintOnce(context, {
			type: 'warning',
			location: 'outputPane',
			message: `The workflow's time zone "${timeZone}" is not one this n8n knows: times are shown in UTC (+00:00). Set the time zone in the workflow's settings.`,
		});
	}
	return { timeZone, failureReason: true };
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
	const fileName = nodeVersion(context) >= VERSION_2_1 ? distinctLogFileName : logFileName;
	return { statusOnly: flag('statusOnly', 'Status Only'), json: (job, knownJobId) => shapeJob(job, shape, knownJobId), logFileProperty: property, logFileName: fileName };
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

/**
 * A short hash of the whole id (cyrb53: 53 bits, as base36): what tells apart two ids whose safe names are the same.
 * Pure arithmetic, linear in the id (at most 256 characters).
 */
function idHash(id: string): string {
	let h1 = 0xdeadbeef;
	let h2 = 0x41c6ce57;
	for (let i = 0; i < id.length; i++) {
		const c = id.charCodeAt(i);
		h1 = Math.imul(h1 ^ c, 2654435761);
		h2 = Math.imul(h2 ^ c, 1597334677);
	}
	h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
	h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
	return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36).padStart(11, '0');
}

/**
 * Version 2.1's name: `job-<id>.log` when the id is its own safe name, else `job-<safe id>.<hash>.log`, the hash of the
 * whole id. Safe names hold no dot, so a changed or cut id never takes an unchanged one's name (`q3/payroll` is
 * `job-q3_payroll.<hash>.log`, `q3_payroll` stays `job-q3_payroll.log`), and two changed ids share a name only if they
 * share the safe prefix and the 53-bit hash.
 */
export function distinctLogFileName(jobId: string): string {
	const name = logFileName(jobId);
	return jobId === '' || name === `job-${jobId}.log` ? name : `${name.slice(0, -'.log'.length)}.${idHash(jobId)}.log`;
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
	const name = (settings.logFileName ?? logFileName)(readableJobId(job) ?? knownJobId ?? '');
	const file = await context.helpers.prepareBinaryData(Buffer.from(job.log, 'utf8'), name, 'text/plain');
	return new ItemWithFiles(json, { [settings.logFileProperty]: file });
}
