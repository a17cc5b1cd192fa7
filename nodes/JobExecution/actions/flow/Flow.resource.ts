import type { INodeProperties } from 'n8n-workflow';

import * as getNavigationUrl from './getNavigationUrl.operation';

export { getNavigationUrl };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['flow'] } },
		options: [
			{
				name: 'Get Navigation URL',
				value: 'getNavigationUrl',
				description: 'Build the browser URL that opens a flow, a run profile and optionally a node',
				action: 'Get a flow navigation URL',
			},
		],
		default: 'getNavigationUrl',
	},
	...getNavigationUrl.description,
];
