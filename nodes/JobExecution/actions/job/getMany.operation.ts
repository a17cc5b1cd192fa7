import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OperationOption } from '../registry';
import { badParameter, checkText, readBoolean, readChoice, readOutputOptions } from '../../helpers/itemParameters';
import { formatJob } from '../../../shared/jobOutput';
import { firstListed, readJobList } from '../../../shared/jobList';
import { checkStatuses, describeGiven, JOB_STATUSES, jobFilterMatcher } from '../../../shared/jobVocabulary';
import type { JobFilter } from '../../../shared/jobVocabulary';
import type { ResolvedConnection } from '../../../shared/transport';
import { MAX_JOBS_PER_LIST } from '../../../shared/transport';
import { JOB_STATUS_OPTIONS, jobFilterFields, outputOptionsCollection } from '../../../shared/descriptions';

export const properties: INodeProperties[] = [
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

export const option: OperationOption<'getMany'> = { name: 'Get Many', value: 'getMany', description: 'List up to 100 jobs', action: 'Get many jobs' };

/** The Filters collection, checked: text filters must be text, statuses known ones (a single one may be given bare). */
function readFilters(context: IExecuteFunctions, itemIndex: number): JobFilter {
	const raw = (context.getNodeParameter('filters', itemIndex, {}) as IDataObject) ?? {};
	const { statuses, unknown } = checkStatuses(raw.executionStatus ?? []);
	if (statuses === undefined) {
		throw badParameter(context, itemIndex, `Status filter must be among ${JOB_STATUSES.join(', ')}, got ${describeGiven(unknown)}`);
	}
	return {
		flowName: checkText(context, itemIndex, 'Flow Name filter', raw.flowName),
		runProfileName: checkText(context, itemIndex, 'Run Profile filter', raw.runProfileName),
		statuses,
	};
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	connection: ResolvedConnection,
): Promise<IDataObject[]> {
	const scope = readChoice(this, itemIndex, 'scope', 'Jobs', ['all', 'active', 'history'], 'all');
	const returnAll = readBoolean(this, itemIndex, 'returnAll', 'Return All', false);
	const limit: unknown = returnAll ? Infinity : this.getNodeParameter('limit', itemIndex, 50);
	if (!returnAll && !(typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 && limit <= 100)) {
		throw badParameter(this, itemIndex, `Limit must be a whole number from 1 to 100, got ${describeGiven(limit, { values: true })}`);
	}
	const filters = readFilters(this, itemIndex);
	const options = readOutputOptions(this, itemIndex);
	const listed = await readJobList.call(this, connection, scope === 'all' ? undefined : scope, { itemIndex });
	const { jobs, left } = firstListed(listed.jobs);
	if (left > 0) {
		const message = `The service listed ${listed.jobs.length} jobs (it promises at most 100): Get Many read the first ${MAX_JOBS_PER_LIST} and left ${left}.`;
		this.logger.warn(message);
		this.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
	}
	return jobs
		.filter(jobFilterMatcher(filters))
		.slice(0, limit as number)
		.map((job) => formatJob(job, options));
}
