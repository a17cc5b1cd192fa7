import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OperationOption } from '../registry';
import { badParameter, readBoolean, readChoice } from '../../helpers/itemParameters';
import { readJobItemSettings } from '../../helpers/jobItems';
import { hintListing, listFilterFields, readListSelection, sortFields, sortJobs, timeMatcher } from '../../helpers/jobListing';
import { jobOutputFields } from '../../helpers/outputFields';
import { firstListed, readJobList } from '../../../shared/jobList';
import { describeGiven, jobFilterMatcher } from '../../../shared/jobVocabulary';
import { nodeVersion } from '../../../shared/nodeVersion';
import type { ResolvedConnection } from '../../../shared/transport';
import { MAX_JOBS_PER_LIST } from '../../../shared/transport';

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
	...listFilterFields,
	...jobOutputFields({ logFile: false }),
	...sortFields,
];

export const option: OperationOption<'getMany'> = { name: 'Get Many', value: 'getMany', description: 'List up to 100 jobs', action: 'Get many jobs' };

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	connection: ResolvedConnection,
): Promise<IDataObject[]> {
	const version = nodeVersion(this);
	const scope = readChoice(this, itemIndex, 'scope', 'Jobs', ['all', 'active', 'history'], 'all');
	const returnAll = readBoolean(this, itemIndex, 'returnAll', 'Return All', false);
	const limit: unknown = returnAll ? Infinity : this.getNodeParameter('limit', itemIndex, 50);
	if (!returnAll && !(typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 && limit <= 100)) {
		throw badParameter(this, itemIndex, `Limit must be a whole number from 1 to 100, got ${describeGiven(limit, { values: true })}`);
	}
	const selection = readListSelection(this, itemIndex, version);
	const settings = readJobItemSettings(this, itemIndex);
	const listed = await readJobList.call(this, connection, scope === 'all' ? undefined : scope, { itemIndex });
	const { jobs, left } = firstListed(listed.jobs);
	if (left > 0) {
		const message = `The service listed ${listed.jobs.length} jobs (it promises at most 100): Get Many read the first ${MAX_JOBS_PER_LIST} and left ${left}.`;
		this.logger.warn(message);
		this.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
	}
	const kept = jobs.filter(jobFilterMatcher(selection)).filter(timeMatcher(selection.times));
	if (version >= 2) hintListing(this, listed.jobs.length, kept.length, kept.length < jobs.length || selection.times.length > 0);
	const ordered = selection.sort ? sortJobs(kept, selection.sort) : kept;
	return ordered.slice(0, limit as number).map((job) => settings.json(job));
}
