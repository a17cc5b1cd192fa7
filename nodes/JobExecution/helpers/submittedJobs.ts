import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

/**
 * What Submit already did for an item in this run of the node, so that n8n's Retry On Fail never submits it again.
 *
 * n8n retries a node by running it again in the same process with the very same input: WorkflowExecute's retry loop
 * (n8n-core dist/execution-engine/workflow-execute.js, `for (let tryIndex ...)` and the `checkFailure` loop for an
 * error in the first output item) calls runNode with the same executionData, so getInputData() returns the same item
 * objects and the run index stays the same. The memory is keyed by those item objects (a WeakMap: it goes away with
 * the execution, and a new execution or a new run has other objects), then by node, run and item index.
 */
export type SubmitRecord =
	/** The job was created; `output` is what the item returned without waiting (a retry returns it as it was). */
	| { kind: 'submitted'; jobId: string; output?: IDataObject }
	/** The submission was sent and its outcome is unknown: the job may exist. */
	| { kind: 'unknown'; message: string; description?: string; httpCode?: string };

const records = new WeakMap<INodeExecutionData, Map<string, SubmitRecord>>();
const runKeys = new WeakMap<IExecuteFunctions, string>();

export interface SubmitSlot {
	/** What an earlier try of this run did for the item, if anything. */
	readonly previous: SubmitRecord | undefined;
	record(entry: SubmitRecord): void;
}

/** The node's id and run index, read once per node run (getNode() copies the whole node on every call). */
function runKeyOf(context: IExecuteFunctions): string {
	let runKey = runKeys.get(context);
	if (runKey === undefined) {
		// IExecuteFunctions has no runIndex; the expression proxy carries the context's own.
		runKey = `${context.getNode().id}\u0000${Number(context.getWorkflowDataProxy(0).$runIndex) || 0}`;
		runKeys.set(context, runKey);
	}
	return runKey;
}

const NO_MEMORY: SubmitSlot = { previous: undefined, record: () => {} };

export function submitSlot(context: IExecuteFunctions, itemIndex: number): SubmitSlot {
	let item: INodeExecutionData | undefined;
	let key: string;
	try {
		item = context.getInputData()[itemIndex];
		key = `${runKeyOf(context)}\u0000${itemIndex}`;
	} catch {
		// A context without input items or run index (none of n8n's today): no retry to guard against.
		return NO_MEMORY;
	}
	if (item === undefined || item === null || typeof item !== 'object') return NO_MEMORY;
	const previous = records.get(item)?.get(key);
	return {
		previous,
		record(entry) {
			let byKey = records.get(item);
			if (!byKey) records.set(item, (byKey = new Map()));
			byKey.set(key, entry);
		},
	};
}

/** The error an unknown earlier outcome becomes on a retry: the job may exist, so nothing is sent. */
export function notResentText(record: Extract<SubmitRecord, { kind: 'unknown' }>, itemIndex: number): { message: string; description: string } {
	return {
		message: `Item ${itemIndex + 1} was not submitted again on n8n's retry: its first submission may have created a job`,
		description: `The first try failed with: ${record.message}. ${record.description ?? ''} Retry On Fail never sends a submission whose outcome is unknown; check the job list, then resubmit only if the job is not there.`.replace(/\s+/g, ' '),
	};
}

/** Job IDs of the items a node run submitted, for an error that would otherwise hide them. */
export function submittedJobIds(outputs: Array<IDataObject | IDataObject[] | undefined>): string[] {
	return outputs.flatMap((output) => (Array.isArray(output) ? output : output ? [output] : [])).flatMap((json) => (typeof json.jobId === 'string' ? [json.jobId] : []));
}
