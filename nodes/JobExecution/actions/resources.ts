import type { INodeProperties } from 'n8n-workflow';

import { flow } from './flow/Flow.resource';
import { job } from './job/Job.resource';
import type { Operation, Resource } from './registry';

/** Every resource of the node, in the editor's order (Job is the default). */
export const resources: Resource[] = [job, flow];

const firstResource = resources[0].option.value;

/** The Resource field and, per resource, its Operation field and the operations' fields. */
export const resourceProperties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: resources.map((resource) => ({ ...resource.option })),
		default: firstResource,
	},
	...resources.flatMap((resource) => resource.properties),
];

/** The operation the router runs for a resource and operation value, if the node has it. */
export function findOperation(resource: string, operation: string): Operation | undefined {
	const operations = resources.find((candidate) => candidate.option.value === resource)?.operations;
	return operations !== undefined && Object.hasOwn(operations, operation) ? operations[operation] : undefined;
}
