import { NodeConnectionTypes } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { authenticationField, NODE_DOCS_URL } from '../shared/descriptions';
import { resourceProperties } from './actions/resources';
import { router } from './actions/router';
import { jobExecutionApiTest, jobExecutionRelayApiTest } from './methods/credentialTest';
import { searchFlowNames, searchJobs, searchRunProfiles } from './methods/listSearch';

export class JobExecution implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Job Execution',
		name: 'jobExecution',
		icon: { light: 'file:jobExecution.svg', dark: 'file:jobExecution.dark.svg' },
		group: ['transform'],
		// 2.1 (light versioning): times in the workflow's zone, the failure reason, the Timeout as amount + unit, Sort as one row.
		version: [1, 2, 2.1],
		defaultVersion: 2.1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description: 'Submit data-processing jobs to the Job Execution Service, wait for them to end and read their status',
		defaults: { name: 'Job Execution' },
		// n8n's editor opens a documentationUrl starting with http as it is (packages/frontend/editor-ui/src/composables/
		// useNodeDocsUrl.ts, 1.x and 2.x); the codex URL would get `?utm_…` appended after its #fragment, which then never matches.
		documentationUrl: NODE_DOCS_URL,
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

	methods = { listSearch: { searchJobs, searchFlowNames, searchRunProfiles }, credentialTest: { jobExecutionApiTest, jobExecutionRelayApiTest } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
