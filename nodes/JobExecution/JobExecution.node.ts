import { NodeConnectionTypes } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { authenticationField } from '../shared/descriptions';
import { resourceProperties } from './actions/resources';
import { router } from './actions/router';
import { jobExecutionApiTest, jobExecutionRelayApiTest } from './methods/credentialTest';
import { searchJobs } from './methods/listSearch';

export class JobExecution implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Job Execution',
		name: 'jobExecution',
		icon: { light: 'file:jobExecution.svg', dark: 'file:jobExecution.dark.svg' },
		group: ['transform'],
		version: [1, 2],
		defaultVersion: 2,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description: 'Submit data-processing jobs to the Job Execution Service, wait for them to end and read their status',
		defaults: { name: 'Job Execution' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// The trigger's list (shared/descriptions.ts) plus testedBy, written out: n8n's lint reads these literals.
		credentials: [
			{ name: 'jobExecutionApi', required: true, testedBy: 'jobExecutionApiTest', displayOptions: { show: { authentication: ['jobExecutionApi'] } } },
			{
				name: 'jobExecutionRelayApi',
				required: true,
				testedBy: 'jobExecutionRelayApiTest',
				displayOptions: { show: { authentication: ['jobExecutionRelayApi'] } },
			},
		],
		properties: [authenticationField, ...resourceProperties],
	};

	methods = { listSearch: { searchJobs }, credentialTest: { jobExecutionApiTest, jobExecutionRelayApiTest } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
