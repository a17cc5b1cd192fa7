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

/** A job that ran longer than this while the node waited held the execution (and its worker) long enough to say so. */
export const LONG_WAIT_SECONDS = 300;

/** Where an npm user reads the ways to wait for long jobs (the examples are in the repository, not the npm package). */
export const LONG_JOBS_DOCS_URL = 'https://github.com/n8n-nodes-job-execution/n8n-nodes-job-execution/blob/main/docs/running-at-scale.md#long-jobs-which-way-to-wait';

/**
 * Version 2: only where it helps, after a wait that held the execution for a long job (the node read the job more
 * than once, and the service says it ran longer than LONG_WAIT_SECONDS); never for a Timeout that was only allowed.
 */
export function hintLongWait(context: IExecuteFunctions, waited: { reads: number; runtimeSeconds: number | null }): void {
	if (waited.reads < 2 || waited.runtimeSeconds === null || waited.runtimeSeconds <= LONG_WAIT_SECONDS) return;
	hintOnce(context, {
		type: 'info',
		location: 'outputPane',
		message: `A job ran for ${Math.round(waited.runtimeSeconds / 60)} minutes while this node waited, holding the execution. For long jobs, submit without waiting and check the job with n8n's Wait node in a loop, or start a workflow from the Job Execution Trigger when the job ends: ${LONG_JOBS_DOCS_URL}`,
	});
}
