import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OperationOption } from '../registry';
import { batchingFields, readConcurrency } from '../../helpers/batching';
import { hintLongWait } from '../../helpers/hints';
import { summarizeJob } from '../../../shared/jobSummary';
import { jobItem, readJobItemSettings } from '../../helpers/jobItems';
import type { ItemWithFiles } from '../../helpers/jobItems';
import { jobOutputFields } from '../../helpers/outputFields';
import { checkJobOutcome, readWaitSettings, waitForJob } from '../../helpers/waitForJob';
import { nodeVersion } from '../../../shared/nodeVersion';
import type { ResolvedConnection } from '../../../shared/transport';
import { jobIdField, waitSettingsCollections } from '../../../shared/descriptions';
import { readJobId } from './jobId';

/** Its requests only read: the router's first burst and the Concurrency field's text both follow this. */
export const readsOnly = true;

export const properties: INodeProperties[] = [
	jobIdField,
	...waitSettingsCollections(),
	...jobOutputFields({ logFile: true }),
	...batchingFields('are waited for', { readsOnly }),
];

export const option: OperationOption<'waitForCompletion'> = {
	name: 'Wait for Completion',
	value: 'waitForCompletion',
	description: 'Wait until a submitted job ends',
	action: 'Wait for a job to complete',
};

/** Waiting only reads, so items may wait side by side: the slowest job, not the sum of them, sets the time. */
export const concurrency = readConcurrency;

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	connection: ResolvedConnection,
): Promise<IDataObject | ItemWithFiles> {
	const jobId = readJobId(this, itemIndex);
	const settings = readWaitSettings(this, itemIndex, 'waitSettings');
	const output = readJobItemSettings(this, itemIndex);
	const stats = { reads: 0 };
	const job = await waitForJob.call(this, connection, jobId, settings, itemIndex, { readFirst: true, stats });
	if (nodeVersion(this) >= 2) hintLongWait(this, { reads: stats.reads, runtimeSeconds: summarizeJob(job).runtimeSeconds });
	return await jobItem(this, output, checkJobOutcome(this, job, jobId, settings, itemIndex, connection), jobId);
}
