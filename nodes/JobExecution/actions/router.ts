import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { CredentialType, ResolvedConnection } from '../../shared/transport';
import { DeadlineClock, getConnection } from '../../shared/transport';
import { AdaptiveLimit } from '../../shared/adaptiveLimit';
import { nodeVersion } from '../../shared/nodeVersion';
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
	// Version 2 adapts how many items run at once below that bound; version 1 runs exactly that many.
	const pace = nodeVersion(this) >= 2 && concurrency > 1 ? new AdaptiveLimit(concurrency) : undefined;
	const continueOnFail = this.continueOnFail();
	// Resolved once, on the first item that needs it; a bad credential then fails each item the same way.
	let connection: Promise<ResolvedConnection> | undefined;

	const outcomes: Array<Settled<OperationOutput>> = [];
	let failed = false;
	const stop = () => failed && !continueOnFail;
	const schedule = pace ? paced(this, pace) : inItemOrder(concurrency);
	// One clock ends every attempt of the run at its deadline (a timer per attempt cost more than the request's checks).
	const clock = new DeadlineClock();
	await schedule(items.length, stop, async (itemIndex) => {
		connection ??= getConnection.call(this, credentialType, itemIndex).then((resolved) => ({ ...resolved, pace, clock }));
		const outcome = await settle(connection.then(async (resolved) => await operation.execute.call(this, itemIndex, resolved)));
		if (!outcome.ok) failed = true;
		outcomes[itemIndex] = outcome;
	}).finally(() => clock.close());

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
 * Runs `run(0 … count-1)`, starting items in index order, and starts no more once `stop()` says so (the ones
 * already running finish: a submitted job cannot be taken back). `run` never rejects.
 */
type Schedule = (count: number, stop: () => boolean, run: (itemIndex: number) => Promise<void>) => Promise<void>;

/** Version 1: at most `limit` items running at once, a new one as soon as one ends. */
function inItemOrder(limit: number): Schedule {
	return async (count, stop, run) => {
		let next = 0;
		const worker = async () => {
			while (next < count && !stop()) await run(next++);
		};
		await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
	};
}

/** Version 2: as many running as the adaptive limit allows now, none started while a Retry-After lasts. */
function paced(context: IExecuteFunctions, limit: AdaptiveLimit): Schedule {
	return async (count, stop, run) => {
		let running = 0;
		// One waiter for "an item ended" (a race over every running item would cost a reaction per item in flight).
		let ended: (() => void) | undefined;
		const all: Array<Promise<void>> = [];
		const cancel = context.getExecutionCancelSignal();
		for (let next = 0; next < count && !stop(); ) {
			// A cancelled execution ends the pause; the items then fail at once on the cancelled signal.
			const pause = cancel?.aborted ? 0 : limit.pauseLeft();
			if (pause > 0) {
				await sleep(pause, cancel).catch(() => undefined);
			} else if (running >= limit.allowed()) {
				await new Promise<void>((resolve) => (ended = resolve));
			} else {
				running++;
				all.push(
					run(next++).finally(() => {
						running--;
						ended?.();
						ended = undefined;
					}),
				);
			}
		}
		await Promise.all(all);
	};
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
