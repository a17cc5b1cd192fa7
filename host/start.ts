// `npm start`: the reference server and a real n8n with this package, its credentials and the example
// workflows, on 127.0.0.1, until Ctrl-C.
import { join, resolve } from 'path';

import { selfSignedCertificate } from '../server';
import type { MadeCertificate } from '../server';
import { DEFAULT_HOST_VERSION, hostSpec, HOSTS } from './hosts';
import { startN8n } from './n8n';
import type { RunningN8n } from './n8n';
import { projectRoot } from './paths';
import { openQueueCluster } from './queue';
import type { QueueCluster } from './queue';
import { openSession } from './session';
import type { Session } from './session';
import { activateWorkflow, createOwner, DEMO_OWNER, EXAMPLE_IDS, exampleWorkflows, importIntoN8n } from './workspace';

const USAGE =
	`usage: npm start -- [--n8n-version ${Object.keys(HOSTS).join('|')}] [--port 5678] [--server-port 5680] [--reset-examples] [--verbose] [--data-dir DIR] [--https]\n` +
	'       npm run start:queue -- [--workers 2] [--concurrency 10] [--ports-from PORT] [--port 5678] [--server-port 5680] [--reset-examples] [--verbose] [--data-dir DIR]';

interface StartFlags {
	hostVersion: string;
	port: number;
	serverPort: number;
	resetExamples: boolean;
	// n8n's own log in full (level info); by default only this package's lines and n8n's errors, without stacks.
	verbose: boolean;
	// n8n's data, the service's keys and jobs; default .n8n-host/n8n-<version> (queue-<version> in queue mode).
	dataDir?: string;
	// Queue mode (`npm run start:queue`): main + workers on Redis and PostgreSQL.
	queue: boolean;
	workers: number;
	concurrency: number;
	portsFrom?: number;
	// The reference server over https with a self-signed certificate n8n trusts (NODE_EXTRA_CA_CERTS); single mode.
	https: boolean;
}

function parseFlags(argv: string[]): StartFlags {
	const flags: StartFlags = { hostVersion: DEFAULT_HOST_VERSION, port: 5678, serverPort: 5680, resetExamples: false, verbose: false, queue: false, workers: 2, concurrency: 10, https: false };
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
		else if (name === '--verbose') flags.verbose = true;
		else if (name === '--data-dir') flags.dataDir = resolve(value());
		else if (name === '--queue') flags.queue = true;
		else if (name === '--workers') flags.workers = count(name, value(), 8);
		else if (name === '--concurrency') flags.concurrency = count(name, value(), 100);
		else if (name === '--ports-from') flags.portsFrom = port();
		else if (name === '--https') flags.https = true;
		else throw new Error(`unknown flag "${name}"`);
	}
	if (!HOSTS[flags.hostVersion]) throw new Error(`--n8n-version must be one of ${Object.keys(HOSTS).join(', ')}`);
	// Queue mode is measured on 2.x only (workers, durable scheduler); 1.x is the single-process host.
	if (flags.queue && flags.hostVersion !== DEFAULT_HOST_VERSION) throw new Error(`queue mode runs on n8n ${DEFAULT_HOST_VERSION} only`);
	if (flags.queue && flags.https) throw new Error('--https runs in single mode only (npm start)');
	return flags;
}

function count(name: string, text: string, max: number): number {
	if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max) throw new Error(`${name} needs a whole number from 1 to ${max}, got "${text}"`);
	return Number(text);
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
	// Filled as things start, so Ctrl-C at any moment stops what is running.
	const running: Running = {};
	const stop = async (signal: string) => {
		if (running.stopping) return;
		running.stopping = true;
		log(`\n${signal}: stopping n8n${flags.queue ? ', its workers, Redis, PostgreSQL' : ''} and the reference server`);
		await running.n8n?.stop();
		await running.cluster?.close();
		await running.session?.close();
		log('stopped');
		process.exit(0);
	};
	process.on('SIGINT', () => void stop('SIGINT'));
	process.on('SIGTERM', () => void stop('SIGTERM'));

	const { session, url, notes } = flags.queue ? await startQueueMode(flags, running) : await startSingle(flags, running);
	await createOwner(url, DEMO_OWNER);

	const { service } = session;
	log('');
	log(`n8n ${flags.hostVersion} editor:  ${url}`);
	log(`  login:            ${DEMO_OWNER.email} / ${DEMO_OWNER.password}`);
	for (const note of notes) log(note);
	log(`reference server:   ${service.url}  (native API: Bearer ${service.nativeToken})`);
	log(`  relay apiKey:     ${service.relayApiKey}`);
	log(`  relay user-api-key: ${service.userApiKey}`);
	// The relay's Submit asks for a Flow ID, which nothing else shows a newcomer.
	log('  flows (Flow File Path for the native API, Flow ID for the relay):');
	for (const flow of session.server.catalog.flows) log(`    ${flow.flowFileName}  ${flow.flowId}`);
	log(`  a flow in your browser: ${service.url}/api/v1/flows?flowFileName=%2FShared%2FFlows%2Fsales.flow&runProfile=default`);
	log(`MCP server for AI agents: ${url}/mcp/job-execution  (Authorization: Bearer ${session.mcpToken})`);
	log(`keys, token and the service's jobs are kept in ${session.n8n.userFolder} across restarts (delete it to start over)`);
	log('credentials "Job Execution API (reference server)" and "Job Execution Relay API (reference server)" are ready;');
	log('the example workflows are in the workflow list (Overview: the house icon at the top of the sidebar).');
	log(`${flags.verbose ? '' : 'n8n\'s own log: --verbose. '}Ctrl-C stops everything.`);
}

interface Running {
	session?: Session;
	n8n?: RunningN8n;
	cluster?: QueueCluster;
	stopping?: boolean;
}

interface Started {
	session: Session;
	url: string;
	// Extra lines for the summary.
	notes: string[];
}

// n8n's own log is quiet by default: this package's lines (its nodes log through n8n's logger as "Job Execution …")
// and the first line of n8n's errors; no stack frames, no JSON continuation lines. --verbose shows everything.
function n8nLogFilter(name: string, verbose: boolean, write: (line: string) => void = log): (line: string) => void {
	return (line) => {
		if (line.trim() === '') return;
		if (verbose) return write(`  ${name}: ${line}`);
		if (/Job Execution/.test(line)) return write(`  ${name}: ${line.trim()}`);
		// Stack frames, continuation lines of a multi-line message or object, n8n's harmless Python runner notice.
		if (/^\s/.test(line) || /^[}\]{[]/.test(line) || /python task runner/i.test(line)) return;
		if (/\berror\b/i.test(line)) write(`  ${name}: ${line.slice(0, 300)}`);
	};
}

// An n8n process that ends on its own takes everything down: a half-running set-up helps nobody.
function exitWithProcess(name: string, n8n: RunningN8n, running: Running, cleanUp: () => Promise<void>): void {
	n8n.child.once('exit', (code) => {
		if (running.stopping) return;
		running.stopping = true;
		log(`${name} exited unexpectedly (code ${code}):\n${n8n.output().slice(-3000)}`);
		void cleanUp().then(() => process.exit(1));
	});
}

async function importExamples(session: Session, flags: StartFlags, command: string): Promise<void> {
	if (session.freshUserFolder || flags.resetExamples) {
		log('importing the example workflows and activating the trigger and the MCP server examples');
		await importIntoN8n(session.n8n, [], exampleWorkflows());
		await activateWorkflow(session.n8n, EXAMPLE_IDS['trigger-on-completed']);
		await activateWorkflow(session.n8n, EXAMPLE_IDS['mcp-server-for-agents']);
	} else {
		log(`keeping your workflows (${command} -- --reset-examples re-imports the examples)`);
	}
}

// The reference service keeps its jobs in the host folder, so a restart finds them (and the trigger's state agrees).
const JOBS_FILE = 'reference-service-jobs.json';

// With --https: a self-signed certificate, trusted by n8n as a private CA is (NODE_EXTRA_CA_CERTS), so the credentials
// keep Ignore SSL Issues off; it and its key go when the session closes.
function httpsSetUp(flags: StartFlags): { certificate?: MadeCertificate; n8nEnv: Record<string, string> } {
	const n8nEnv = { ...hostSpec(flags.hostVersion).startEnv };
	if (!flags.https) return { n8nEnv };
	const certificate = selfSignedCertificate();
	return { certificate, n8nEnv: { ...n8nEnv, NODE_EXTRA_CA_CERTS: certificate.certFile } };
}

async function startSingle(flags: StartFlags, running: Running): Promise<Started> {
	const userFolder = flags.dataDir ?? join(projectRoot, '.n8n-host', `n8n-${flags.hostVersion}`);
	const { certificate, n8nEnv } = httpsSetUp(flags);
	const session = await openSession({
		hostVersion: flags.hostVersion,
		userFolder,
		log,
		n8nPort: flags.port,
		serverPort: flags.serverPort,
		n8nEnv,
		// Strict: a flow the catalog does not hold is refused as a real service refuses it (a typo shows its error).
		server: { dataFile: join(userFolder, JOBS_FILE), strict: true, tls: certificate },
	}).catch((err: unknown) => {
		certificate?.remove();
		throw err;
	});
	if (certificate) {
		const close = session.close;
		session.close = async () => {
			await close();
			certificate.remove();
		};
	}
	running.session = session;
	if (flags.verbose) session.n8n.logLevel = 'info';
	await importExamples(session, flags, 'npm start');
	log(`starting n8n ${flags.hostVersion}`);
	const n8n = await startN8n(session.n8n, n8nLogFilter('n8n', flags.verbose));
	running.n8n = n8n;
	exitWithProcess('n8n', n8n, running, () => session.close());
	const notes = certificate
		? [`https:             a self-signed certificate, ${certificate.certFile}: n8n trusts it (NODE_EXTRA_CA_CERTS); your browser and curl (--cacert) do not`]
		: [];
	return { session, url: n8n.url, notes };
}

async function startQueueMode(flags: StartFlags, running: Running): Promise<Started> {
	const root = flags.dataDir ?? join(projectRoot, '.n8n-host', `queue-${flags.hostVersion}`);
	const cluster = await openQueueCluster({
		hostVersion: flags.hostVersion,
		root,
		log,
		workers: flags.workers,
		concurrency: flags.concurrency,
		n8nPort: flags.port,
		serverPort: flags.serverPort,
		portsFrom: flags.portsFrom,
		workerLogLevel: flags.verbose ? 'info' : 'warn',
		n8nEnv: hostSpec(flags.hostVersion).startEnv,
		server: { dataFile: join(root, 'main', JOBS_FILE) },
	});
	if (flags.verbose) cluster.session.n8n.logLevel = 'info';
	running.cluster = cluster;
	await importExamples(cluster.session, flags, 'npm run start:queue');
	log(`starting ${flags.workers} n8n workers (concurrency ${flags.concurrency} each), then the main instance`);
	for (const [i, worker] of cluster.workers.entries()) {
		exitWithProcess(worker.name, await cluster.startWorker(i, n8nLogFilter(worker.name, flags.verbose)), running, () => cluster.close());
	}
	const main = await cluster.startMain({}, n8nLogFilter('main', flags.verbose));
	exitWithProcess('n8n main', main, running, () => cluster.close());
	const { ports } = cluster;
	return {
		session: cluster.session,
		url: main.url,
		notes: [
			`queue mode:         main + ${flags.workers} workers; Redis 127.0.0.1:${ports.redis}, PostgreSQL 127.0.0.1:${ports.postgres} (database n8n, user postgres)`,
			`  worker health:    ${ports.workers.map((worker) => `http://127.0.0.1:${worker.health}/healthz`).join('  ')}`,
			`  data:             ${root} (delete it to start over)`,
		],
	};
}

main().catch((err: unknown) => {
	log(`error: ${(err as Error).message}`);
	process.exit(1);
});
