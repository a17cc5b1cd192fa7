import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { CredentialType, ResolvedConnection } from '../../shared/transport';
import { DeadlineClock, getConnection } from '../../shared/transport';
import { AdaptiveLimit, firstBurst, InFlightLimit, MAX_ITEMS_AT_ONCE } from '../../shared/adaptiveLimit';
import { AnswerBudget } from '../../shared/answerBudget';
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
	// Version 2 adapts how many requests are in flight below that bound; version 1 runs exactly that many items.
	const burst = firstBurst(concurrency, operation.readsOnly === true);
	// Each slot also takes its answer's estimate from the execution's answer budget (answerBudget.ts).
	const pace = nodeVersion(this) >= 2 && concurrency > 1 ? new InFlightLimit(new AdaptiveLimit(concurrency, Date.now, burst), this.getExecutionCancelSignal(), sleep, new AnswerBudget()) : undefined;
	const continueOnFail = this.continueOnFail();
	// Resolved once, on the first item that needs it; a bad credential then fails each item the same way.
	let connection: Promise<ResolvedConnection> | undefined;

	const outcomes: Array<Settled<OperationOutput>> = [];
	let failed = false;
	const stop = () => failed && !continueOnFail;
	const schedule = pace ? overlapped(pace) : inItemOrder(concurrency);
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
export type Schedule = (count: number, stop: () => boolean, run: (itemIndex: number) => Promise<void>) => Promise<void>;

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

/**
 * Version 2: items start in order, freely, while fewer than MAX_ITEMS_AT_ONCE have started and not ended and fewer
 * requests wait for a slot than may fly (InFlightLimit.room(), the limit and the answer budget: a longer queue would
 * only hold memory, and its calls' wall ceilings would run while it waits): the limit governs the requests
 * (adaptiveLimit.ts), so an item waiting for its job between reads holds no slot and stops no other item.
 * The next item starts on the next cue: a request asked for a slot, got one or ended, or an item ended.
 */
export function overlapped(slots: InFlightLimit): Schedule {
	return async (count, stop, run) => {
		let running = 0;
		const all: Array<Promise<void>> = [];
		for (let next = 0; next < count && !stop(); ) {
			const cue = slots.nextChange();
			if (running < MAX_ITEMS_AT_ONCE && slots.waiting() < slots.room()) {
				running++;
				all.push(
					run(next++).finally(() => {
						running--;
						slots.changed();
					}),
				);
			}
			await cue;
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
