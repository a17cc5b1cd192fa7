/**
 * Runs a node's `methods.listSearch` the way n8n's server does for a resource locator's "From list": a
 * LoadOptionsContext of n8n-core over a one-node workflow holding the node's current parameters and credentials
 * (the action node on version 1 unless `target` names another node type, version or parameter).
 */
import { ExecutionLifecycleHooks, LoadOptionsContext } from 'n8n-core';
import { Workflow } from 'n8n-workflow';
import type { ILoadOptionsFunctions, INode, INodeListSearchResult, INodeParameters } from 'n8n-workflow';

import type { CredentialsMap } from './engine';
import { ACTION_NODE_TYPE, additionalDataFor, InMemoryCredentialsHelper, NODE_NAME, nodeClasses, nodeTypes } from './engine';

export async function searchList(
	method: string,
	parameters: INodeParameters,
	credentials: CredentialsMap,
	filter?: string,
	target: { nodeType?: string; typeVersion?: number; parameter?: string } = {},
): Promise<INodeListSearchResult> {
	const nodeType = target.nodeType ?? ACTION_NODE_TYPE;
	const node: INode = {
		id: 'a1b2c3d4-0000-4000-8000-000000000002',
		name: NODE_NAME,
		type: nodeType,
		typeVersion: target.typeVersion ?? 1,
		position: [0, 0],
		parameters,
		credentials: {
			jobExecutionApi: { id: '1', name: 'Job Execution API' },
			jobExecutionRelayApi: { id: '2', name: 'Job Execution Relay API' },
		},
	};
	const workflow = new Workflow({ id: 'list-search', name: 'list search', nodes: [node], connections: {}, active: false, nodeTypes, settings: {} });
	const hooks = new ExecutionLifecycleHooks('manual', 'list-search', { id: 'list-search', nodes: [node], connections: {} } as never);
	const additionalData = additionalDataFor(new InMemoryCredentialsHelper(credentials), hooks);
	additionalData.currentNodeParameters = parameters;
	const context = new LoadOptionsContext(workflow, node, additionalData, target.parameter ?? 'parameters.jobId');
	const search = nodeClasses[nodeType].methods?.listSearch?.[method];
	if (!search) throw new Error(`${nodeType} has no list search "${method}"`);
	return await search.call(context as ILoadOptionsFunctions, filter);
}
