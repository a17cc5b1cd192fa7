/**
 * The child side of figure D6 (bench/figures/answerMemory.ts): `node answerMemoryChild.js <service URL> <items>` reads
 * that many jobs through the Job Execution node (version 2 at its defaults) in a process of its own, so that its
 * resident memory is the node's alone, and prints `RESULT {json}`: resident memory before the batch (n8n loaded,
 * one Get done) and at its peak, the batch's time, items out and its error if any.
 */
import { runActionNode } from '../../testkit/engine';
import { credentialsFor } from '../../testkit/fixtures';

process.env.N8N_LOG_LEVEL ??= 'silent';

async function getJobs(url: string, count: number) {
	const parameters = { authentication: 'jobExecutionApi', resource: 'job', operation: 'get', jobId: '={{ $json.jobId }}' };
	const items = Array.from({ length: count }, (_, n) => ({ jobId: `job-${n}` }));
	return await runActionNode({ typeVersion: 2, parameters, credentials: credentialsFor(url), items });
}

async function main(): Promise<void> {
	const [url, count] = [process.argv[2], Number(process.argv[3])];
	await getJobs(url, 1);
	global.gc?.();
	const baseMiB = process.memoryUsage().rss / 2 ** 20;
	const started = Date.now();
	const result = await getJobs(url, count);
	const figures = { baseMiB, peakMiB: process.resourceUsage().maxRSS / 1024, ms: Date.now() - started, items: result.json.length, error: result.error?.message };
	process.stdout.write(`RESULT ${JSON.stringify(figures)}\n`);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`${String(error)}\n`);
		process.exit(1);
	},
);
