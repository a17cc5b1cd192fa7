import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { describeGiven } from '../../shared/jobVocabulary';

// One at a time unless asked: requests then reach the service in item order, as before the option existed.
const DEFAULT_CONCURRENCY = 1;
// Enough to keep a batch moving without flooding the service with simultaneous requests.
const MAX_CONCURRENCY = 20;

/** Batching → Concurrency of an operation whose items may run side by side; `what` says what runs at once. */
export function batchingField(what: string): INodeProperties {
	return {
		displayName: 'Batching',
		name: 'batching',
		type: 'collection',
		placeholder: 'Add Setting',
		default: {},
		options: [
			{
				displayName: 'Concurrency',
				name: 'concurrency',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY, numberPrecision: 0 },
				default: DEFAULT_CONCURRENCY,
				description: `How many items ${what} at the same time. Output order always follows the input.`,
			},
		],
	};
}

/**
 * How many items run at once (the router asks each operation): the node-wide Batching → Concurrency, refused
 * before anything is sent when it is not a whole number in range.
 */
export function readConcurrency(context: IExecuteFunctions): number {
	const batching = context.getNodeParameter('batching', 0, {}) as IDataObject;
	const value = Number(batching.concurrency ?? DEFAULT_CONCURRENCY);
	if (!Number.isInteger(value) || value < 1 || value > MAX_CONCURRENCY) {
		throw new NodeOperationError(
			context.getNode(),
			`Concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}, got ${describeGiven(batching.concurrency, { values: true })}`,
		);
	}
	return value;
}
