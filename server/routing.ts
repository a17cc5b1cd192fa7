// Routing of one HTTP request: the relay paths to the relay adapter, the native paths (behind the optional
// native authentication) to the native routes. Transport concerns (body limit, 405, 401) are answered here.
import type { IncomingMessage } from 'http';

import { handleNative, message, nativeRouteOf } from './nativeRoutes';
import type { NativeContext, NativeResponse } from './nativeRoutes';
import { handleRelay, RELAY_HTTP_METHOD, RELAY_PATHS, safeEqual, TOO_LARGE } from './relay';
import type { RelayKeys } from './relay';
import { readBody } from './transport';

export type NativeAuth =
	| { type: 'bearer'; token: string }
	| { type: 'basic'; user: string; password: string }
	| { type: 'header'; name: string; value: string };

// An answer of the HTTP layer: the route's response plus transport headers.
export interface Answer {
	response: NativeResponse;
	extra?: Record<string, string>;
}

export interface Router {
	answer(req: IncomingMessage, method: string, path: string, query: URLSearchParams): Promise<Answer>;
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

function unauthorized(auth: NativeAuth): Answer {
	const challenge = auth.type === 'bearer' ? 'Bearer' : 'Basic realm="job-execution"';
	return { response: message(401, 'missing or invalid credentials'), extra: auth.type === 'header' ? undefined : { 'www-authenticate': challenge } };
}

export function createRouter(ctx: NativeContext, keys: RelayKeys, nativeAuth: NativeAuth | undefined, maxBody: number): Router {
	const relay = async (req: IncomingMessage, method: string, path: string): Promise<Answer> => {
		const relayCall = RELAY_PATHS[path];
		if (method !== RELAY_HTTP_METHOD[relayCall]) {
			return { response: message(405, `method ${method} not allowed on ${path}`), extra: { allow: RELAY_HTTP_METHOD[relayCall] } };
		}
		const r = await handleRelay(ctx, keys, { call: relayCall, headers: req.headers, readBody: () => readBody(req, maxBody) });
		return { response: r, extra: r.status === 413 ? { connection: 'close' } : undefined };
	};
	const native = async (req: IncomingMessage, method: string, path: string, query: URLSearchParams): Promise<Answer> => {
		const route = nativeRouteOf(path);
		if (!route) return { response: message(404, `no route for ${method} ${path.slice(0, 200)}`) };
		// The navigation page is for browsers, which send no API credentials (spec: "only for navigation in a browser").
		if (nativeAuth && route.name !== '/api/v1/flows' && !nativeAuthOk(nativeAuth, req)) return unauthorized(nativeAuth);
		let body: string | undefined;
		if (method === 'POST' && route.methods.includes('POST')) {
			body = await readBody(req, maxBody);
			if (body === undefined) return { response: TOO_LARGE, extra: { connection: 'close' } };
		}
		return { response: await handleNative(ctx, { method, path, query, body, flowRef: 'flowFileName' }) };
	};
	return {
		answer: (req, method, path, query) => (RELAY_PATHS[path] ? relay(req, method, path) : native(req, method, path, query)),
	};
}
