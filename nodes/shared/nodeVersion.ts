import type { IExecuteFunctions, IPollFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
/** The node's type version as saved in the workflow: version 1 keeps its old defaults and output shapes. */
export function nodeVersion(context: IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions): number {
	return context.getNode().typeVersion;
}
