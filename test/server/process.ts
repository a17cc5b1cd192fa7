// The compiled reference server CLI as a real child process (kill -9, disk-full and memory tests).
import { spawn } from 'child_process';
import type { ChildProcess } from 'child_process';
import { existsSync, readFileSync } from 'fs';
import { resolve } from 'path';

import { cpuMsOf } from '../../testkit/processCpu';

export const COMPILED_MAIN = resolve(__dirname, '../../dist/server/main.js');
export const compiledMainExists = existsSync(COMPILED_MAIN);

export interface CliProcess {
	url: string;
	child: ChildProcess;
	stderr: () => string;
	// Resident set size in bytes (Linux /proc).
	residentBytes: () => number;
	// CPU time the process has used (user + system), in ms (Linux /proc, 10 ms ticks).
	cpuMs: () => number;
	// Bytes the process has passed to write calls: files and sockets (Linux /proc).
	writtenBytes: () => number;
	kill: () => Promise<void>;
}

// `nodeArgs` go to node itself (a heap cap: --max-old-space-size=N).
export async function startCli(args: string[], nodeArgs: string[] = []): Promise<CliProcess> {
	const child = spawn(process.execPath, [...nodeArgs, COMPILED_MAIN, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
	let stderr = '';
	child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
	const url = await new Promise<string>((resolveUrl, reject) => {
		let stdout = '';
		child.stdout!.on('data', (d: Buffer) => {
			stdout += d.toString();
			if (stdout.includes('\n')) resolveUrl(stdout.split('\n')[0]);
		});
		child.on('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
	});
	const exited = new Promise<void>((done) => child.once('exit', () => done()));
	return {
		url,
		child,
		stderr: () => stderr,
		residentBytes: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024,
		cpuMs: () => cpuMsOf(child.pid ?? 0),
		writtenBytes: () => Number(/wchar:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/io`, 'utf8'))?.[1] ?? NaN),
		kill: async () => {
			if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
			await exited;
		},
	};
}
