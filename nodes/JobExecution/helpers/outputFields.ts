import type { INodeProperties } from 'n8n-workflow';

import { outputOptionFields, parseLogField, simplifyField } from '../../shared/descriptions';
import { JOB_STATUS_FIELDS } from '../../shared/jobOutput';
import { fromVersion2, version1Only } from '../../shared/versionDisplay';

/**
 * The output fields of an operation that returns a job, per version. Version 1: its Options collection (Parse Log,
 * Simplify off by default). Version 2: Simplify on top, on by default; as an AI tool (n8n's `@tool`) Output with
 * Simplified / Raw / Selected Fields instead, as n8n's UX guidelines ask; Options hold Parse Log and Log as File.
 */
const toolOutputFields: INodeProperties[] = [
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		default: 'simplified',
		options: [
			{ name: 'Simplified', value: 'simplified', description: 'The fields most workflows use: ID, status, outcome, times, progress (from version 2.1 also why a job failed)' },
			{ name: 'Raw', value: 'raw', description: 'Every field the service returns, the whole log included' },
			{ name: 'Selected Fields', value: 'selected', description: 'The job ID and the fields chosen below' },
		],
		displayOptions: { show: { '@tool': [true] } },
	},
	{
		displayName: 'Fields',
		name: 'fields',
		type: 'multiOptions',
		default: [],
		description: 'The fields to add to the output, beside the job ID',
		options: [...JOB_STATUS_FIELDS].sort().map((field) => ({ name: field, value: field })),
		displayOptions: { show: { '@tool': [true], output: ['selected'] } },
	},
];

const logFileFields: INodeProperties[] = [
	{
		displayName: 'Log as File',
		name: 'logAsFile',
		type: 'boolean',
		default: false,
		description: 'Whether to put the job log in a binary property as a text file (job-&lt;ID&gt;.log), ready to attach to a mail, a chat message or storage',
	},
	{
		displayName: 'Put Log File in Field',
		name: 'logFileProperty',
		type: 'string',
		default: 'data',
		description: 'The name of the binary property that holds the log file',
		// Shown only beside Log as File: n8n evaluates an option's displayOptions against its collection's values.
		displayOptions: { show: { logAsFile: [true] } },
	},
];

export function jobOutputFields(extra: { statusOnly?: INodeProperties; logFile: boolean }): INodeProperties[] {
	const options = (fields: INodeProperties[]): INodeProperties => ({ displayName: 'Options', name: 'options', type: 'collection', placeholder: 'Add Option', default: {}, options: fields });
	const before = extra.statusOnly ? [extra.statusOnly] : [];
	return [
		...fromVersion2([{ ...simplifyField, displayOptions: { hide: { '@tool': [true] } } }, ...toolOutputFields]),
		...version1Only([options([...before, ...outputOptionFields])]),
		...fromVersion2([options([...before, parseLogField, ...(extra.logFile ? logFileFields : [])])]),
	];
}
