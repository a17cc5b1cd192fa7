/**
 * The reference server in its own process, as users run it: the load of the bench (n8n's engine, axios,
 * autocannon) and the server's work then do not share one event loop, and on 2 cores each gets one.
 */
import { spawn } from 'child_process';
import type { ChildProcess } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import type { Catalog } from '../../server';
import { NATIVE_TOKEN, RELAY_KEY, USER_KEY } from '../../testkit/fixtures';

export interface ServerProcess {
	url: string;
	pid: number;
	/** Resident set size of the server process in bytes (Linux /proc), or undefined elsewhere. */
	residentBytes(): number | undefined;
	stop(): Promise<void>;
}

export interface ServerProcessOptions {
	catalog: Catalog;
	concurrency?: number;
	stepMs?: number;
	/** Require the fixtures' bearer token on the native API (default true, as a real deployment would). */
	nativeToken?: boolean;
	/** Hold every answer this long first (ms), like a service across a network (delayedServerMain.ts). */
	latencyMs?: number;
	/** Finished jobs kept before the oldest is evicted (the server's --max-jobs; its default 10,000 otherwise). */
	maxJobs?: number;
}

const SERVER_MAIN = join(__dirname, '..', '..', 'server', 'main.js');
const DELAYED_MAIN = join(__dirname, 'delayedServerMain.js');

/** Starts `server/main.js` with these CLI arguments (held `latencyMs` first when given); resolves with the base URL it prints first on stdout. */
export async function spawnServer(cliArgs: string[], latencyMs?: number): Promise<{ url: string; child: ChildProcess }> {
	const main = latencyMs ? [DELAYED_MAIN, String(latencyMs)] : [SERVER_MAIN];
	const child = spawn(process.execPath, [...main, ...cliArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
	let stderr = '';
	child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	const url = await new Promise<string>((resolve, reject) => {
		let stdout = '';
		child.stdout?.on('data', (chunk: Buffer) => {
			stdout += chunk.toString();
			if (stdout.includes('\n')) resolve(stdout.split('\n')[0].trim());
		});
		child.once('exit', (code) => reject(new Error(`reference server exited with ${code}: ${stderr}`)));
	});
	return { url, child };
}

export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
	const directory = mkdtempSync(join(tmpdir(), 'job-execution-bench-'));
	const catalogFile = join(directory, 'catalog.json');
	writeFileSync(catalogFile, JSON.stringify(options.catalog));
	const args = [
		SERVER_MAIN,
		'--port', '0',
		'--catalog', catalogFile,
		'--relay-api-key', RELAY_KEY,
		'--user-api-key', USER_KEY,
		'--concurrency', String(options.concurrency ?? 4),
		'--step-ms', String(options.stepMs ?? 1000),
	];
	if (options.nativeToken !== false) args.push('--native-token', NATIVE_TOKEN);
	if (options.maxJobs !== undefined) args.push('--max-jobs', String(options.maxJobs));
	const { url, child } = await spawnServer(args.slice(1), options.latencyMs);
	return {
		url,
		pid: child.pid as number,
		residentBytes: () => residentBytesOf(child.pid as number),
		stop: () => stopChild(child, directory),
	};
}

function residentBytesOf(pid: number): number | undefined {
	try {
		const status = readFileSync(`/proc/${pid}/status`, 'utf8');
		const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
		return match ? Number(match[1]) * 1024 : undefined;
	} catch {
		return undefined;
	}
}

async function stopChild(child: ChildProcess, directory: string): Promise<void> {
	if (child.exitCode === null) {
		const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
		child.kill('SIGTERM');
		await exited;
	}
	rmSync(directory, { recursive: true, force: true });
}

/** Kills a spawned server at once and waits until it has exited. */
export async function killServer(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null) return;
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	child.kill('SIGKILL');
	await exited;
}
