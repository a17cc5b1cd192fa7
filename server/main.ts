// CLI: `node dist/server/main.js [flags]`. Prints exactly one line on stdout (the URL); everything else goes to stderr.
import { startReferenceServer } from './httpServer';
import type { ReferenceServer, ReferenceServerOptions } from './httpServer';

export const USAGE =
	'usage: main.js [--host 127.0.0.1] [--port 8080|0] [--catalog FILE] [--relay-api-key K] [--user-api-key U]\n' +
	'               [--step-ms N] [--strict] [--data FILE] [--concurrency N] [--native-token T]\n' +
	'               [--headers-timeout-ms N] [--request-timeout-ms N] [--max-jobs N] [--max-queued N]\n' +
	'               [--max-stored-bytes N]';

export class CliUsageError extends Error {}

export interface CliIo {
	stdout: (line: string) => void;
	stderr: (line: string) => void;
}

const defaultIo: CliIo = {
	stdout: (line) => process.stdout.write(`${line}\n`),
	stderr: (line) => process.stderr.write(`${line}\n`),
};

function positiveInt(flag: string, value: string, min: number): number {
	if (!/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
		throw new CliUsageError(`${flag} needs an integer >= ${min}, got ${JSON.stringify(value)}`);
	}
	return Number(value);
}

function port(flag: string, value: string): number {
	const n = positiveInt(flag, value, 0);
	if (n > 65535) throw new CliUsageError('--port must be at most 65535');
	return n;
}

// What each flag with a value sets.
const FLAGS: Record<string, (options: ReferenceServerOptions, value: string, flag: string) => void> = {
	'--host': (o, v) => (o.host = v),
	'--port': (o, v, f) => (o.port = port(f, v)),
	'--catalog': (o, v) => (o.catalog = v),
	'--relay-api-key': (o, v) => (o.relayApiKey = v),
	'--user-api-key': (o, v) => (o.userApiKey = v),
	'--step-ms': (o, v, f) => (o.stepMs = positiveInt(f, v, 1)),
	'--data': (o, v) => (o.dataFile = v),
	'--concurrency': (o, v, f) => (o.concurrency = positiveInt(f, v, 1)),
	'--native-token': (o, v) => (o.nativeAuth = { type: 'bearer', token: v }),
	'--headers-timeout-ms': (o, v, f) => (o.headersTimeoutMs = positiveInt(f, v, 1)),
	'--request-timeout-ms': (o, v, f) => (o.requestTimeoutMs = positiveInt(f, v, 1)),
	'--max-jobs': (o, v, f) => (o.maxJobs = positiveInt(f, v, 1)),
	'--max-queued': (o, v, f) => (o.maxQueued = positiveInt(f, v, 1)),
	'--max-stored-bytes': (o, v, f) => (o.maxStoredBytes = positiveInt(f, v, 1)),
};

// Hand-written parser: `--flag value` or `--flag=value`; unknown flags and missing values are usage errors.
export function parseArgs(argv: string[]): ReferenceServerOptions {
	const options: ReferenceServerOptions = { port: 8080 };
	for (let i = 0; i < argv.length; i++) {
		let flag = argv[i];
		let value: string | undefined;
		const eq = flag.indexOf('=');
		if (flag.startsWith('--') && eq !== -1) {
			value = flag.slice(eq + 1);
			flag = flag.slice(0, eq);
		}
		if (flag === '--strict') {
			if (value !== undefined) throw new CliUsageError('--strict takes no value');
			options.strict = true;
			continue;
		}
		const set = Object.prototype.hasOwnProperty.call(FLAGS, flag) ? FLAGS[flag] : undefined;
		if (!set) throw new CliUsageError(`unknown flag ${JSON.stringify(flag)}`);
		if (value === undefined) {
			value = argv[++i];
			if (value === undefined || value.startsWith('--')) throw new CliUsageError(`${flag} needs a value`);
		}
		if (value === '') throw new CliUsageError(`${flag} needs a non-empty value`);
		set(options, value, flag);
	}
	return options;
}

export type CliResult = { code: number; server?: undefined } | { code?: undefined; server: ReferenceServer };

// Starts the server from flags. Returns { code } when it could not start (2 = bad flags, 1 = startup error).
export async function runCli(argv: string[], io: CliIo = defaultIo): Promise<CliResult> {
	let options: ReferenceServerOptions;
	try {
		options = parseArgs(argv);
	} catch (err) {
		if (!(err instanceof CliUsageError)) throw err;
		io.stderr(`error: ${err.message}`);
		io.stderr(USAGE);
		return { code: 2 };
	}
	let server: ReferenceServer;
	try {
		server = await startReferenceServer(options);
	} catch (err) {
		io.stderr(`error: ${(err as Error).message}`);
		return { code: 1 };
	}
	io.stdout(server.url);
	io.stderr(`job execution reference server listening on ${server.url}`);
	if (server.staleLockTakenOver) io.stderr(`data file: took over a stale lock (${server.staleLockTakenOver})`);
	io.stderr(`relay apiKey: ${server.relayApiKey}`);
	io.stderr(`relay user-api-key: ${server.userApiKey}`);
	io.stderr(`catalog (${server.catalog.strict ? 'strict' : 'unknown flows accepted'}):`);
	for (const f of server.catalog.flows) {
		io.stderr(`  ${f.flowFileName}  flowId=${f.flowId}  steps=${f.steps}  outcome=${f.outcome}  runProfiles=${f.runProfiles?.join(',') ?? '(any)'}`);
	}
	if (options.nativeAuth) io.stderr('native API requires: Authorization: Bearer <--native-token>');
	if (options.dataFile) {
		const leftovers = server.leftoversRemoved > 0 ? `; ${server.leftoversRemoved} temp files of an interrupted write removed` : '';
		const torn = server.tornBytesIgnored > 0 ? `; an unfinished last record (${server.tornBytesIgnored} bytes) ignored` : '';
		io.stderr(`jobs persisted in ${options.dataFile} (${server.store.count()} loaded${leftovers}${torn})`);
	}
	return { server };
}

if (require.main === module) {
	runCli(process.argv.slice(2)).then(
		(result) => {
			if (!result.server) {
				process.exit(result.code);
			}
			const server = result.server;
			let stopping = false;
			const stop = (signal: string) => {
				if (stopping) return;
				stopping = true;
				process.stderr.write(`${signal}: shutting down\n`);
				server.close().then(
					() => process.exit(0),
					(err: unknown) => {
						process.stderr.write(`error while shutting down: ${(err as Error).message}\n`);
						process.exit(1);
					},
				);
			};
			process.on('SIGTERM', () => stop('SIGTERM'));
			process.on('SIGINT', () => stop('SIGINT'));
		},
		(err: unknown) => {
			process.stderr.write(`error: ${(err as Error).message}\n`);
			process.exit(1);
		},
	);
}
