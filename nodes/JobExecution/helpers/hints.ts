import type { IExecuteFunctions, NodeExecutionHint } from 'n8n-workflow';

/** The hints already given in one execution of the node: each message is shown once, however many items share it. */
const given = new WeakMap<IExecuteFunctions, Set<string>>();

export function hintOnce(context: IExecuteFunctions, hint: NodeExecutionHint): void {
	const messages = given.get(context) ?? new Set<string>();
	given.set(context, messages);
	if (messages.has(hint.message)) return;
	messages.add(hint.message);
	context.addExecutionHints(hint);
}

/** A wait longer than this holds an execution (and its worker) long enough to say so. */
export const LONG_WAIT_SECONDS = 300;

/** Version 2: a long Timeout holds the execution; the durable loop or the trigger frees it. */
export function hintLongWait(context: IExecuteFunctions, timeoutSeconds: number): void {
	if (timeoutSeconds <= LONG_WAIT_SECONDS) return;
	hintOnce(context, {
		type: 'info',
		location: 'outputPane',
		message: `This node may hold the execution for up to ${Math.round(timeoutSeconds / 60)} minutes while it waits. For long jobs, submit without waiting and check the job in a loop with n8n's Wait node (examples/submit-and-wait-durably.json), or start a workflow from the Job Execution Trigger when the job ends.`,
	});
}
