// Drives a real n8n: its CLI commands (import, execute, activate) and `n8n start` as a child process.
import { spawn } from 'child_process';
import type { ChildProcess } from 'child_process';
import { mkdirSync, readFileSync } from 'fs';
import { createServer } from 'net';
import { join } from 'path';

import type { InstalledHost } from './install';

export interface N8nInstance {
	host: InstalledHost;
	userFolder: string;
	encryptionKey: string;
	port: number;
	brokerPort: number;
	logLevel?: 'error' | 'warn' | 'info' | 'debug';
	// Settings of this instance's set-up (queue mode: Postgres, Redis, its own ports), for every command.
	env?: Record<string, string>;
}

export interface CommandResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** The kernel's range of ports for the local end of outgoing connections (Linux; the usual default elsewhere). */
function ephemeralRange(): [number, number] {
	try {
		const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
		if (low > 0 && high >= low) return [low, high];
	} catch {
		// not Linux: the IANA range
	}
	return [49152, 65535];
}

/** Whether nothing listens on 127.0.0.1:port now. */
function canListen(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const probe = createServer();
		probe.once('error', () => resolve(false));
		probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
	});
}

/** Ports handed out by this process, never twice. */
const handedOut = new Set<number>();

/**
 * A port for a server to listen on later, chosen below the kernel's ephemeral range: a port from that range can be
 * taken in the meantime by the local end of any outgoing connection (n8n's own to Postgres and Redis), and the server
 * then fails with "port already in use" (seen in the queue tier). Below it, only a listener can take it.
 */
export async function freePort(): Promise<number> {
	const [low] = ephemeralRange();
	const from = Math.max(1024, low - 12_000);
	const span = low - from;
	const start = Math.floor(Math.random() * span);
	for (let i = 0; i < span; i++) {
		const port = from + ((start + i) % span);
		if (handedOut.has(port)) continue;
		// Taken before the probe, so two calls at once never hand out the same port.
		handedOut.add(port);
		if (await canListen(port)) return port;
		handedOut.delete(port);
	}
	throw new Error(`no free port from ${from} to ${low - 1}`);
}

// Not passed on: the caller's own n8n settings, and a test runner's NODE_ENV=test (n8n's commands then do nothing).
const NOT_INHERITED = /^(N8N_|DB_|JEST_|NODE_ENV$|NODE_COMPILE_CACHE$)/;

// Offline, quiet and on loopback only.
export function n8nEnv(n8n: N8nInstance, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !NOT_INHERITED.test(key)));
	// n8n's temporary files (data-table uploads, Node's compile cache) stay in the user folder, not in /tmp.
	const scratch = join(n8n.userFolder, 'tmp');
	mkdirSync(scratch, { recursive: true });
	return {
		...inherited,
		TMPDIR: scratch,
		NODE_COMPILE_CACHE: join(scratch, 'node-compile-cache'),
		PATH: n8n.host.path,
		N8N_USER_FOLDER: n8n.userFolder,
		N8N_ENCRYPTION_KEY: n8n.encryptionKey,
		DB_TYPE: 'sqlite',
		N8N_LOG_LEVEL: n8n.logLevel ?? 'warn',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PORT: String(n8n.port),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_RUNNERS_BROKER_PORT: String(n8n.brokerPort),
		N8N_SECURE_COOKIE: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
		...n8n.host.spec.env,
		...n8n.env,
		...extra,
	};
}

function n8nArgs(n8n: N8nInstance, args: string[]): string[] {
	return [join(n8n.host.dir, 'node_modules', 'n8n', 'bin', 'n8n'), ...args];
}

export function n8nCommand(n8n: N8nInstance, args: string[], env: Record<string, string> = {}, timeoutMs = 180_000): Promise<CommandResult> {
	return new Promise((resolve, reject) => {
		const child = spawn(n8n.host.nodeBin, n8nArgs(n8n, args), { env: n8nEnv(n8n, env), stdio: ['ignore', 'pipe', 'pipe'] });
		runningCommands.add(child);
		child.once('exit', () => runningCommands.delete(child));
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
		child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
		child.on('error', (err) => {
			clearTimeout(timer);
			reject(err);
		});
		child.on('close', (code) => {
			clearTimeout(timer);
			resolve({ code, stdout, stderr });
		});
	});
}

export async function n8nCommandOk(n8n: N8nInstance, args: string[]): Promise<CommandResult> {
	const result = await n8nCommand(n8n, args);
	if (result.code !== 0) throw new Error(`n8n ${args[0]} failed (exit ${result.code}):\n${(result.stderr + result.stdout).trim().slice(-4000)}`);
	return result;
}

// n8n's runData: per node, its runs, each with the items of each output branch.
export type RunData = Record<string, Array<{ data?: { main: Array<Array<{ json: Record<string, unknown> }> | null> } }>>;

// The items a node output over all its runs and branches; undefined when the node did not run.
export function itemsOfNode(runData: RunData, nodeName: string): Array<Record<string, unknown>> | undefined {
	return runData[nodeName]?.flatMap((run) => (run.data?.main ?? []).flatMap((branch) => (branch ?? []).map((item) => item.json)));
}

export interface ExecutedWorkflow {
	code: number | null;
	// n8n's IRun as JSON, when the command printed one.
	run?: { data: { resultData: { runData: RunData; error?: { message: string; description?: string } } } };
	output: string;
}

// `n8n execute --rawOutput` prints the run through the logger, so it needs level info; the JSON starts at a line `{`.
export async function executeWorkflow(n8n: N8nInstance, workflowId: string): Promise<ExecutedWorkflow> {
	const result = await n8nCommand(n8n, ['execute', `--id=${workflowId}`, '--rawOutput'], { N8N_LOG_LEVEL: 'info' });
	const output = result.stdout + result.stderr;
	const lines = result.stdout.split('\n');
	const start = lines.indexOf('{');
	if (start === -1) return { code: result.code, output };
	let end = lines.length;
	while (end > start && lines[end - 1] !== '}') end--;
	try {
		return { code: result.code, output, run: JSON.parse(lines.slice(start, end).join('\n')) as ExecutedWorkflow['run'] };
	} catch {
		return { code: result.code, output };
	}
}

export function nodeItems(executed: ExecutedWorkflow, nodeName: string): Array<Record<string, unknown>> {
	const items = executed.run && itemsOfNode(executed.run.data.resultData.runData, nodeName);
	if (!items) throw new Error(`node "${nodeName}" did not run:\n${executed.output.slice(-3000)}`);
	return items;
}

export interface RunningN8n {
	url: string;
	child: ChildProcess;
	output(): string;
	stop(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
	try {
		const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
		await response.arrayBuffer();
		return response.ok;
	} catch {
		return false;
	}
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Process groups of started n8n instances, and running CLI commands: killed when this process exits, even
// mid-start or when a signal ends it (npm start's handlers exit through process.exit).
const startedGroups = new Set<number>();
const runningCommands = new Set<ChildProcess>();
process.on('exit', () => {
	for (const command of runningCommands) command.kill('SIGKILL');
	for (const group of startedGroups) {
		try {
			process.kill(-group, 'SIGKILL');
		} catch {
			// already gone
		}
	}
});

// `n8n start` in its own process group, so a terminal's Ctrl-C reaches it once, through stop().
export function startN8n(n8n: N8nInstance, onLine?: (line: string) => void, readyWithinMs = 120_000): Promise<RunningN8n> {
	const url = `http://127.0.0.1:${n8n.port}`;
	return startN8nProcess(n8n, { args: ['start'], readyUrls: [`${url}/healthz/readiness`, `${url}/rest/settings`], onLine, readyWithinMs });
}

export interface N8nProcessOptions {
	// The n8n command and its flags: ['start'], ['worker', '--concurrency=10'].
	args: string[];
	// Ready when every one of these answers 2xx.
	readyUrls: string[];
	onLine?: (line: string) => void;
	readyWithinMs?: number;
}

// Any long-running n8n command in its own process group (its task runner included); stop() ends the group.
export async function startN8nProcess(n8n: N8nInstance, options: N8nProcessOptions): Promise<RunningN8n> {
	const { onLine, readyWithinMs = 120_000 } = options;
	const child = spawn(n8n.host.nodeBin, n8nArgs(n8n, options.args), { env: n8nEnv(n8n), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
	let output = '';
	let pending = '';
	const collect = (chunk: Buffer) => {
		const text = chunk.toString();
		output = (output + text).slice(-200_000);
		pending += text;
		const lines = pending.split('\n');
		pending = lines.pop() ?? '';
		for (const line of lines) onLine?.(line);
	};
	child.stdout?.on('data', collect);
	child.stderr?.on('data', collect);
	startedGroups.add(child.pid as number);
	const exited = new Promise<number | null>((resolve) =>
		child.once('exit', (code) => {
			startedGroups.delete(child.pid as number);
			resolve(code);
		}),
	);
	let hasExited = false;
	void exited.then(() => (hasExited = true));

	const url = `http://127.0.0.1:${n8n.port}`;
	const stop = async () => {
		if (hasExited) return;
		try {
			process.kill(-(child.pid as number), 'SIGTERM');
		} catch {
			return;
		}
		const forced = setTimeout(() => {
			if (!hasExited) process.kill(-(child.pid as number), 'SIGKILL');
		}, 20_000);
		await exited;
		clearTimeout(forced);
	};

	const deadline = Date.now() + readyWithinMs;
	const allAnswer = async () => {
		for (const readyUrl of options.readyUrls) if (!(await answers(readyUrl))) return false;
		return true;
	};
	while (!(await allAnswer())) {
		if (hasExited) throw new Error(`n8n exited before it was ready:\n${output.slice(-4000)}`);
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`n8n was not ready within ${readyWithinMs / 1000} s:\n${output.slice(-4000)}`);
		}
		await sleep(500);
	}
	return { url, child, output: () => output, stop };
}
