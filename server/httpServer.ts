// startReferenceServer: the HTTP layer (Node's http module) over the native routes and the relay adapter.
import { randomBytes } from 'crypto';
import { createServer } from 'http';
import type { IncomingMessage, ServerResponse } from 'http';
import type { AddressInfo, Socket } from 'net';

import { CatalogIndex, defaultCatalog, loadCatalogFile, validateCatalog } from './catalog';
import type { Catalog } from './catalog';
import { systemClock } from './clock';
import type { Clock } from './clock';
import { JobStore } from './jobStore';
import { handleNative, message, nativeRouteOf } from './nativeRoutes';
import type { NativeContext, NativeResponse, StatusFilterForm } from './nativeRoutes';
import { FaultInjector, faultAnswer } from './faults';
import type { Fault } from './faults';
import { DataFileWriter, loadDataFile } from './persistence';
import { handleRelay, RELAY_HTTP_METHOD, RELAY_PATHS, safeEqual, TOO_LARGE } from './relay';

export type NativeAuth =
	| { type: 'bearer'; token: string }
	| { type: 'basic'; user: string; password: string }
	| { type: 'header'; name: string; value: string };

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
	maxJobs?: number;
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
	close(): Promise<void>;
}

export const MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_HEADERS_TIMEOUT_MS = 20_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

// An answer of the HTTP layer: the route's response plus transport headers.
interface Answer {
	response: NativeResponse;
	extra?: Record<string, string>;
}

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

function send(res: ServerResponse, r: NativeResponse, extra?: Record<string, string>): void {
	if (res.headersSent) return;
	const body = Buffer.from(r.body, 'utf8');
	res.writeHead(r.status, {
		'content-type': r.contentType,
		'content-length': String(body.length),
		...(r.headers ?? {}),
		...(extra ?? {}),
	});
	res.end(body);
}

// Reads at most `limit` bytes; undefined when the body is larger (the rest is discarded, not buffered).
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
	return new Promise((resolve, reject) => {
		const declared = Number(req.headers['content-length']);
		if (Number.isFinite(declared) && declared > limit) {
			req.resume();
			resolve(undefined);
			return;
		}
		const chunks: Buffer[] = [];
		let size = 0;
		let done = false;
		const onData = (chunk: Buffer) => {
			size += chunk.length;
			if (size > limit) {
				done = true;
				chunks.length = 0;
				req.off('data', onData);
				req.resume();
				resolve(undefined);
				return;
			}
			chunks.push(chunk);
		};
		req.on('data', onData);
		req.on('end', () => {
			if (!done) resolve(Buffer.concat(chunks).toString('utf8'));
		});
		req.on('error', (err) => {
			if (!done) reject(err);
		});
	});
}

function nativeAuthOk(auth: NativeAuth, req: IncomingMessage): boolean {
	if (auth.type === 'header') {
		const v = req.headers[auth.name.toLowerCase()];
		return safeEqual(Array.isArray(v) ? v[0] : v, auth.value);
	}
	const authorization = req.headers.authorization ?? '';
	const space = authorization.indexOf(' ');
	const scheme = space === -1 ? authorization : authorization.slice(0, space);
	const credentials = space === -1 ? '' : authorization.slice(space + 1).trim();
	if (auth.type === 'bearer') {
		return scheme.toLowerCase() === 'bearer' && safeEqual(credentials, auth.token);
	}
	const decoded = Buffer.from(credentials, 'base64').toString('utf8');
	return scheme.toLowerCase() === 'basic' && safeEqual(decoded, `${auth.user}:${auth.password}`);
}

function resolveCatalog(input: Catalog | string | undefined): Catalog {
	if (input === undefined) return defaultCatalog();
	if (typeof input === 'string') return loadCatalogFile(input);
	return validateCatalog(input);
}

export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
	const host = options.host ?? '127.0.0.1';
	const clock = options.clock ?? systemClock;
	const catalog = new CatalogIndex(resolveCatalog(options.catalog), options.strict ?? false);
	const store = new JobStore({ clock, stepMs: options.stepMs, concurrency: options.concurrency, maxJobs: options.maxJobs });
	const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
	let writer: DataFileWriter | undefined;
	if (options.dataFile) {
		store.restore(loadDataFile(options.dataFile));
		writer = new DataFileWriter(options.dataFile, () => store.all());
	}
	const keys = {
		relayApiKey: options.relayApiKey ?? randomKey(),
		userApiKey: options.userApiKey ?? randomKey(),
	};
	if (!keys.relayApiKey || !keys.userApiKey) throw new Error('relayApiKey and userApiKey must not be empty');
	const ctx: NativeContext = {
		store,
		catalog,
		statusFilterForm: options.statusFilterForm ?? 'jsonString',
		persist: writer ? () => (writer as DataFileWriter).save() : () => Promise.resolve(),
	};
	const stats: ServerStats = { requests: 0, byRoute: {} };
	const count = (route: string) => {
		stats.requests++;
		stats.byRoute[route] = (stats.byRoute[route] ?? 0) + 1;
	};

	const faults = new FaultInjector();
	if (options.faults) faults.inject(options.faults);

	const answer = async (req: IncomingMessage, method: string, path: string, query: URLSearchParams): Promise<Answer> => {
		const relayCall = RELAY_PATHS[path];
		if (relayCall) {
			if (method !== RELAY_HTTP_METHOD[relayCall]) {
				return { response: message(405, `method ${method} not allowed on ${path}`), extra: { allow: RELAY_HTTP_METHOD[relayCall] } };
			}
			const r = await handleRelay(ctx, keys, { call: relayCall, headers: req.headers, readBody: () => readBody(req, maxBody) });
			return { response: r, extra: r.status === 413 ? { connection: 'close' } : undefined };
		}
		const route = nativeRouteOf(path);
		if (!route) return { response: message(404, `no route for ${method} ${path.slice(0, 200)}`) };
		if (options.nativeAuth && !nativeAuthOk(options.nativeAuth, req)) {
			const challenge = options.nativeAuth.type === 'bearer' ? 'Bearer' : 'Basic realm="job-execution"';
			return { response: message(401, 'missing or invalid credentials'), extra: options.nativeAuth.type === 'header' ? undefined : { 'www-authenticate': challenge } };
		}
		let body: string | undefined;
		if (method === 'POST' && route.methods.includes('POST')) {
			body = await readBody(req, maxBody);
			if (body === undefined) return { response: TOO_LARGE, extra: { connection: 'close' } };
		}
		return { response: await handleNative(ctx, { method, path, query, body, flowRef: 'flowFileName' }) };
	};

	const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const method = (req.method ?? 'GET').toUpperCase();
		const rawUrl = req.url ?? '/';
		const q = rawUrl.indexOf('?');
		const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
		const query = new URLSearchParams(q === -1 ? '' : rawUrl.slice(q + 1));
		const relayCall = RELAY_PATHS[path];
		const route = relayCall ? undefined : nativeRouteOf(path);
		count(relayCall ? `${RELAY_HTTP_METHOD[relayCall]} ${path}` : route ? `${method} ${route.name}` : 'other');

		const fault = faults.take(
			relayCall
				? { api: 'relay', method: header(req, 'method').trim().toUpperCase() || method, target: header(req, 'endpoint') }
				: { api: 'native', method, target: rawUrl },
		);
		if (fault && !fault.after) {
			if (fault.kind === 'drop') {
				req.socket.destroy();
				return;
			}
			if (fault.kind === 'latency') {
				await pause(fault.ms ?? 1000);
			} else {
				req.resume();
				send(res, faultAnswer(fault, undefined) as NativeResponse);
				return;
			}
		}
		const result = await answer(req, method, path, query);
		if (fault?.after) {
			if (fault.kind === 'drop') {
				// The route ran (a submitted job exists) but the client never hears of it.
				req.socket.destroy();
				return;
			}
			if (fault.kind === 'latency') await pause(fault.ms ?? 1000);
			else result.response = faultAnswer(fault, result.response) as NativeResponse;
		}
		send(res, result.response, result.extra);
	};

	const requestTimeout = timeoutOption('requestTimeoutMs', options.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS);
	// Node refuses a headers deadline later than the whole request's.
	const headersTimeout = Math.min(requestTimeout, timeoutOption('headersTimeoutMs', options.headersTimeoutMs, DEFAULT_HEADERS_TIMEOUT_MS));
	// Slow or stalled requests are dropped instead of holding sockets forever. Node checks the deadlines every
	// connectionsCheckingInterval (30 s by default), so it is tied to the shorter deadline.
	const server = createServer(
		{ headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1000, Math.max(10, Math.floor(headersTimeout / 4))) },
		(req, res) => {
			handle(req, res).catch((err: unknown) => {
				// The spec's 400 covers "bad request or server error".
				send(res, message(400, `server error: ${(err as Error).message ?? String(err)}`));
			});
		},
	);
	const sockets = new Set<Socket>();
	server.on('connection', (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	// No 'clientError' listener: Node's default answers malformed requests (400, 408, 431) and closes the socket.

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const port = (server.address() as AddressInfo).port;
	const urlHost = host.includes(':') ? `[${host}]` : host;

	let closing: Promise<void> | undefined;
	const close = (): Promise<void> => {
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

	return {
		url: `http://${urlHost}:${port}`,
		host,
		port,
		relayApiKey: keys.relayApiKey,
		userApiKey: keys.userApiKey,
		clock,
		store,
		catalog,
		stats,
		faults,
		dataFileWrites: () => writer?.writes ?? 0,
		close,
	};
}
