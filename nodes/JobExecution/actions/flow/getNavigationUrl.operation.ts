import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OperationOption } from '../registry';
import { badParameter, readText } from '../../helpers/itemParameters';
import type { ResolvedConnection } from '../../../shared/transport';
import { flowNavigationUrl, RELAY_CREDENTIAL } from '../../../shared/transport';
import { flowFileNameField } from '../../../shared/descriptions';
import { nodeVersion } from '../../../shared/nodeVersion';

const NODE_ID = /^node_\d+$/;

export const properties: INodeProperties[] = [
	{
		displayName:
			'The relay has no navigation endpoint: pick a Job Execution API credential (native REST API) for this operation',
		name: 'relayNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { '/authentication': [RELAY_CREDENTIAL] } },
	},
	flowFileNameField,
	{
		displayName: 'Run Profile',
		name: 'runProfile',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. default',
	},
	{
		displayName: 'Node ID',
		name: 'nodeId',
		type: 'string',
		default: '',
		placeholder: 'e.g. node_12',
		description: 'Node to open, of the form node_&lt;digits&gt;; leave empty to open the flow',
	},
];

export const option: OperationOption<'getNavigationUrl'> = {
	name: 'Get Navigation URL',
	value: 'getNavigationUrl',
	description: 'Build the browser URL that opens a flow, a run profile and optionally a node',
	action: 'Get a flow navigation URL',
};

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	connection: ResolvedConnection,
): Promise<IDataObject> {
	if (connection.credentialType === RELAY_CREDENTIAL) {
		throw new NodeOperationError(this.getNode(), 'The relay interface has no navigation endpoint', {
			itemIndex,
			// Version 1's words kept (its editor shows an Interface field); version 2's editor picks the interface by credential.
			description:
				nodeVersion(this) < 2
					? 'Choose the Native API interface and a Job Execution API credential to build navigation URLs.'
					: 'Pick a Job Execution API credential (native REST API) to build navigation URLs.',
		});
	}
	const flowFileName = readText(this, itemIndex, 'flowFileName', 'Flow File Path', { required: true });
	const runProfile = readText(this, itemIndex, 'runProfile', 'Run Profile', { required: true });
	const nodeId = readText(this, itemIndex, 'nodeId', 'Node ID', { required: false });
	if (nodeId && !NODE_ID.test(nodeId)) {
		throw badParameter(this, itemIndex, `Node ID "${nodeId.slice(0, 80)}" is not of the form node_<digits>`);
	}
	const url = flowNavigationUrl(connection.baseUrl, { flowFileName, runProfile, nodeId: nodeId || undefined });
	const node = nodeId ? { nodeId } : {};
	// Version 2 uses Submit's names for the same things: navigationUrl, runProfileName.
	if (nodeVersion(this) >= 2) return { navigationUrl: url, flowFileName, runProfileName: runProfile, ...node };
	return { url, flowFileName, runProfile, ...node };
}
