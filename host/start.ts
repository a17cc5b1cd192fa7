// `npm start`: the reference server and a real n8n with this package, its credentials and the example
// workflows, on 127.0.0.1, until Ctrl-C.
import { join } from 'path';

import { DEFAULT_HOST_VERSION, HOSTS } from './hosts';
import { startN8n } from './n8n';
import type { RunningN8n } from './n8n';
import { projectRoot } from './paths';
import { openSession } from './session';
import type { Session } from './session';
import { activateWorkflow, createOwner, DEMO_OWNER, EXAMPLE_IDS, exampleWorkflows, importIntoN8n } from './workspace';

const USAGE = `usage: npm start -- [--n8n-version ${Object.keys(HOSTS).join('|')}] [--port 5678] [--server-port 5680] [--reset-examples]`;

interface StartFlags {
	hostVersion: string;
	port: number;
	serverPort: number;
	resetExamples: boolean;
}

function parseFlags(argv: string[]): StartFlags {
	const flags: StartFlags = { hostVersion: DEFAULT_HOST_VERSION, port: 5678, serverPort: 5680, resetExamples: false };
	for (let i = 0; i < argv.length; i++) {
		const [name, inline] = argv[i].split('=', 2);
		const value = () => inline ?? argv[++i] ?? '';
		const port = () => {
			const text = value();
			if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 65535) throw new Error(`${name} needs a port number, got "${text}"`);
			return Number(text);
		};
		if (name === '--n8n-version') flags.hostVersion = value();
		else if (name === '--port') flags.port = port();
		else if (name === '--server-port') flags.serverPort = port();
		else if (name === '--reset-examples') flags.resetExamples = true;
		else throw new Error(`unknown flag "${name}"`);
	}
	if (!HOSTS[flags.hostVersion]) throw new Error(`--n8n-version must be one of ${Object.keys(HOSTS).join(', ')}`);
	return flags;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
	let flags: StartFlags;
	try {
		flags = parseFlags(process.argv.slice(2));
	} catch (err) {
		log(`error: ${(err as Error).message}\n${USAGE}`);
		process.exit(2);
	}
	const userFolder = join(projectRoot, '.n8n-host', `n8n-${flags.hostVersion}`);
	// Filled as things start, so Ctrl-C at any moment stops what is running.
	const running: { session?: Session; n8n?: RunningN8n } = {};
	let stopping = false;
	const stop = async (signal: string) => {
		if (stopping) return;
		stopping = true;
		log(`\n${signal}: stopping n8n and the reference server`);
		await running.n8n?.stop();
		await running.session?.close();
		log('stopped');
		process.exit(0);
	};
	process.on('SIGINT', () => void stop('SIGINT'));
	process.on('SIGTERM', () => void stop('SIGTERM'));

	const session = await openSession({ hostVersion: flags.hostVersion, userFolder, log, n8nPort: flags.port, serverPort: flags.serverPort });
	running.session = session;
	if (session.freshUserFolder || flags.resetExamples) {
		log('importing the example workflows and activating the trigger and the MCP server examples');
		await importIntoN8n(session.n8n, [], exampleWorkflows());
		await activateWorkflow(session.n8n, EXAMPLE_IDS['trigger-on-completed']);
		await activateWorkflow(session.n8n, EXAMPLE_IDS['mcp-server-for-agents']);
	} else {
		log('keeping your workflows (npm start -- --reset-examples re-imports the examples)');
	}
	log(`starting n8n ${flags.hostVersion}`);
	const n8n = await startN8n(session.n8n, (line) => {
		if (/error/i.test(line) && !/python task runner/i.test(line)) log(`  n8n: ${line}`);
	});
	running.n8n = n8n;
	n8n.child.once('exit', (code) => {
		if (!stopping) {
			log(`n8n exited unexpectedly (code ${code}):\n${n8n.output().slice(-3000)}`);
			void session.close().then(() => process.exit(1));
		}
	});
	await createOwner(n8n.url, DEMO_OWNER);

	const { service } = session;
	log('');
	log(`n8n ${flags.hostVersion} editor:  ${n8n.url}`);
	log(`  login:            ${DEMO_OWNER.email} / ${DEMO_OWNER.password}`);
	log(`reference server:   ${service.url}  (native API: Bearer ${service.nativeToken})`);
	log(`  relay apiKey:     ${service.relayApiKey}`);
	log(`  relay user-api-key: ${service.userApiKey}`);
	log(`MCP server for AI agents: ${n8n.url}/mcp/job-execution  (Authorization: Bearer ${session.mcpToken})`);
	log('credentials "Job Execution API (reference server)" and "Job Execution Relay API (reference server)" are ready;');
	log('the example workflows are under Overview. Ctrl-C stops everything.');
}

main().catch((err: unknown) => {
	log(`error: ${(err as Error).message}`);
	process.exit(1);
});
