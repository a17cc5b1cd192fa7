/**
 * Runs one node run in a child Node.js process with a heap cap, so that a test can prove a hostile answer is handled
 * in bounded memory: the child survives (a V8 abort or an out-of-memory kill shows as a signal or exit code), and it
 * reports its time, peak RSS and longest event-loop block. The child runs the TypeScript sources through the
 * compiler's transpileModule (no build needed), from `root` (the repository by default, or a copy of older code).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { CredentialsMap } from './engine';

export interface ChildRun {
	target: 'action' | 'trigger' | 'listSearch';
	parameters: INodeParameters;
	credentials: CredentialsMap;
	/** The transport's delays between retries (ms); the production ones when left out. */
	retryDelaysMs?: number[];
	/**
	 * The transport's wall-clock limits (ms); the production ones when left out. A run measured for memory and CPU-time
	 * blocks on a loaded machine lifts them: waiting for a core is not what it measures.
	 */
	limits?: { attemptMs: number; callMs: number };
	/** The action node's version (1 when left out). */
	typeVersion?: number;
}

export interface ChildOutcome {
	/** Exit code and signal of the child: 0 and null when it survived. */
	code: number | null;
	signal: NodeJS.Signals | null;
	/** Wall-clock time of the node's run, from inside the child; `processMs`: the child's whole life, seen from here. */
	elapsedMs?: number;
	processMs: number;
	/** Peak RSS of the child (VmHWM, sampled from here every 100 ms, so a child that dies still has a figure). */
	peakRssMiB?: number;
	/** Longest event-loop block seen while the node ran (ms, 10 ms resolution). */
	maxBlockMs?: number;
	/** The same in CPU time (waiting for a core on a loaded machine does not count; see watchCpuBlocks). */
	maxCpuBlockMs?: number;
	/** CPU time (user + system) of the child while the node ran, ms. */
	cpuMs?: number;
	/** Resident memory of the child once n8n-core and the engine are loaded and warm, before the run (MiB). */
	baseRssMiB?: number;
	error?: string;
	description?: string;
	items?: number;
	/** Characters of the largest output item as JSON; -1 when JSON.stringify of an item threw. */
	largestItemChars?: number;
	requests?: number;
	stderrTail: string;
}

const BOOTSTRAP = `
const ts = require('typescript');
const fs = require('fs');
require.extensions['.ts'] = (module, filename) => {
	const source = fs.readFileSync(filename, 'utf8');
	const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true }, fileName: filename });
	module._compile(outputText, filename);
};
// '.ts' before '.json': "JobExecution.node" must resolve to the node's source, not to its codex file beside it.
for (const extension of ['.json', '.node']) {
	const handler = require.extensions[extension];
	delete require.extensions[extension];
	require.extensions[extension] = handler;
}
require('./testkit/heapCappedChild.ts').main(process.argv[process.argv.length - 1]);
`;

export async function runHeapCapped(run: ChildRun, options: { heapMiB: number; timeoutMs: number; root?: string }): Promise<ChildOutcome> {
	const root = options.root ?? resolve(__dirname, '..');
	const child = spawn(process.execPath, [`--max-old-space-size=${options.heapMiB}`, '-e', BOOTSTRAP, JSON.stringify(run)], {
		cwd: root,
		env: { ...process.env, N8N_LOG_LEVEL: 'silent' },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
	const started = Date.now();
	const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
	let peakKiB = 0;
	const sampler = setInterval(() => (peakKiB = Math.max(peakKiB, peakRssKiB(child.pid))), 100);
	const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) => child.on('exit', (c, s) => done([c, s])));
	const processMs = Date.now() - started;
	clearInterval(sampler);
	clearTimeout(timer);
	const line = stdout.split('\n').find((text) => text.startsWith('RESULT '));
	const result = line ? (JSON.parse(line.slice('RESULT '.length)) as IDataObject) : {};
	const peakRssMiB = Math.max(Math.round(peakKiB / 1024), Number(result.peakRssMiB ?? 0));
	return { code, signal, ...result, peakRssMiB, processMs, stderrTail: stderr.slice(-1500) } as ChildOutcome;
}

/** VmHWM of a process (its peak resident set), in KiB; 0 when it is gone or /proc is not there. */
function peakRssKiB(pid: number | undefined): number {
	try {
		const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
		return match ? Number(match[1]) : 0;
	} catch {
		return 0;
	}
}
