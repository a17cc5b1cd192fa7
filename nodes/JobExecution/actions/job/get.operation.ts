import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OperationOption } from '../registry';
import { extractExecutionStatus } from '../../../shared/jobStatusBody';
import { formatJob } from '../../../shared/jobOutput';
import { isPlainObject } from '../../../shared/jobVocabulary';
import { batchingFields, readConcurrency } from '../../helpers/batching';
import { readOutputOptions } from '../../helpers/itemParameters';
import type { ResolvedConnection } from '../../../shared/transport';
import { apiRequest, readJobCall } from '../../../shared/transport';
import { jobIdField, outputOptionFields } from '../../../shared/descriptions';
import { readJobId } from './jobId';

export const properties: INodeProperties[] = [
	jobIdField,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Status Only',
				name: 'statusOnly',
				type: 'boolean',
				default: false,
				description: 'Whether to read only the execution status (a lighter request): the output is { ID, executionStatus }',
			},
			...outputOptionFields,
		],
	},
	...batchingFields('are read'),
];

export const option: OperationOption<'get'> = { name: 'Get', value: 'get', description: 'Get the status of a job', action: 'Get a job' };

/** Reads change nothing, so items may read side by side. */
export const concurrency = readConcurrency;

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	connection: ResolvedConnection,
): Promise<IDataObject> {
	const jobId = readJobId(this, itemIndex);
	const options = readOutputOptions(this, itemIndex);
	if (options.statusOnly) {
		const { body } = await apiRequest.call(this, connection, readJobCall(jobId, true), { itemIndex });
		const executionStatus = extractExecutionStatus(body);
		if (executionStatus === null) {
			throw new NodeOperationError(this.getNode(), `The service answered with no execution status for job ${jobId}`, { itemIndex });
		}
		return { id: jobId, executionStatus };
	}
	const { body } = await apiRequest.call(this, connection, readJobCall(jobId), { itemIndex });
	if (!isPlainObject(body)) {
		throw new NodeOperationError(this.getNode(), `The service answered with no job status for job ${jobId}`, { itemIndex });
	}
	return formatJob(body, options);
}
