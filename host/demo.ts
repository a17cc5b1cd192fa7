// `npm run demo`: the `npm start` set-up, headless in a throw-away user folder; runs each example workflow once
// with `n8n execute`, prints what our nodes returned, then stops.
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { DEFAULT_HOST_VERSION, HOSTS } from './hosts';
import { executeWorkflow, itemsOfNode, startN8n } from './n8n';
import { N8nRestClient } from './n8nRest';
import type { ExecutionSummary } from './n8nRest';
import { openSession } from './session';
import type { Session } from './session';
import { activateWorkflow, createOwner, DEMO_OWNER, EXAMPLE_IDS, exampleWorkflows, importIntoN8n } from './workspace';
import type { WorkflowRecord } from './workspace';

// In the order a user would try them; the trigger comes last, with finished jobs to report.
const EXECUTED = ['submit-and-wait', 'get-job-and-navigation-url', 'get-many-and-forward'];

const log = (line: string) => process.stderr.write(`${line}\n`);

function brief(json: Record<string, unknown>): string {
	const shown: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(json)) {
		if (value === null || typeof value === 'object') continue;
		shown[key] = typeof value === 'string' && value.length > 70 ? `${value.slice(0, 67)}...` : value;
	}
	return JSON.stringify(shown);
}

function printRun(workflow: WorkflowRecord, itemsOf: (nodeName: string) => Array<Record<string, unknown>> | undefined): void {
	for (const node of workflow.nodes as Array<{ name: string }>) {
		const items = itemsOf(node.name);
		if (!items) continue;
		log(`  ${node.name}: ${items.length} item${items.length === 1 ? '' : 's'}`);
		for (const json of items.slice(0, 3)) log(`    ${brief(json)}`);
		if (items.length > 3) log(`    … ${items.length - 3} more`);
	}
}

// A polling trigger cannot be run by `n8n execute`: it is activated in a running n8n instead. Set to start from
// the jobs already there, its first poll (at activation) reports the jobs the workflows above finished.
async function runTriggerLive(session: Session, workflows: WorkflowRecord[]): Promise<number> {
	const example = workflows.find((candidate) => candidate.id === EXAMPLE_IDS['trigger-on-completed']);
	if (!example) throw new Error('the trigger example is missing');
	const nodes = (example.nodes as Array<{ type: string; parameters: Record<string, unknown> }>).map((node) =>
		node.type.endsWith('.jobExecutionTrigger') ? { ...node, parameters: { ...node.parameters, startFrom: 'existing' } } : node,
	);
	log(`\n▶ ${example.name}  (activated in n8n start, Start From: existing jobs)`);
	await importIntoN8n(session.n8n, [], [{ ...example, nodes }]);
	await activateWorkflow(session.n8n, example.id);
	const n8n = await startN8n(session.n8n);
	try {
		await createOwner(n8n.url, DEMO_OWNER);
		const rest = await N8nRestClient.login(n8n.url, DEMO_OWNER, session.n8n.host);
		const deadline = Date.now() + 60_000;
		let execution: ExecutionSummary | undefined;
		while (!execution && Date.now() < deadline) {
			execution = (await rest.executions(example.id)).find((candidate) => candidate.status === 'success' || candidate.status === 'error');
			if (!execution) await new Promise((resolve) => setTimeout(resolve, 1000));
		}
		if (!execution) {
			log('  failed: no execution within 60 s');
			return 1;
		}
		const runData = await rest.runData(execution.id);
		printRun(example, (name) => itemsOfNode(runData, name));
		return execution.status === 'success' ? 0 : 1;
	} finally {
		await n8n.stop();
	}
}

async function main(): Promise<void> {
	const hostVersion = process.argv[2] ?? DEFAULT_HOST_VERSION;
	if (!HOSTS[hostVersion]) throw new Error(`usage: npm run demo [-- ${Object.keys(HOSTS).join('|')}]`);
	const userFolder = mkdtempSync(join(tmpdir(), 'job-execution-demo-'));
	// Stopped from outside (npm signalled, Ctrl-C): the n8n process groups are killed on exit (host/n8n.ts);
	// the throw-away folder goes too.
	for (const signal of ['SIGINT', 'SIGTERM'] as const) {
		process.once(signal, () => {
			log(`\n${signal}: stopping the demo`);
			rmSync(userFolder, { recursive: true, force: true });
			process.exit(130);
		});
	}
	const session = await openSession({ hostVersion, userFolder, log });
	let failures = 0;
	try {
		const workflows = exampleWorkflows();
		await importIntoN8n(session.n8n, [], workflows);
		for (const example of EXECUTED) {
			const workflow = workflows.find((candidate) => candidate.id === EXAMPLE_IDS[example]);
			if (!workflow) throw new Error(`example ${example} is missing`);
			log(`\n▶ ${workflow.name}  (n8n execute --id=${workflow.id})`);
			const executed = await executeWorkflow(session.n8n, workflow.id);
			const error = executed.run?.data.resultData.error;
			if (executed.code !== 0 || !executed.run || error) {
				failures++;
				log(`  failed: ${error?.message ?? executed.output.trim().split('\n').slice(-5).join('\n  ')}`);
				continue;
			}
			const { runData } = executed.run.data.resultData;
			printRun(workflow, (name) => itemsOfNode(runData, name));
		}
		failures += await runTriggerLive(session, workflows);
	} finally {
		await session.close();
		rmSync(userFolder, { recursive: true, force: true });
	}
	log(failures === 0 ? '\nall example workflows ran in n8n' : `\n${failures} example workflow(s) failed`);
	process.exit(failures === 0 ? 0 : 1);
}

main().catch((err: unknown) => {
	log(`error: ${(err as Error).message}`);
	process.exit(1);
});
