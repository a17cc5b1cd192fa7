// `npm run demo`: the `npm start` set-up, headless in a throw-away user folder; runs each example workflow once
// with `n8n execute`, prints what our nodes returned, then stops.
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { DEFAULT_HOST_VERSION, HOSTS } from './hosts';
import { executeWorkflow, nodeItems } from './n8n';
import { openSession } from './session';
import { EXAMPLE_IDS, exampleWorkflows, importIntoN8n } from './workspace';

// In the order a user would try them: the trigger then has a finished job to show.
const ORDER = ['submit-and-wait', 'get-job-and-navigation-url', 'get-many-and-forward', 'trigger-on-completed'];

const log = (line: string) => process.stderr.write(`${line}\n`);

function brief(json: Record<string, unknown>): string {
	const shown: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(json)) {
		if (value === null || typeof value === 'object') continue;
		shown[key] = typeof value === 'string' && value.length > 70 ? `${value.slice(0, 67)}...` : value;
	}
	return JSON.stringify(shown);
}

async function main(): Promise<void> {
	const hostVersion = process.argv[2] ?? DEFAULT_HOST_VERSION;
	if (!HOSTS[hostVersion]) throw new Error(`usage: npm run demo [-- ${Object.keys(HOSTS).join('|')}]`);
	const userFolder = mkdtempSync(join(tmpdir(), 'job-execution-demo-'));
	const session = await openSession({ hostVersion, userFolder, log });
	let failures = 0;
	try {
		const workflows = exampleWorkflows();
		await importIntoN8n(session.n8n, [], workflows);
		for (const example of ORDER) {
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
			for (const node of workflow.nodes as Array<{ name: string }>) {
				if (!executed.run.data.resultData.runData[node.name]) continue;
				const items = nodeItems(executed, node.name);
				log(`  ${node.name}: ${items.length} item${items.length === 1 ? '' : 's'}`);
				for (const json of items.slice(0, 3)) log(`    ${brief(json)}`);
				if (items.length > 3) log(`    … ${items.length - 3} more`);
			}
		}
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
