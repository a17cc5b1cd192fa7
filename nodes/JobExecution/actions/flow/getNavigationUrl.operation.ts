import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { ResolvedConnection } from '../../transport';
import { flowNavigationUrl, RELAY_CREDENTIAL } from '../../transport';
import { flowFileNameField } from '../common.descriptions';

const NODE_ID = /^node_\d+$/;

const properties: INodeProperties[] = [
	flowFileNameField,
	{
		displayName: 'Run Profile',
		name: 'runProfile',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'default',
	},
	{
		displayName: 'Node ID',
		name: 'nodeId',
		type: 'string',
		default: '',
		placeholder: 'node_12',
		description: 'Node to open, of the form node_&lt;digits&gt;; leave empty to open the flow',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['flow'], operation: ['getNavigationUrl'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	connection: ResolvedConnection,
): Promise<IDataObject> {
	if (connection.credentialType === RELAY_CREDENTIAL) {
		throw new NodeOperationError(this.getNode(), 'The relay interface has no navigation endpoint', {
			itemIndex,
			description: 'Choose the Native API interface and a Job Execution API credential to build navigation URLs.',
		});
	}
	const text = (name: string) => String(this.getNodeParameter(name, itemIndex, '') ?? '').trim();
	const flowFileName = text('flowFileName');
	const runProfile = text('runProfile');
	const nodeId = text('nodeId');
	if (!flowFileName) throw new NodeOperationError(this.getNode(), `Flow File Path is empty (item ${itemIndex})`, { itemIndex });
	if (!runProfile) throw new NodeOperationError(this.getNode(), `Run Profile is empty (item ${itemIndex})`, { itemIndex });
	if (nodeId && !NODE_ID.test(nodeId)) {
		throw new NodeOperationError(this.getNode(), `Node ID "${nodeId}" is not of the form node_<digits> (item ${itemIndex})`, { itemIndex });
	}
	const url = flowNavigationUrl(connection.baseUrl, { flowFileName, runProfile, nodeId: nodeId || undefined });
	return { url, flowFileName, runProfile, ...(nodeId ? { nodeId } : {}) };
}
