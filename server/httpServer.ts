// startReferenceServer: the HTTP layer (Node's http module) over the native routes and the relay adapter.
import { randomBytes } from 'crypto';
import { createServer } from 'http';
import type { IncomingMessage, Server, ServerResponse } from 'http';
import type { AddressInfo, Socket } from 'net';

import { CatalogIndex, defaultCatalog, loadCatalogFile, validateCatalog } from './catalog';
import type { Catalog } from './catalog';
import { systemClock } from './clock';
import type { Clock } from './clock';
import { JobStore } from './jobStore';
import { bodyText, message, nativeRouteOf } from './nativeRoutes';
import type { NativeContext, NativeResponse, StatusFilterForm } from './nativeRoutes';
import { FaultInjector, faultAnswer } from './faults';
import type { Fault } from './faults';
import { DataFileWriter, loadDataFile, removeLeftoverTempFiles } from './persistence';
import { RELAY_HTTP_METHOD, RELAY_PATHS } from './relay';
import type { RelayKeys } from './relay';
import { createRouter } from './routing';
import type { Answer, NativeAuth, Router } from './routing';
import { send } from './transport';

export type { NativeAuth } from './routing';

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
	// Jobs kept: beyond it the oldest finished ones are forgotten (queued and running jobs never are).
	maxJobs?: number;
	// Jobs waiting for a slot: past it a submission is refused with 503 and Retry-After.
	maxQueued?: number;
	dataFile?: string;
	maxBodyBytes?: number;
	// A request whose headers have not all arrived after this long is dropped (default 20 s)...
	headersTimeoutMs?: number;
	// ...and one not fully received after this long (default 30 s): slow or stalled clients cannot hold sockets.
	requestTimeoutMs?: number;
	// Test only: faults queued from the start (see server.faults).
	faults?: Fault[];
}

export interface ServerStats {
	requests: number;
	byRoute: Record<string, number>;
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
	// Number of data-file writes done (0 without --data).
	dataFileWrites(): number;
	// Temp files of interrupted writes removed at start (0 without --data).
	leftoversRemoved: number;
	close(): Promise<void>;
}

export const MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_HEADERS_TIMEOUT_MS = 20_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

function pause(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function header(req: IncomingMessage, name: string): string {
	const value = req.headers[name];
	return (Array.isArray(value) ? value[0] : value) ?? '';
}

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

// The server's state: catalog, store (restored from the data file), writer and keys.
function buildState(options: ReferenceServerOptions) {
	const clock = options.clock ?? systemClock;
	const catalog = new CatalogIndex(resolveCatalog(options.catalog), options.strict ?? false);
	const store = new JobStore({ clock, stepMs: options.stepMs, concurrency: options.concurrency, maxJobs: options.maxJobs, maxQueued: options.maxQueued });
	let writer: DataFileWriter | undefined;
	let leftoversRemoved = 0;
	if (options.dataFile) {
		leftoversRemoved = removeLeftoverTempFiles(options.dataFile);
		store.restore(loadDataFile(options.dataFile));
		writer = new DataFileWriter(options.dataFile, () => store.recordsText());
	}
	const keys: RelayKeys = { relayApiKey: options.relayApiKey ?? randomKey(), userApiKey: options.userApiKey ?? randomKey() };
	if (!keys.relayApiKey || !keys.userApiKey) throw new Error('relayApiKey and userApiKey must not be empty');
	const ctx: NativeContext = {
		store,
		catalog,
		statusFilterForm: options.statusFilterForm ?? 'jsonString',
		persist: writer ? () => (writer as DataFileWriter).save() : () => Promise.resolve(),
	};
	return { clock, catalog, store, writer, keys, ctx, leftoversRemoved };
}

// Route name for the request counters.
function routeName(method: string, path: string): string {
	const relayCall = RELAY_PATHS[path];
	if (relayCall) return `${RELAY_HTTP_METHOD[relayCall]} ${path}`;
	const route = nativeRouteOf(path);
	return route ? `${method} ${route.name}` : 'other';
}

// Fault handling around the router (test only: nothing happens unless a fault was injected). A fault before
// the route replaces it; after, the route runs and the fault delays, replaces or drops its answer.
function faultyHandler(router: Router, faults: FaultInjector, stats: ServerStats, stallMs: number) {
	return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const method = (req.method ?? 'GET').toUpperCase();
		const rawUrl = req.url ?? '/';
		const q = rawUrl.indexOf('?');
		const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
		const name = routeName(method, path);
		stats.requests++;
		stats.byRoute[name] = (stats.byRoute[name] ?? 0) + 1;
		const fault = faults.take(
			RELAY_PATHS[path]
				? { api: 'relay', method: header(req, 'method').trim().toUpperCase() || method, target: header(req, 'endpoint') }
				: { api: 'native', method, target: rawUrl },
		);
		if (fault && !fault.after) {
			if (fault.kind === 'drop') return void req.socket.destroy();
			if (fault.kind !== 'latency') {
				req.resume();
				return send(res, faultAnswer(fault, undefined) as NativeResponse, undefined, stallMs);
			}
			await pause(fault.ms ?? 1000);
		}
		const result: Answer = await router.answer(req, method, path, new URLSearchParams(q === -1 ? '' : rawUrl.slice(q + 1)));
		if (fault?.after) {
			// After a drop the route ran (a submitted job exists) but the client never hears of it.
			if (fault.kind === 'drop') return void req.socket.destroy();
			if (fault.kind === 'latency') await pause(fault.ms ?? 1000);
			else result.response = faultAnswer(fault, { ...result.response, body: bodyText(result.response), stream: undefined }) as NativeResponse;
		}
		await send(res, result.response, result.extra, stallMs);
	};
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
	const server = createServer(
		{ headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1000, Math.max(10, Math.floor(headersTimeout / 4))) },
		(req, res) => {
			handle(req, res).catch((err: unknown) => serverError(res, err, stallMs));
		},
	);
	// No 'clientError' listener: Node's default answers malformed requests (400, 408, 431) and closes the socket.
	return server;
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
function closer(server: Server, writer: DataFileWriter | undefined): () => Promise<void> {
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
			if (writer) await writer.flush();
		})();
		return closing;
	};
}

export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
	const host = options.host ?? '127.0.0.1';
	const state = buildState(options);
	const stats: ServerStats = { requests: 0, byRoute: {} };
	const faults = new FaultInjector();
	if (options.faults) faults.inject(options.faults);
	// A request must arrive, and an answer be taken by its reader, within the request deadline.
	const stallMs = timeoutOption('requestTimeoutMs', options.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS);
	const router = createRouter(state.ctx, state.keys, options.nativeAuth, options.maxBodyBytes ?? MAX_BODY_BYTES);
	const server = createHttpServer(options, faultyHandler(router, faults, stats, stallMs), stallMs);
	const close = closer(server, state.writer);
	const port = await listen(server, options.port ?? 0, host);
	const urlHost = host.includes(':') ? `[${host}]` : host;
	return {
		url: `http://${urlHost}:${port}`,
		host,
		port,
		relayApiKey: state.keys.relayApiKey,
		userApiKey: state.keys.userApiKey,
		clock: state.clock,
		store: state.store,
		catalog: state.catalog,
		stats,
		faults,
		dataFileWrites: () => state.writer?.writes ?? 0,
		leftoversRemoved: state.leftoversRemoved,
		close,
	};
}
