import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { asJobArray, formatJob } from '../../helpers/jobOutput';
import type { ResolvedConnection } from '../../transport';
import { apiRequest, jobsPath } from '../../transport';
import { JOB_STATUS_OPTIONS, jobFilterFields, outputOptionsCollection } from '../common.descriptions';

const properties: INodeProperties[] = [
	{
		displayName: 'Jobs',
		name: 'scope',
		type: 'options',
		default: 'all',
		options: [
			{ name: 'All', value: 'all', description: 'Running and finished jobs (the service returns at most 100)' },
			{ name: 'Active', value: 'active', description: 'Queued and running jobs' },
			{ name: 'History', value: 'history', description: 'Finished jobs: completed, failed or cancelled' },
		],
	},
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 100 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			...jobFilterFields,
			{
				displayName: 'Status',
				name: 'executionStatus',
				type: 'multiOptions',
				default: [],
				options: JOB_STATUS_OPTIONS,
				description: 'Only jobs in one of these statuses',
			},
		],
	},
	outputOptionsCollection,
];

export const description = updateDisplayOptions({ show: { resource: ['job'], operation: ['getMany'] } }, properties);

function matches(job: IDataObject, filters: IDataObject): boolean {
	const flowName = String(filters.flowName ?? '').trim();
	const runProfileName = String(filters.runProfileName ?? '').trim();
	const statuses = (filters.executionStatus as string[] | undefined) ?? [];
	if (flowName && job.flowName !== flowName) return false;
	if (runProfileName && job.runProfileName !== runProfileName) return false;
	if (statuses.length > 0 && !statuses.includes(String(job.executionStatus))) return false;
	return true;
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	connection: ResolvedConnection,
): Promise<IDataObject[]> {
	const scope = this.getNodeParameter('scope', itemIndex, 'all') as string;
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? Infinity : (this.getNodeParameter('limit', itemIndex, 50) as number);
	if (!returnAll && !(Number.isInteger(limit) && limit >= 1 && limit <= 100)) {
		throw new NodeOperationError(this.getNode(), `Limit must be a whole number from 1 to 100, got ${limit} (item ${itemIndex})`, { itemIndex });
	}
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const { body } = await apiRequest.call(
		this,
		connection,
		{ method: 'GET', path: jobsPath(), query: { filter: scope === 'all' ? undefined : scope } },
		{ itemIndex },
	);
	const jobs = asJobArray(body);
	if (!jobs) throw new NodeOperationError(this.getNode(), 'The service answered with no job list', { itemIndex });
	return jobs
		.filter((job) => matches(job, filters))
		.slice(0, limit)
		.map((job) => formatJob(job, options));
}
