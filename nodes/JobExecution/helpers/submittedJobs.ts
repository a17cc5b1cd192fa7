import { NodeConnectionTypes } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

/**
 * What Submit already did for an item in this invocation of the node, so that n8n's Retry On Fail never submits it
 * again, while the same items reaching Submit again as new work (a loop, a sub-workflow, another execution) submit.
 *
 * n8n retries a node two ways, and each keeps one thing that later work does not share:
 * - In a workflow, WorkflowExecute's retry loop (n8n-core dist/execution-engine/workflow-execute.js, `for (let
 *   tryIndex ...)` and the `checkFailure` loop for an error in the first output item) calls runNode again with the
 *   same executionData: the same item objects and the same run index. A loop runs the node with a new run index.
 * - As an AI tool, makeHandleToolInvocation (n8n-core dist/execution-engine/node-execution-context/utils/
 *   get-input-connection-data.js) takes a new run index and a new item `{ json: toolArgs }` on each try, but the
 *   `toolArgs` object is the one of the invocation; the next call (even with equal arguments) parses a new one.
 * So the memory is keyed by the item object (workflow) or the tool arguments object (tool), in a WeakMap that goes
 * away with the execution, then by execution, node, run (workflow only) and item index.
 */
export type SubmitRecord =
	/** The job was created; `output` is what the item returned without waiting (a retry returns it as it was). */
	| { kind: 'submitted'; jobId: string; output?: IDataObject }
	/** The submission was sent and its outcome is unknown: the job may exist. */
	| { kind: 'unknown'; message: string; description?: string; httpCode?: string };

const records = new WeakMap<object, Map<string, SubmitRecord>>();
const runKeys = new WeakMap<IExecuteFunctions, { scope: string; runIndex: number }>();

export interface SubmitSlot {
	/** What an earlier try of this invocation did for the item, if anything. */
	readonly previous: SubmitRecord | undefined;
	record(entry: SubmitRecord): void;
}

/** The execution, the node's id and the run index, read once per node run (getNode() copies the whole node on every call). */
function runKeyOf(context: IExecuteFunctions): { scope: string; runIndex: number } {
	let runKey = runKeys.get(context);
	if (runKey === undefined) {
		// IExecuteFunctions has no runIndex; the expression proxy carries the context's own.
		const runIndex = Number(context.getWorkflowDataProxy(0).$runIndex) || 0;
		runKey = { scope: `${context.getExecutionId() ?? ''}\u0000${context.getNode().id}`, runIndex };
		runKeys.set(context, runKey);
	}
	return runKey;
}

/**
 * Whether the item came in on the ai_tool input, where makeHandleToolInvocation puts `{ json: toolArgs }` (n8n 2.41.1
 * and 1.123.81 alike; 2.x's isToolExecution() says the same, 1.x has no such method). A workflow run has none there.
 */
function cameAsToolCall(context: IExecuteFunctions, item: INodeExecutionData, itemIndex: number): boolean {
	return context.getInputData(0, NodeConnectionTypes.AiTool)[itemIndex] === item;
}

/** The object a retry shares with the try before it, and the key of this item's invocation under it. */
function memoryKey(context: IExecuteFunctions, itemIndex: number): { holder: object; key: string } | undefined {
	const item: unknown = context.getInputData()[itemIndex];
	if (item === undefined || item === null || typeof item !== 'object') return undefined;
	const { scope, runIndex } = runKeyOf(context);
	if (cameAsToolCall(context, item as INodeExecutionData, itemIndex)) {
		const toolArgs: unknown = (item as INodeExecutionData).json;
		if (toolArgs === undefined || toolArgs === null || typeof toolArgs !== 'object') return undefined;
		return { holder: toolArgs, key: `${scope}\u0000tool\u0000${itemIndex}` };
	}
	return { holder: item, key: `${scope}\u0000${runIndex}\u0000${itemIndex}` };
}

const NO_MEMORY: SubmitSlot = { previous: undefined, record: () => {} };

export function submitSlot(context: IExecuteFunctions, itemIndex: number): SubmitSlot {
	let found: ReturnType<typeof memoryKey>;
	try {
		found = memoryKey(context, itemIndex);
	} catch {
		// A context without input items or run index (none of n8n's today): no retry to guard against.
		return NO_MEMORY;
	}
	if (!found) return NO_MEMORY;
	const { holder, key } = found;
	return {
		previous: records.get(holder)?.get(key),
		record(entry) {
			let byKey = records.get(holder);
			if (!byKey) records.set(holder, (byKey = new Map()));
			byKey.set(key, entry);
		},
	};
}

/** The error an unknown earlier outcome becomes on a retry: the job may exist, so nothing is sent. */
export function notResentText(record: Extract<SubmitRecord, { kind: 'unknown' }>, itemIndex: number): { message: string; description: string } {
	return {
		message: `Not submitted again on n8n's retry: the item's first submission may have created a job [item ${itemIndex}]`,
		description: `The first try failed with: ${record.message}. ${record.description ?? ''} Retry On Fail never sends a submission whose outcome is unknown; check the job list, then resubmit only if the job is not there.`.replace(/\s+/g, ' '),
	};
}

/** Job IDs of the items a node run submitted, for an error that would otherwise hide them. */
export function submittedJobIds(outputs: Array<IDataObject | IDataObject[] | undefined>): string[] {
	return outputs.flatMap((output) => (Array.isArray(output) ? output : output ? [output] : [])).flatMap((json) => (typeof json.jobId === 'string' ? [json.jobId] : []));
}
