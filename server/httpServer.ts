// startReferenceServer: the server's state (catalog, store, data file, keys) behind Node's http module (https with a certificate).
import { randomBytes } from 'crypto';
import { createServer } from 'http';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'http';
import { createServer as createHttpsServer } from 'https';
import type { Server as HttpsServer } from 'https';
import { createSecureContext } from 'tls';
import type { AddressInfo, Socket } from 'net';

import { CatalogIndex, defaultCatalog, loadCatalogFile, validateCatalog } from './catalog';
import type { Catalog } from './catalog';
import { systemClock } from './clock';
import type { Clock } from './clock';
import { readDataFile, removeLeftoverTempFiles } from './dataFile';
import { lockDataFile } from './dataFileLock';
import type { DataFileLock, LockOptions } from './dataFileLock';
import { FaultInjector } from './faults';
import type { Fault } from './faults';
import { DEFAULT_COMPACT_SLACK_BYTES, JobJournal } from './journal';
import { JobStore, submitDurably } from './jobStore';
import type { HeldJob, StoredJob, SubmitInput } from './jobTypes';
import type { RelayKeys } from './relay';
import { createRequestHandler } from './requestHandler';
import type { NativeAuth, ServerStats } from './requestHandler';
import { message } from './responses';
import type { NativeContext, StatusFilterForm } from './routeTable';
import type { TlsCertificate } from './tls';
import { send } from './transport';

type Server = HttpServer | HttpsServer;

export type { NativeAuth, ServerStats } from './requestHandler';

export interface ReferenceServerOptions {
	host?: string;
	port?: number;
	catalog?: Catalog | string;
	clock?: Clock;
	stepMs?: number;
	concurrency?: number;
	strict?: boolean;
	relayApiKey?: string;
	userApiKey?: string;
	nativeAuth?: NativeAuth;
	statusFilterForm?: StatusFilterForm;
	// Test only: list the same jobs oldest first (the spec defines no order; clients must not rely on one).
	listOrder?: 'newestFirst' | 'oldestFirst';
	// Jobs kept: beyond it the oldest finished ones are forgotten (queued and running jobs never are).
	maxJobs?: number;
	// Jobs waiting for a slot: past it a submission is refused with 503 and Retry-After.
	maxQueued?: number;
	// Bytes of stored job records (the data file's, counted with or without one): past it the oldest finished
	// jobs are forgotten; a submission needing more while only waiting and running jobs are kept gets 503.
	maxStoredBytes?: number;
	dataFile?: string;
	// The data file is rewritten once it holds more than twice its kept records plus this (default 64 MiB).
	compactSlackBytes?: number;
	// Test only: how the data file's lock judges and tells (a successor that takes over a live owner).
	lock?: LockOptions;
	maxBodyBytes?: number;
	// Past the body limit, the rest of the body is read and discarded up to this many bytes before the connection
	// closes, so the client reads the 413 (default 64 MiB).
	maxDiscardBytes?: number;
	// A request whose headers have not all arrived after this long is dropped (default 20 s)...
	headersTimeoutMs?: number;
	// ...and one not fully received after this long (default 30 s): slow or stalled clients cannot hold sockets.
	requestTimeoutMs?: number;
	// Test only: faults queued from the start (see server.faults).
	faults?: Fault[];
	// Serve https with this certificate and key (PEM; server/tls.ts reads files or makes a self-signed one).
	tls?: TlsCertificate;
}

export interface ReferenceServer {
	url: string;
	host: string;
	port: number;
	relayApiKey: string;
	userApiKey: string;
	clock: Clock;
	store: JobStore;
	catalog: CatalogIndex;
	stats: ServerStats;
	// Test only: queue faults for the next matching requests (server/faults.ts). Nothing is injected unless asked.
	faults: FaultInjector;
	// A submission without HTTP (tests, benchmarks), saved to the data file before any reader sees it.
	submitJob(input: SubmitInput): Promise<{ job: StoredJob; started: boolean }>;
	// Number of data-file writes done (0 without --data).
	dataFileWrites(): number;
	// The data file's size, its kept records' bytes and its rewrites so far (undefined without --data).
	dataFileStats(): { fileBytes: number; keptBytes: number; keptJobs: number; compactions: number; compacting: boolean } | undefined;
	// Temp files of interrupted writes removed at start (0 without --data).
	leftoversRemoved: number;
	// Bytes of an unfinished last record (kill -9 mid-write) ignored and cut at start (0 without --data).
	tornBytesIgnored: number;
	// Why the data file's lock, left by a server that is gone, was judged stale and taken over (undefined if not).
	staleLockTakenOver: string | undefined;
	// TCP connections accepted so far (with https, whether or not their handshake then succeeded).
	connectionsAccepted(): number;
	close(): Promise<void>;
}

export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_DISCARD_BYTES = 64 * 1024 * 1024;
export const DEFAULT_HEADERS_TIMEOUT_MS = 20_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

function timeoutOption(name: string, value: number | undefined, fallback: number): number {
	const ms = value ?? fallback;
	if (!Number.isInteger(ms) || ms < 1) throw new Error(`${name} must be a positive integer (milliseconds)`);
	return ms;
}

function randomKey(): string {
	return randomBytes(24).toString('base64url');
}

function resolveCatalog(input: Catalog | string | undefined): Catalog {
	if (input === undefined) return defaultCatalog();
	if (typeof input === 'string') return loadCatalogFile(input);
	return validateCatalog(input);
}

// The store restored from the data file, and the journal that appends to it from now on.
async function openDataFile(lock: DataFileLock, store: JobStore, compactSlackBytes: number) {
	const path = lock.dataPath;
	const leftoversRemoved = removeLeftoverTempFiles(path);
	const loaded = readDataFile(path);
	store.restore(loaded.jobs, loaded.bytes ? (job) => loaded.bytes?.get(job) as number : undefined);
	// Jobs restore() forgot (retention) or started are appended with the first write; the file keeps the rest.
	const kept: [HeldJob, number][] = loaded.jobs.map((job) => [job, loaded.bytes?.get(job) ?? 0]);
	const keptBytes = kept.reduce((sum, [, bytes]) => sum + bytes, 0);
	// A file in the older format, one mostly dead records, or one an owner that may still run holds open, is
	// rewritten before the server listens (every write is fenced by the lock).
	const rewrite = loaded.format === 'snapshot' || loaded.goodBytes > 2 * keptBytes + compactSlackBytes || lock.ownerMayRun;
	const fence = () => lock.check();
	const journal = await JobJournal.open({ path, changes: () => store.takeChanges(), loaded: kept, size: loaded.goodBytes, compactSlackBytes, rewrite, fence });
	return { journal, leftoversRemoved, tornBytes: loaded.tornBytes };
}

// The data file, locked first: a second server on it is refused before it reads or writes anything.
// The journal writes the real path: a symlink is followed, never replaced by a compaction's rename.
async function openLockedDataFile(path: string, store: JobStore, compactSlackBytes: number, lockOptions?: LockOptions) {
	const lock = await lockDataFile(path, lockOptions);
	try {
		return { ...(await openDataFile(lock, store, compactSlackBytes)), lock };
	} catch (err) {
		lock.release();
		throw err;
	}
}

// The server's state: catalog, store (restored from the data file), journal and keys.
async function buildState(options: ReferenceServerOptions) {
	const clock = options.clock ?? systemClock;
	const catalog = new CatalogIndex(resolveCatalog(options.catalog), options.strict ?? false);
	const store = new JobStore({
		clock, stepMs: options.stepMs, concurrency: options.concurrency, maxJobs: options.maxJobs, maxQueued: options.maxQueued,
		maxStoredBytes: options.maxStoredBytes, journal: options.dataFile !== undefined,
	});
	const keys: RelayKeys = { relayApiKey: options.relayApiKey ?? randomKey(), userApiKey: options.userApiKey ?? randomKey() };
	if (!keys.relayApiKey || !keys.userApiKey) throw new Error('relayApiKey and userApiKey must not be empty');
	const data = options.dataFile ? await openLockedDataFile(options.dataFile, store, options.compactSlackBytes ?? DEFAULT_COMPACT_SLACK_BYTES, options.lock) : undefined;
	const journal = data?.journal;
	const ctx: NativeContext = {
		store,
		catalog,
		statusFilterForm: options.statusFilterForm ?? 'jsonString',
		listOrder: options.listOrder ?? 'newestFirst',
		persist: journal ? () => journal.save() : () => Promise.resolve(),
	};
	return { clock, catalog, store, journal, lock: data?.lock, keys, ctx, leftoversRemoved: data?.leftoversRemoved ?? 0, tornBytes: data?.tornBytes ?? 0 };
}

// The bodies of unexpected errors name no path or internal detail: the spec's 400 covers "server error".
function serverError(res: ServerResponse, err: unknown, stallMs: number): void {
	if (res.headersSent) {
		res.destroy();
		return;
	}
	const code = (err as NodeJS.ErrnoException)?.code;
	void send(res, message(400, `server error${typeof code === 'string' ? ` (${code})` : ''}`), undefined, stallMs);
}

// Slow or stalled requests are dropped instead of holding sockets forever. Node checks the deadlines every
// connectionsCheckingInterval (30 s by default), so it is tied to the shorter deadline.
function createHttpServer(options: ReferenceServerOptions, handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>, stallMs: number): Server {
	const requestTimeout = stallMs;
	// Node refuses a headers deadline later than the whole request's.
	const headersTimeout = Math.min(requestTimeout, timeoutOption('headersTimeoutMs', options.headersTimeoutMs, DEFAULT_HEADERS_TIMEOUT_MS));
	const limits = { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1000, Math.max(10, Math.floor(headersTimeout / 4))) };
	const listener = (req: IncomingMessage, res: ServerResponse) => {
		handle(req, res).catch((err: unknown) => serverError(res, err, stallMs));
	};
	// No 'clientError' listener: Node's default answers malformed requests (400, 408, 431) and closes the socket.
	if (!options.tls) return createServer(limits, listener);
	// A client that never finishes the TLS handshake is dropped as one that never sends its headers.
	return createHttpsServer({ ...limits, cert: options.tls.cert, key: options.tls.key, handshakeTimeout: headersTimeout }, listener);
}

async function listen(server: Server, port: number, host: string): Promise<number> {
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	return (server.address() as AddressInfo).port;
}

// Closes every connection (keep-alive ones too), then writes the data file a last time.
function closer(server: Server, journal: JobJournal | undefined, lock: DataFileLock | undefined): () => Promise<void> {
	const sockets = new Set<Socket>();
	server.on('connection', (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	let closing: Promise<void> | undefined;
	return () => {
		closing ??= (async () => {
			const closed = new Promise<void>((resolve) => server.close(() => resolve()));
			server.closeAllConnections();
			for (const s of sockets) s.destroy();
			await closed;
			// Final write: keeps start times of jobs that started since the last submission.
			try {
				if (journal) await journal.close();
			} finally {
				lock?.release();
			}
		})();
		return closing;
	};
}

// A certificate that does not match its key (or is no certificate) stops the start before any state is taken.
function checkTls(tls: TlsCertificate | undefined): void {
	if (!tls) return;
	try {
		createSecureContext({ cert: tls.cert, key: tls.key });
	} catch (err) {
		throw new Error(`the TLS certificate and key cannot be used together: ${(err as Error).message}`);
	}
}

export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
	const host = options.host ?? '127.0.0.1';
	checkTls(options.tls);
	const state = await buildState(options);
	const stats: ServerStats = { requests: 0, byRoute: {} };
	const faults = new FaultInjector();
	if (options.faults) faults.inject(options.faults);
	// A request must arrive, and an answer be taken by its reader, within the request deadline.
	const stallMs = timeoutOption('requestTimeoutMs', options.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS);
	const handler = createRequestHandler({
		ctx: state.ctx, keys: state.keys, nativeAuth: options.nativeAuth, maxBodyBytes: options.maxBodyBytes ?? MAX_BODY_BYTES,
		maxDiscardBytes: options.maxDiscardBytes ?? MAX_DISCARD_BYTES, faults, stats, stallMs,
	});
	const server = createHttpServer(options, handler, stallMs);
	// Counted at accept, before any TLS handshake: a client that refused the certificate has been counted already.
	let connectionsAccepted = 0;
	server.on('connection', () => connectionsAccepted++);
	const close = closer(server, state.journal, state.lock);
	const port = await listen(server, options.port ?? 0, host).catch(async (err: unknown) => {
		await close();
		throw err;
	});
	const urlHost = host.includes(':') ? `[${host}]` : host;
	return {
		url: `${options.tls ? 'https' : 'http'}://${urlHost}:${port}`,
		host,
		port,
		relayApiKey: state.keys.relayApiKey,
		userApiKey: state.keys.userApiKey,
		clock: state.clock,
		store: state.store,
		catalog: state.catalog,
		stats,
		faults,
		submitJob: (input) => submitDurably(state.store, state.ctx.persist, input),
		dataFileWrites: () => state.journal?.writes ?? 0,
		dataFileStats: () => (state.journal ? { ...state.journal.stats(), compactions: state.journal.compactions } : undefined),
		leftoversRemoved: state.leftoversRemoved,
		tornBytesIgnored: state.tornBytes,
		staleLockTakenOver: state.lock?.staleReason,
		connectionsAccepted: () => connectionsAccepted,
		close,
	};
}
