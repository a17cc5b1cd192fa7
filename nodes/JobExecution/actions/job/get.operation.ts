import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OperationOption } from '../registry';
import { extractExecutionStatus } from '../../../shared/jobStatusBody';
import { isPlainObject } from '../../../shared/jobVocabulary';
import { nodeVersion } from '../../../shared/nodeVersion';
import { batchingFields, readConcurrency } from '../../helpers/batching';
import { jobItem, readJobItemSettings } from '../../helpers/jobItems';
import type { ItemWithFiles } from '../../helpers/jobItems';
import { jobOutputFields } from '../../helpers/outputFields';
import type { ResolvedConnection } from '../../../shared/transport';
import { apiRequest, readJobCall } from '../../../shared/transport';
import { jobIdField } from '../../../shared/descriptions';
import { readJobId } from './jobId';

const statusOnlyField: INodeProperties = {
	displayName: 'Status Only',
	name: 'statusOnly',
	type: 'boolean',
	default: false,
	description: 'Whether to read only the execution status (a lighter request): the output is { ID, executionStatus }',
};

/** Its requests only read: the router's first burst and the Concurrency field's text both follow this. */
export const readsOnly = true;

export const properties: INodeProperties[] = [jobIdField, ...jobOutputFields({ statusOnly: statusOnlyField, logFile: true }), ...batchingFields('are read', { readsOnly })];

export const option: OperationOption<'get'> = { name: 'Get', value: 'get', description: 'Get the status of a job', action: 'Get a job' };

/** Reads change nothing, so items may read side by side. */
export const concurrency = readConcurrency;

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	connection: ResolvedConnection,
): Promise<IDataObject | ItemWithFiles> {
	const jobId = readJobId(this, itemIndex);
	const settings = readJobItemSettings(this, itemIndex);
	if (settings.statusOnly) {
		const { body } = await apiRequest.call(this, connection, readJobCall(jobId, true), { itemIndex });
		const executionStatus = extractExecutionStatus(body);
		if (executionStatus === null) {
			throw new NodeOperationError(this.getNode(), `The service answered with no execution status for job ${jobId}`, { itemIndex });
		}
		// Version 2 names a job's id jobId wherever an item describes a job.
		return nodeVersion(this) < 2 ? { id: jobId, executionStatus } : { jobId, executionStatus };
	}
	const { body } = await apiRequest.call(this, connection, readJobCall(jobId), { itemIndex });
	if (!isPlainObject(body)) {
		throw new NodeOperationError(this.getNode(), `The service answered with no job status for job ${jobId}`, { itemIndex });
	}
	return await jobItem(this, settings, body, jobId);
}
