import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { CredentialType, ResolvedConnection } from '../../shared/transport';
import { getConnection } from '../../shared/transport';
import { settle } from '../../shared/settle';
import type { Settled } from '../../shared/settle';
import { submittedJobIds } from '../helpers/submittedJobs';
import { ItemWithFiles } from '../helpers/jobItems';
import type { OperationOutput } from './registry';
import { findOperation } from './resources';

/** What an item carries when the node continues on failure: the message, its detail and the HTTP code. */
function errorJson(error: NodeApiError | NodeOperationError): IDataObject {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
	return json;
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = findOperation(resource, operationName);
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
	}
	const credentialType = this.getNodeParameter('authentication', 0) as CredentialType;
	const concurrency = operation.concurrency?.(this) ?? 1;
	const continueOnFail = this.continueOnFail();
	// Resolved once, on the first item that needs it; a bad credential then fails each item the same way.
	let connection: Promise<ResolvedConnection> | undefined;

	const outcomes: Array<Settled<OperationOutput>> = [];
	let failed = false;
	await inItemOrder(items.length, concurrency, () => failed && !continueOnFail, async (itemIndex) => {
		connection ??= getConnection.call(this, credentialType, itemIndex);
		const outcome = await settle(connection.then(async (resolved) => await operation.execute.call(this, itemIndex, resolved)));
		if (!outcome.ok) failed = true;
		outcomes[itemIndex] = outcome;
	});

	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const outcome = outcomes[itemIndex];
		if (outcome.ok) {
			for (const value of Array.isArray(outcome.value) ? outcome.value : [outcome.value]) {
				const pairedItem = { item: itemIndex };
				output.push(value instanceof ItemWithFiles ? { json: value.json, binary: value.binary, pairedItem } : { json: value, pairedItem });
			}
			continue;
		}
		// Items start in order and stop starting after a failure, so every item before the first failure ran.
		const error = asNodeError(this, outcome.error, itemIndex);
		if (!continueOnFail) throw operationName === 'submit' ? withSubmittedJobs(error, outcomes) : error;
		output.push({ json: errorJson(error), pairedItem: { item: itemIndex } });
	}
	return [output];
}

/**
 * Runs `run(0 … count-1)`, starting items in index order with at most `limit` running at once, and starts no
 * more once `stop()` says so (the ones already running finish: a submitted job cannot be taken back).
 */
async function inItemOrder(
	count: number,
	limit: number,
	stop: () => boolean,
	run: (itemIndex: number) => Promise<void>,
): Promise<void> {
	let next = 0;
	const worker = async () => {
		while (next < count && !stop()) await run(next++);
	};
	await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}

/** Jobs of other items exist although the node fails and outputs nothing: the error names them. */
function withSubmittedJobs<E extends NodeApiError | NodeOperationError>(error: E, outcomes: Array<Settled<OperationOutput>>): E {
	const ids = submittedJobIds(outcomes.map((outcome) => (!outcome?.ok ? undefined : outcome.value instanceof ItemWithFiles ? outcome.value.json : outcome.value)));
	if (ids.length === 0) return error;
	const shown = ids.slice(0, 5).join(', ') + (ids.length > 5 ? ` and ${ids.length - 5} more` : '');
	const note = `Other items were submitted before the node failed: ${ids.length === 1 ? 'job' : `${ids.length} jobs`} ${shown}. Retry On Fail returns these jobs instead of submitting them again.`;
	error.description = error.description ? `${error.description} ${note}` : note;
	return error;
}

/** Every failure leaves the node as an n8n error that knows its item. */
function asNodeError(context: IExecuteFunctions, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context.itemIndex ??= itemIndex;
		return error;
	}
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}
