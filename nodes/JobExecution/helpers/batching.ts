import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { DEFAULT_MAX_IN_FLIGHT, INITIAL_IN_FLIGHT } from '../../shared/adaptiveLimit';
import { describeGiven } from '../../shared/jobVocabulary';
import { nodeVersion } from '../../shared/nodeVersion';

/** Each version's Concurrency field; the description is the operation's. */
const CONCURRENCY_FIELDS = {
	// Version 1: one at a time unless asked; requests then reach the service in item order.
	1: {
		displayName: 'Concurrency',
		name: 'concurrency',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 20, numberPrecision: 0 },
		default: 1,
	},
	// Version 2: at most this many requests in flight, adaptively (adaptiveLimit.ts); by default as many as the service takes.
	2: {
		displayName: 'Concurrency',
		name: 'concurrency',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: DEFAULT_MAX_IN_FLIGHT, numberPrecision: 0 },
		default: DEFAULT_MAX_IN_FLIGHT,
	},
} satisfies Record<1 | 2, INodeProperties>;

function concurrencyOf(version: number): { default: number; max: number } {
	const field = CONCURRENCY_FIELDS[version >= 2 ? 2 : 1];
	return { default: field.default, max: field.typeOptions.maxValue };
}

/** How version 2 starts and adapts, for an operation whose requests only read, or one that submits (firstBurst). */
function adapting(readsOnly: boolean): string {
	const cut = 'fewer when many answers are 429, 503, timeouts or dropped connections (a lone one is not overload)';
	const pause = 'none while a Retry-After lasts, then as many as the service took';
	return readsOnly
		? `Reads start at this bound (a refused read is read again), send ${cut}, more again while the service answers, and ${pause}.`
		: `The node starts with ${INITIAL_IN_FLIGHT}, sends more while the service answers, ${cut}, and ${pause}. A submission answered 429 created nothing and is sent again after its wait.`;
}

/**
 * Batching → Concurrency of an operation whose items may run side by side; `what` says what runs at once. One
 * field per version: same name and values, version 2's default is adaptive.
 */
export function batchingFields(what: string, options: { readsOnly?: boolean } = {}): INodeProperties[] {
	const field = (version: 1 | 2, description: string): INodeProperties => ({
		displayName: 'Batching',
		name: 'batching',
		type: 'collection',
		placeholder: 'Add Setting',
		default: {},
		displayOptions: version === 1 ? { hide: { '@version': [{ _cnd: { gte: 2 } }] } } : { show: { '@version': [{ _cnd: { gte: 2 } }] } },
		options: [{ ...CONCURRENCY_FIELDS[version], description }],
	});
	return [
		field(1, `How many items ${what} at the same time. Output order always follows the input.`),
		field(
			2,
			`The most requests in flight at the same time while items ${what} (default ${DEFAULT_MAX_IN_FLIGHT}); an item waiting for its job between reads holds none. ${adapting(options.readsOnly === true)} 1 sends one at a time, in item order. Output order always follows the input.`,
		),
	];
}

/**
 * The node-wide Batching → Concurrency (the router asks each operation): version 1 runs that many items at once,
 * version 2 keeps at most that many requests in flight. Refused before anything is sent when it is not a whole
 * number in range.
 */
export function readConcurrency(context: IExecuteFunctions): number {
	const limits = concurrencyOf(nodeVersion(context));
	const batching = context.getNodeParameter('batching', 0, {}) as IDataObject;
	const value = Number(batching.concurrency ?? limits.default);
	if (!Number.isInteger(value) || value < 1 || value > limits.max) {
		throw new NodeOperationError(
			context.getNode(),
			`Concurrency must be a whole number from 1 to ${limits.max}, got ${describeGiven(batching.concurrency, { values: true })}`,
		);
	}
	return value;
}
