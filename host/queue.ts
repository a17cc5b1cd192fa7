// n8n's queue mode on one machine: Redis (the Bull queue), PostgreSQL, a main instance and workers, each n8n
// process with its own user folder holding the packed package, all on 127.0.0.1. Shared by `npm run start:queue`,
// the queue-mode tests and the queue benchmark.
import { spawnSync } from 'child_process';
import { cpSync, existsSync, mkdirSync } from 'fs';
import { join } from 'path';

import { hostSpec } from './hosts';
import { ensureHost } from './install';
import type { Log } from './install';
import { freePort, startN8nProcess } from './n8n';
import type { N8nInstance, RunningN8n } from './n8n';
import { openSession } from './session';
import type { Session, SessionOptions } from './session';
import { ensureQueueBinaries, letPostgresIn, QUEUE_DATABASE, redisCommand, startPostgres, startRedis } from './queueServices';
import type { BackgroundProcess, QueueBinaries } from './queueServices';

export interface QueuePorts {
	redis: number;
	postgres: number;
	mainBroker: number;
	// Per worker: its health server (QUEUE_HEALTH_CHECK_PORT) and its task-runner broker.
	workers: Array<{ health: number; broker: number }>;
}

export interface QueueClusterOptions {
	hostVersion: string;
	// The folder the cluster owns: postgres/, redis/, main/, worker-1/ ...; kept between runs.
	root: string;
	log: Log;
	workers: number;
	concurrency: number;
	n8nPort?: number;
	serverPort?: number;
	// Consecutive ports from here for Redis, Postgres, main's broker, then each worker's health and broker ports.
	portsFrom?: number;
	server?: SessionOptions['server'];
	// Settings added to every n8n process of the cluster (`npm run start:queue`: 2.41's durable poll cursors).
	n8nEnv?: Record<string, string>;
	// Log level of the workers: 'info' prints "Worker started execution N", which tells which worker ran what.
	workerLogLevel?: N8nInstance['logLevel'];
}

export interface QueueWorker {
	name: string;
	n8n: N8nInstance;
	running?: RunningN8n;
	// Execution ids this worker started, read from its log.
	started: string[];
}

export interface QueueCluster {
	session: Session;
	ports: QueuePorts;
	workers: QueueWorker[];
	main?: RunningN8n;
	// Settings every n8n process of the cluster shares (database, queue, key).
	env: Record<string, string>;
	startMain(extraEnv?: Record<string, string>, onLine?: (line: string) => void): Promise<RunningN8n>;
	startWorker(index: number, onLine?: (line: string) => void): Promise<RunningN8n>;
	// SIGKILL of the worker's whole process group: a crash, not a shutdown.
	killWorker(index: number): Promise<void>;
	// Bull jobs held by workers right now: one per execution occupying a worker slot.
	activeJobs(): Promise<number>;
	// A query on n8n's database (psql, tab-separated rows).
	sql(query: string): string[][];
	close(): Promise<void>;
}

async function choosePorts(options: QueueClusterOptions): Promise<QueuePorts> {
	let next = options.portsFrom;
	const port = async () => (next === undefined ? await freePort() : next++);
	const ports: QueuePorts = { redis: await port(), postgres: await port(), mainBroker: await port(), workers: [] };
	for (let i = 0; i < options.workers; i++) ports.workers.push({ health: await port(), broker: await port() });
	return ports;
}

export function queueEnv(ports: QueuePorts): Record<string, string> {
	return {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(ports.redis),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(ports.postgres),
		DB_POSTGRESDB_DATABASE: QUEUE_DATABASE,
		DB_POSTGRESDB_USER: 'postgres',
		DB_POSTGRESDB_PASSWORD: '',
		// Runs started from the editor go to the workers too, as production runs do.
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
	};
}

function workerInstance(main: N8nInstance, root: string, name: string, ports: { health: number; broker: number }, env: Record<string, string>, logLevel: N8nInstance['logLevel']): N8nInstance {
	const userFolder = join(root, name);
	// The package must be in every worker's user folder, or its executions fail with "Unrecognized node type".
	mkdirSync(userFolder, { recursive: true });
	cpSync(join(main.userFolder, '.n8n', 'nodes'), join(userFolder, '.n8n', 'nodes'), { recursive: true });
	return {
		host: main.host,
		userFolder,
		encryptionKey: main.encryptionKey,
		port: ports.health,
		brokerPort: ports.broker,
		logLevel,
		env: {
			...env,
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			QUEUE_HEALTH_CHECK_PORT: String(ports.health),
			// The worker server binds every interface otherwise.
			N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
		},
	};
}

// Redis, Postgres and the reference server running, the package, credentials and key in every user folder;
// n8n processes are started by the caller (after importing what it needs) with startMain / startWorker.
export async function openQueueCluster(options: QueueClusterOptions): Promise<QueueCluster> {
	const { log, root } = options;
	await ensureHost(hostSpec(options.hostVersion), log);
	const binaries = await ensureQueueBinaries(log);
	mkdirSync(root, { recursive: true });
	letPostgresIn(root);
	const ports = await choosePorts(options);
	const services: BackgroundProcess[] = [];
	const stopServices = async () => {
		for (const service of services.reverse()) await service.stop();
	};
	try {
		log(`Redis on 127.0.0.1:${ports.redis}`);
		services.push(await startRedis(binaries, join(root, 'redis'), ports.redis));
		log(`PostgreSQL ${binaries.postgresVersion} on 127.0.0.1:${ports.postgres}${binaries.postgresVersion < 16 ? ' (n8n warns that it supports 16 and 17; it works)' : ''}`);
		services.push(await startPostgres(binaries, join(root, 'postgres'), ports.postgres, log));
	} catch (err) {
		await stopServices();
		throw err;
	}
	const env = { ...queueEnv(ports), ...options.n8nEnv };
	let session: Session;
	try {
		if (!existsSync(join(root, 'main'))) log('first start: n8n creates its tables in PostgreSQL (about half a minute)');
		session = await openSession({
			hostVersion: options.hostVersion,
			userFolder: join(root, 'main'),
			log,
			n8nPort: options.n8nPort,
			serverPort: options.serverPort,
			brokerPort: ports.mainBroker,
			n8nEnv: env,
			server: options.server,
		});
	} catch (err) {
		await stopServices();
		throw err;
	}
	const workers: QueueWorker[] = ports.workers.map((workerPorts, i) => {
		const name = `worker-${i + 1}`;
		return { name, started: [], n8n: workerInstance(session.n8n, root, name, workerPorts, env, options.workerLogLevel ?? 'info') };
	});
	return buildCluster({ session, ports, workers, env, binaries }, options, stopServices);
}

interface ClusterParts {
	session: Session;
	ports: QueuePorts;
	workers: QueueWorker[];
	env: Record<string, string>;
	binaries: QueueBinaries;
}

function buildCluster({ session, ports, workers, env, binaries }: ClusterParts, options: QueueClusterOptions, stopServices: () => Promise<void>): QueueCluster {
	const cluster: QueueCluster = {
		session,
		ports,
		workers,
		env,
		async startMain(extraEnv = {}, onLine) {
			await cluster.main?.stop();
			const main = { ...session.n8n, env: { ...env, ...extraEnv } };
			const url = `http://127.0.0.1:${main.port}`;
			cluster.main = await startN8nProcess(main, { args: ['start'], readyUrls: [`${url}/healthz/readiness`, `${url}/rest/settings`], onLine });
			return cluster.main;
		},
		async startWorker(index, onLine) {
			const worker = workers[index];
			await worker.running?.stop();
			const health = `http://127.0.0.1:${worker.n8n.port}/healthz/readiness`;
			worker.running = await startN8nProcess(worker.n8n, {
				args: ['worker', `--concurrency=${options.concurrency}`],
				readyUrls: [health],
				onLine: (line) => {
					const started = /Worker started execution (\d+)/.exec(line);
					if (started) worker.started.push(started[1]);
					onLine?.(line);
				},
			});
			return worker.running;
		},
		async killWorker(index) {
			const running = workers[index].running;
			if (!running || running.child.pid === undefined) return;
			const gone = new Promise((resolve) => (running.child.exitCode !== null ? resolve(undefined) : running.child.once('exit', resolve)));
			process.kill(-running.child.pid, 'SIGKILL');
			await gone;
		},
		async activeJobs() {
			return Number(await redisCommand(ports.redis, ['LLEN', 'bull:jobs:active']));
		},
		sql(query) {
			const args = ['-h', '127.0.0.1', '-p', String(ports.postgres), '-U', 'postgres', '-d', QUEUE_DATABASE, '-AtF', '\t', '-c', query];
			const result = spawnSync(join(binaries.postgresBin, 'psql'), args, { encoding: 'utf8' });
			if (result.status !== 0) throw new Error(`psql: ${result.stderr}`);
			return result.stdout.split('\n').filter(Boolean).map((line) => line.split('\t'));
		},
		async close() {
			await Promise.all([cluster.main?.stop(), ...workers.map((worker) => worker.running?.stop())]);
			await session.close();
			await stopServices();
		},
	};
	return cluster;
}
