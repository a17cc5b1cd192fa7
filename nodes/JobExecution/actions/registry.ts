import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { ResolvedConnection } from '../../shared/transport';
import type { ItemWithFiles } from '../helpers/jobItems';

/**
 * The one registration of operations: each operation module exports its editor option, its fields, `execute` and
 * optionally `concurrency`; a resource lists its modules once, under their option values, and the editor's
 * Operation options, the fields' display rules and the router's map are derived from that list. A module missing
 * a piece, or listed under a key that is not its option value, fails `tsc`.
 */

/** What the editor lists for an operation; `value` is saved in workflows and never changes. */
export interface OperationOption<Value extends string = string> {
	name: string;
	value: Value;
	description: string;
	action: string;
}

/** What one item gives: one job or object, several, or an item with files. */
export type OperationOutput = IDataObject | IDataObject[] | ItemWithFiles;

export interface Operation<Value extends string = string> {
	option: OperationOption<Value>;
	/** The operation's fields; shown only for its resource and operation. */
	properties: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number, connection: ResolvedConnection): Promise<OperationOutput>;
	/** Items run one at a time unless the operation says otherwise. */
	concurrency?: (context: IExecuteFunctions) => number;
	/** Its requests only read (a refused one is sent again): version 2's first burst is then its whole bound (firstBurst). */
	readsOnly?: boolean;
}

/** Operations keyed by their own option value. */
export type OperationMap<T> = { [Key in keyof T]: Key extends string ? Operation<Key> : never };

export interface Resource {
	option: { name: string; value: string };
	operations: Record<string, Operation>;
	/** The Operation field of the resource, then every operation's fields. */
	properties: INodeProperties[];
}

/** A resource from its operation modules; the first one listed is the editor's default, and fields follow that order. */
export function defineResource<T extends OperationMap<T>>(option: { name: string; value: string }, operations: T): Resource {
	const listed: Operation[] = Object.values<Operation>(operations);
	const first = listed[0].option.value;
	const operationField: INodeProperties = {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [option.value] } },
		// The editor lists options by name (n8n's lint rule for options).
		options: listed.map((operation) => ({ ...operation.option })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
		default: first,
	};
	const fields = listed.flatMap((operation) =>
		updateDisplayOptions({ show: { resource: [option.value], operation: [operation.option.value] } }, operation.properties),
	);
	return { option, operations, properties: [operationField, ...fields] };
}
