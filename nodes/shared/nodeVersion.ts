import type { IExecuteFunctions, IPollFunctions, ILoadOptionsFunctions } from 'n8n-workflow';

type NodeContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

/** Per context (one node run): n8n's getNode() deep-copies the node and its parameters on every call. */
const known = new WeakMap<NodeContext, { typeVersion: number; type: string }>();

function nodeFacts(context: NodeContext): { typeVersion: number; type: string } {
	let facts = known.get(context);
	if (facts === undefined) {
		const { typeVersion, type } = context.getNode();
		known.set(context, (facts = { typeVersion, type }));
	}
	return facts;
}

/** The node's type version as saved in the workflow: version 1 keeps its old defaults and output shapes. */
export function nodeVersion(context: NodeContext): number {
	return nodeFacts(context).typeVersion;
}

/** The node's type name; n8n's AI-tool variant of a node ends in "Tool". */
export function nodeTypeName(context: NodeContext): string {
	return nodeFacts(context).type;
}
