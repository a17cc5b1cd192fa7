// Redis and PostgreSQL for n8n's queue mode: Debian's packages installed on first use, each server run from a
// folder the caller owns, on 127.0.0.1 only, in its own process group so nothing outlives stop().
import { spawn, spawnSync } from 'child_process';
import type { ChildProcess } from 'child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync } from 'fs';
import { connect } from 'net';
import { join } from 'path';

import { run } from './install';
import type { Log } from './install';

export interface QueueBinaries {
	redisServer: string;
	// Folder with PostgreSQL's initdb, postgres, pg_isready, createdb and psql.
	postgresBin: string;
	postgresVersion: number;
}

function findRedis(): string | undefined {
	return ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((file) => existsSync(file));
}

// Debian keeps each major in /usr/lib/postgresql/<major>/bin, not on PATH; the newest wins.
function findPostgres(): { bin: string; version: number } | undefined {
	const root = '/usr/lib/postgresql';
	if (!existsSync(root)) return undefined;
	const versions = readdirSync(root)
		.filter((entry) => /^\d+$/.test(entry) && ['initdb', 'postgres', 'pg_isready', 'createdb', 'psql'].every((tool) => existsSync(join(root, entry, 'bin', tool))))
		.map(Number)
		.sort((a, b) => b - a);
	return versions.length > 0 ? { bin: join(root, String(versions[0]), 'bin'), version: versions[0] } : undefined;
}

const APT_PACKAGES: Record<string, string> = { redis: 'redis-server', postgres: 'postgresql' };

// What is missing is installed with apt-get (root, or password-less sudo); what is there is used as it is.
export async function ensureQueueBinaries(log: Log): Promise<QueueBinaries> {
	const missing = [...(findRedis() ? [] : [APT_PACKAGES.redis]), ...(findPostgres() ? [] : [APT_PACKAGES.postgres])];
	if (missing.length > 0) {
		const asRoot = process.getuid?.() === 0;
		const apt = asRoot ? ['apt-get'] : ['sudo', '-n', 'apt-get'];
		const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
		const install = (label: string) =>
			run(apt[0], [...apt.slice(1), 'install', '-y', '-q', '-o', 'DPkg::Lock::Timeout=600', ...missing], { cwd: '/', env, log, label });
		log(`queue mode needs ${missing.join(' and ')}: installing Debian's packages with apt-get (once, usually under a minute)`);
		try {
			await install(`apt-get install ${missing.join(' ')}`);
		} catch {
			// A fresh machine has no package lists yet.
			await run(apt[0], [...apt.slice(1), 'update', '-q', '-o', 'DPkg::Lock::Timeout=600'], { cwd: '/', env, log, label: 'apt-get update' });
			await install(`apt-get install ${missing.join(' ')} (after apt-get update)`);
		}
	}
	const redisServer = findRedis();
	const postgres = findPostgres();
	if (!redisServer || !postgres) throw new Error(`after apt-get install, ${redisServer ? 'PostgreSQL' : 'redis-server'} is still missing`);
	return { redisServer, postgresBin: postgres.bin, postgresVersion: postgres.version };
}

export interface BackgroundProcess {
	child: ChildProcess;
	output(): string;
	exited(): boolean;
	stop(): Promise<void>;
}

// A server in its own process group; stop() sends `stopSignal` to the group, then SIGKILL after 15 s.
export function startBackground(command: string, args: string[], stopSignal: NodeJS.Signals, env: NodeJS.ProcessEnv = process.env): BackgroundProcess {
	const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
	let output = '';
	const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-50_000));
	child.stdout?.on('data', collect);
	child.stderr?.on('data', collect);
	let hasExited = false;
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	void exited.then(() => (hasExited = true));
	child.once('error', (err) => (output += `\n${err.message}`));
	backgroundGroups.add(child);
	void exited.then(() => backgroundGroups.delete(child));
	const stop = async () => {
		if (hasExited || child.pid === undefined) return;
		try {
			process.kill(-child.pid, stopSignal);
		} catch {
			return;
		}
		const forced = setTimeout(() => {
			if (!hasExited && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
		}, 15_000);
		await exited;
		clearTimeout(forced);
	};
	return { child, output: () => output, exited: () => hasExited, stop };
}

const backgroundGroups = new Set<ChildProcess>();
process.on('exit', () => {
	for (const child of backgroundGroups) {
		try {
			if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
		} catch {
			// already gone
		}
	}
});

// One RESP command over a fresh connection: enough to ping Redis and read a list's length.
export function redisCommand(port: number, args: string[], timeoutMs = 3000): Promise<string> {
	return new Promise((resolve, reject) => {
		const socket = connect(port, '127.0.0.1');
		let answer = '';
		const timer = setTimeout(() => socket.destroy(new Error(`Redis on port ${port} did not answer within ${timeoutMs} ms`)), timeoutMs);
		socket.on('connect', () => socket.write(`*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`));
		socket.on('data', (chunk: Buffer) => {
			answer += chunk.toString();
			if (answer.endsWith('\r\n')) {
				clearTimeout(timer);
				socket.end();
				if (answer.startsWith('-')) reject(new Error(`Redis: ${answer.trim()}`));
				else resolve(answer.slice(1).trim());
			}
		});
		socket.on('error', (err) => {
			clearTimeout(timer);
			reject(err);
		});
	});
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, ready: () => Promise<boolean> | boolean, server: BackgroundProcess, withinMs: number): Promise<void> {
	const deadline = Date.now() + withinMs;
	while (!(await ready())) {
		if (server.exited()) throw new Error(`${what} exited before it was ready:\n${server.output().slice(-3000)}`);
		if (Date.now() > deadline) {
			await server.stop();
			throw new Error(`${what} was not ready within ${withinMs / 1000} s:\n${server.output().slice(-3000)}`);
		}
		await sleep(200);
	}
}

export async function startRedis(binaries: QueueBinaries, dir: string, port: number): Promise<BackgroundProcess> {
	mkdirSync(dir, { recursive: true });
	// The Bull queue only: executions and waiting executions live in Postgres, so nothing is saved to disk.
	const redis = startBackground(
		binaries.redisServer,
		['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'],
		'SIGTERM',
	);
	await waitFor('Redis', async () => (await redisCommand(port, ['PING']).catch(() => '')) === 'PONG', redis, 30_000);
	return redis;
}

// PostgreSQL refuses to run as root: as root, it runs as Debian's `postgres` user, which then owns the data.
function asPostgresUser(command: string, args: string[]): [string, string[]] {
	if (process.getuid?.() !== 0) return [command, args];
	return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args]];
}

function postgresIds(): { uid: number; gid: number } {
	const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
	return { uid: id('-u'), gid: id('-g') };
}

export const QUEUE_DATABASE = 'n8n';

export async function startPostgres(binaries: QueueBinaries, dir: string, port: number, log: Log): Promise<BackgroundProcess> {
	const bin = (tool: string) => join(binaries.postgresBin, tool);
	const fresh = !existsSync(join(dir, 'PG_VERSION'));
	if (fresh) {
		mkdirSync(dir, { recursive: true, mode: 0o700 });
		if (process.getuid?.() === 0) {
			const { uid, gid } = postgresIds();
			chownSync(dir, uid, gid);
		}
		log(`PostgreSQL ${binaries.postgresVersion}: new database cluster in ${dir}`);
		const [command, args] = asPostgresUser(bin('initdb'), ['-D', dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale']);
		await run(command, args, { cwd: '/', env: process.env, log, label: 'initdb' });
	}
	// TCP on loopback only, no Unix socket (its default folder may not exist or belong to a system cluster).
	const [command, args] = asPostgresUser(bin('postgres'), ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=']);
	// SIGINT is PostgreSQL's fast shutdown: clients are gone by then.
	const postgres = startBackground(command, args, 'SIGINT');
	const isReady = () => spawnSync(bin('pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port)]).status === 0;
	await waitFor('PostgreSQL', isReady, postgres, 60_000);
	if (fresh) {
		const created = spawnSync(bin('createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', QUEUE_DATABASE], { encoding: 'utf8' });
		if (created.status !== 0) {
			await postgres.stop();
			throw new Error(`createdb ${QUEUE_DATABASE} failed: ${created.stderr}`);
		}
	}
	return postgres;
}

// The folder above a Postgres data dir must be traversable by the `postgres` user (mkdtemp makes it 0700).
export function letPostgresIn(dir: string): void {
	if (process.getuid?.() === 0) chmodSync(dir, 0o711);
}
