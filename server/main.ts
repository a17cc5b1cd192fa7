// CLI: `node dist/server/main.js [flags]`. Prints exactly one line on stdout (the URL); everything else goes to stderr.
import { startReferenceServer } from './httpServer';
import type { ReferenceServer, ReferenceServerOptions } from './httpServer';
import { LOCAL_NAMES, readCertificate, selfSignedCertificate } from './tls';
import type { MadeCertificate, TlsCertificate } from './tls';

export const USAGE =
	'usage: main.js [--host 127.0.0.1] [--port 8080|0] [--catalog FILE] [--relay-api-key K] [--user-api-key U]\n' +
	'               [--step-ms N] [--strict] [--data FILE] [--concurrency N] [--native-token T]\n' +
	'               [--headers-timeout-ms N] [--request-timeout-ms N] [--max-jobs N] [--max-queued N]\n' +
	'               [--max-stored-bytes N] [--tls-self-signed | --tls-cert FILE --tls-key FILE]';

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

/** The server's options, and where its https certificate comes from (read or made when it starts). */
export interface CliOptions extends ReferenceServerOptions {
	tlsCertFile?: string;
	tlsKeyFile?: string;
	tlsSelfSigned?: boolean;
}

// What each flag with a value sets.
const FLAGS: Record<string, (options: CliOptions, value: string, flag: string) => void> = {
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
	'--tls-cert': (o, v) => (o.tlsCertFile = v),
	'--tls-key': (o, v) => (o.tlsKeyFile = v),
};

// Flags without a value.
const SWITCHES: Record<string, (options: CliOptions) => void> = {
	'--strict': (o) => (o.strict = true),
	'--tls-self-signed': (o) => (o.tlsSelfSigned = true),
};

function checkTlsFlags(options: CliOptions): void {
	const files = options.tlsCertFile !== undefined || options.tlsKeyFile !== undefined;
	if (options.tlsSelfSigned && files) throw new CliUsageError('--tls-self-signed makes its own certificate: give it, or --tls-cert and --tls-key, not both');
	if (files && (options.tlsCertFile === undefined || options.tlsKeyFile === undefined)) throw new CliUsageError('--tls-cert and --tls-key go together');
}

// Hand-written parser: `--flag value` or `--flag=value`; unknown flags and missing values are usage errors.
export function parseArgs(argv: string[]): CliOptions {
	const options: CliOptions = { port: 8080 };
	for (let i = 0; i < argv.length; i++) {
		let flag = argv[i];
		let value: string | undefined;
		const eq = flag.indexOf('=');
		if (flag.startsWith('--') && eq !== -1) {
			value = flag.slice(eq + 1);
			flag = flag.slice(0, eq);
		}
		if (Object.prototype.hasOwnProperty.call(SWITCHES, flag)) {
			if (value !== undefined) throw new CliUsageError(`${flag} takes no value`);
			SWITCHES[flag](options);
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
	checkTlsFlags(options);
	return options;
}

/** The names a self-signed certificate holds: the local ones, and the --host the server listens on unless a wildcard. */
function certificateNames(host: string | undefined): string[] {
	return host === undefined || host === '0.0.0.0' || host === '::' ? LOCAL_NAMES : [...LOCAL_NAMES, host];
}

/** The certificate the flags ask for: read from files, made now (self-signed), or none (http). */
function certificateOf(options: CliOptions): { tls?: TlsCertificate; made?: MadeCertificate } {
	if (options.tlsSelfSigned) {
		const made = selfSignedCertificate({ names: certificateNames(options.host) });
		return { tls: made, made };
	}
	if (options.tlsCertFile !== undefined && options.tlsKeyFile !== undefined) return { tls: readCertificate(options.tlsCertFile, options.tlsKeyFile) };
	return {};
}

function tellTls(options: CliOptions, made: MadeCertificate | undefined, io: CliIo): void {
	if (made) {
		io.stderr(`https: a self-signed certificate for ${certificateNames(options.host).join(', ')}, made now: ${made.certFile} (removed when the server stops)`);
		io.stderr(`  n8n accepts it with Ignore SSL Issues (Insecure) turned on in the credential, or trusts it when started with NODE_EXTRA_CA_CERTS=${made.certFile}`);
	} else if (options.tlsCertFile !== undefined) {
		io.stderr(`https: certificate ${options.tlsCertFile}`);
	}
}

/** A made certificate lives as long as its server: its folder (the private key in it) goes when the server closes. */
function withCertificateRemoved(server: ReferenceServer, made: MadeCertificate | undefined): ReferenceServer {
	if (!made) return server;
	const close = server.close;
	return Object.assign(server, {
		close: async () => {
			try {
				await close();
			} finally {
				made.remove();
			}
		},
	});
}

export type CliResult = { code: number; server?: undefined } | { code?: undefined; server: ReferenceServer };

// Starts the server from flags. Returns { code } when it could not start (2 = bad flags, 1 = startup error).
export async function runCli(argv: string[], io: CliIo = defaultIo): Promise<CliResult> {
	let options: CliOptions;
	try {
		options = parseArgs(argv);
	} catch (err) {
		if (!(err instanceof CliUsageError)) throw err;
		io.stderr(`error: ${err.message}`);
		io.stderr(USAGE);
		return { code: 2 };
	}
	let server: ReferenceServer;
	let made: MadeCertificate | undefined;
	try {
		const certificate = certificateOf(options);
		made = certificate.made;
		server = withCertificateRemoved(await startReferenceServer({ ...options, tls: certificate.tls }), made);
	} catch (err) {
		made?.remove();
		io.stderr(`error: ${(err as Error).message}`);
		return { code: 1 };
	}
	io.stdout(server.url);
	tellTls(options, made, io);
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
