import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as submit from './submit.operation';
import * as waitForCompletion from './waitForCompletion.operation';

export { get, getMany, submit, waitForCompletion };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['job'] } },
		options: [
			{ name: 'Get', value: 'get', description: 'Get the status of a job', action: 'Get a job' },
			{ name: 'Get Many', value: 'getMany', description: 'List up to 100 jobs', action: 'Get many jobs' },
			{ name: 'Submit', value: 'submit', description: 'Submit a job, optionally waiting until it ends', action: 'Submit a job' },
			{
				name: 'Wait for Completion',
				value: 'waitForCompletion',
				description: 'Wait until a submitted job ends',
				action: 'Wait for a job to complete',
			},
		],
		default: 'submit',
	},
	...submit.description,
	...get.description,
	...getMany.description,
	...waitForCompletion.description,
];
