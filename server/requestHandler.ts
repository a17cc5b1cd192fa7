// The request handler: one HTTP request from its target to its answer. The route is resolved once (404/405),
// counted, given an injected fault if a test asked for one, authenticated (native token or relay keys), its
// body read up to the limit, then answered by the route's handler.
import type { IncomingMessage, ServerResponse } from 'http';

import { faultAnswer } from './faults';
import type { FaultInjector } from './faults';
import { NATIVE_ROUTES } from './nativeRoutes';
import { RELAY_401, RELAY_ROUTES, relayKeysOk, safeEqual } from './relay';
import type { RelayKeys } from './relay';
import { bodyText, message, TOO_LARGE } from './responses';
import type { NativeResponse } from './responses';
import { resolveRoute } from './routeTable';
import type { NativeContext, Resolved, Route } from './routeTable';
import { readBody, send, sendRefusal } from './transport';

// Every route of the server.
export const ROUTES: readonly Route[] = [...NATIVE_ROUTES, ...RELAY_ROUTES];

export type NativeAuth =
	| { type: 'bearer'; token: string }
	| { type: 'basic'; user: string; password: string }
	| { type: 'header'; name: string; value: string };

export interface ServerStats {
	requests: number;
	byRoute: Record<string, number>;
}

export interface RequestHandlerOptions {
	ctx: NativeContext;
	keys: RelayKeys;
	nativeAuth?: NativeAuth;
	maxBodyBytes: number;
	// Past the body limit, what the client still sends is read and discarded up to this many bytes before closing.
	maxDiscardBytes: number;
	faults: FaultInjector;
	stats: ServerStats;
	// A reader that takes nothing of an answer for this long is dropped.
	stallMs: number;
}

// An answer plus the transport's own headers.
interface Answer {
	response: NativeResponse;
	extra?: Record<string, string>;
	// The body was refused: the connection closes once the client has sent the rest (sendRefusal).
	refusedBody?: true;
}

// Path and query of a request target: origin-form (`/api/v1/jobs?x`) or absolute-form
// (`http://host/api/v1/jobs?x`, which RFC 9112 §3.2.2 says a server must accept).
export function splitTarget(target: string): { path: string; query: string } {
	let rest = target;
	const scheme = /^https?:\/\//i.exec(rest);
	if (scheme) {
		const afterAuthority = rest.slice(scheme[0].length).search(/[/?#]/);
		rest = afterAuthority === -1 ? '/' : rest.slice(scheme[0].length + afterAuthority);
		if (rest.startsWith('?')) rest = `/${rest}`;
	}
	const q = rest.indexOf('?');
	return q === -1 ? { path: rest, query: '' } : { path: rest.slice(0, q), query: rest.slice(q + 1) };
}

function header(req: IncomingMessage, name: string): string {
	const value = req.headers[name];
	return (Array.isArray(value) ? value[0] : value) ?? '';
}

function nativeAuthOk(auth: NativeAuth, req: IncomingMessage): boolean {
	if (auth.type === 'header') return safeEqual(header(req, auth.name.toLowerCase()) || undefined, auth.value);
	const authorization = req.headers.authorization ?? '';
	const space = authorization.indexOf(' ');
	const scheme = space === -1 ? authorization : authorization.slice(0, space);
	const credentials = space === -1 ? '' : authorization.slice(space + 1).trim();
	if (auth.type === 'bearer') return scheme.toLowerCase() === 'bearer' && safeEqual(credentials, auth.token);
	const decoded = Buffer.from(credentials, 'base64').toString('utf8');
	return scheme.toLowerCase() === 'basic' && safeEqual(decoded, `${auth.user}:${auth.password}`);
}

// The refusal of a request without valid credentials, or undefined when it may go on.
function refusedCredentials(o: RequestHandlerOptions, route: Route, req: IncomingMessage): Answer | undefined {
	if (route.api === 'relay') return relayKeysOk(o.keys, req.headers) ? undefined : { response: message(401, RELAY_401) };
	const auth = o.nativeAuth;
	// The navigation page is for browsers, which send no API credentials (spec: "only for navigation in a browser").
	if (!auth || route.name === '/api/v1/flows' || nativeAuthOk(auth, req)) return undefined;
	const challenge = auth.type === 'bearer' ? 'Bearer' : 'Basic realm="job-execution"';
	return { response: message(401, 'missing or invalid credentials'), extra: auth.type === 'header' ? undefined : { 'www-authenticate': challenge } };
}

// The route's answer, from resolution to handler.
async function answer(o: RequestHandlerOptions, req: IncomingMessage, resolved: Resolved, method: string, target: { path: string; query: string }): Promise<Answer> {
	if ('refusal' in resolved) return { response: resolved.refusal };
	const refused = refusedCredentials(o, resolved.route, req);
	if (refused) return refused;
	let body: string | undefined;
	if (resolved.endpoint.readsBody) {
		body = await readBody(req, o.maxBodyBytes);
		if (body === undefined) return { response: TOO_LARGE, refusedBody: true };
	}
	const call = { method, path: target.path, query: new URLSearchParams(target.query), params: resolved.params, body, headers: req.headers, flowRef: 'flowFileName' as const };
	return { response: await resolved.endpoint.handler(o.ctx, call) };
}

function pause(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

export function createRequestHandler(o: RequestHandlerOptions) {
	return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const method = (req.method ?? 'GET').toUpperCase();
		const rawUrl = req.url ?? '/';
		const target = splitTarget(rawUrl);
		const resolved = resolveRoute(ROUTES, method, target.path);
		const name = resolved.route ? `${method} ${resolved.route.name}` : 'other';
		o.stats.requests++;
		o.stats.byRoute[name] = (o.stats.byRoute[name] ?? 0) + 1;
		// Fault injection (tests only: nothing happens unless a fault was queued). A fault before the route
		// replaces it; after, the route runs and the fault delays, replaces or drops its answer.
		const fault = o.faults.take(
			resolved.route?.api === 'relay'
				? { api: 'relay', method: header(req, 'method').trim().toUpperCase() || method, target: header(req, 'endpoint') }
				: { api: 'native', method, target: target.query ? `${target.path}?${target.query}` : target.path },
		);
		if (fault && !fault.after) {
			if (fault.kind === 'drop') return void req.socket.destroy();
			if (fault.kind !== 'latency') {
				req.resume();
				return send(res, faultAnswer(fault, undefined) as NativeResponse, undefined, o.stallMs);
			}
			await pause(fault.ms ?? 1000);
		}
		const result = await answer(o, req, resolved, method, target);
		if (fault?.after) {
			// After a drop the route ran (a submitted job exists) but the client never hears of it.
			if (fault.kind === 'drop') return void req.socket.destroy();
			if (fault.kind === 'latency') await pause(fault.ms ?? 1000);
			else result.response = faultAnswer(fault, { ...result.response, body: bodyText(result.response), stream: undefined }) as NativeResponse;
		}
		if (result.refusedBody) return sendRefusal(req, res, result.response, o.maxDiscardBytes);
		await send(res, result.response, result.extra, o.stallMs);
	};
}
