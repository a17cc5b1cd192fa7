// The relay interface: its two routes, its keys, and the unpacking of the native call from the `endpoint` and
// `method` headers onto the same native routes. It translates; it never re-implements.
import { createHash, timingSafeEqual } from 'crypto';
import type { IncomingHttpHeaders } from 'http';

import { handleNative } from './nativeRoutes';
import { message } from './responses';
import type { NativeResponse } from './responses';
import type { NativeContext, Route, RouteCall } from './routeTable';

export type RelayCall = 'status' | 'execute';

export interface RelayKeys {
	relayApiKey: string;
	userApiKey: string;
}

const RELAY_HTTP_METHOD: Record<RelayCall, string> = { status: 'GET', execute: 'POST' };
export const RELAY_401 = 'invalid or missing apiKey / user-api-key';

// Constant-time comparison; hashing first makes the lengths equal and hides the key's length.
export function safeEqual(given: string | undefined, expected: string): boolean {
	const a = createHash('sha256').update(given ?? '').digest();
	const b = createHash('sha256').update(expected).digest();
	return timingSafeEqual(a, b) && given !== undefined;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
	const v = headers[name];
	return Array.isArray(v) ? v[0] : v;
}

export function relayKeysOk(keys: RelayKeys, headers: IncomingHttpHeaders): boolean {
	// Both comparisons always run, so timing does not tell which key was wrong.
	const relayOk = safeEqual(header(headers, 'apikey'), keys.relayApiKey);
	const userOk = safeEqual(header(headers, 'user-api-key'), keys.userApiKey);
	return relayOk && userOk;
}

// Strict shape of the `endpoint` header: no traversal, no percent-encoding in the path, only `filter` in the query.
const STATUS_PATH = /^\/api\/v1\/jobs(?:\/[A-Za-z0-9_-]+)?$/;

export function parseEndpoint(call: RelayCall, endpoint: string): { path: string; query: URLSearchParams } | string {
	// Checked by code point (a control-character regex would trip the no-control-regex rule).
	for (const ch of endpoint) {
		const code = ch.codePointAt(0) as number;
		if (code <= 0x20 || code === 0x7f) return 'endpoint must not contain spaces or control characters';
	}
	if (endpoint.includes('#') || endpoint.includes('\\')) return 'endpoint must not contain # or \\';
	const q = endpoint.indexOf('?');
	const path = q === -1 ? endpoint : endpoint.slice(0, q);
	const rawQuery = q === -1 ? undefined : endpoint.slice(q + 1);
	if (call === 'execute') {
		if (path !== '/api/v1/jobs' || rawQuery !== undefined) return 'endpoint of /call/execute must be /api/v1/jobs';
		return { path, query: new URLSearchParams() };
	}
	if (!STATUS_PATH.test(path)) {
		return 'endpoint of /call/status must be /api/v1/jobs or /api/v1/jobs/<jobId>, optionally with ?filter=';
	}
	const query = new URLSearchParams(rawQuery ?? '');
	if (rawQuery !== undefined) {
		const keys = [...query.keys()];
		if (keys.length !== 1 || keys[0] !== 'filter') return 'endpoint query may only carry one filter parameter';
	}
	return { path, query };
}

// Translates a relay call (keys already checked) into its native call.
async function relayCall(call: RelayCall, ctx: NativeContext, req: RouteCall): Promise<NativeResponse> {
	const endpoint = header(req.headers, 'endpoint');
	const method = header(req.headers, 'method');
	if (endpoint === undefined || endpoint === '') return message(400, 'endpoint header is required');
	if (method === undefined || method === '') return message(400, 'method header is required');
	const expected = RELAY_HTTP_METHOD[call];
	if (method.trim().toUpperCase() !== expected) {
		return message(400, `method header must be ${expected} on /call/${call}`);
	}
	const target = parseEndpoint(call, endpoint);
	if (typeof target === 'string') return message(400, target);
	return handleNative(ctx, {
		method: expected,
		path: target.path,
		query: target.query,
		body: call === 'execute' ? req.body : undefined,
		flowRef: call === 'execute' ? 'flowId' : 'flowFileName',
	});
}

export const RELAY_ROUTES: readonly Route[] = [
	{ name: '/call/status', api: 'relay', pattern: /^\/call\/status$/, methods: { GET: { handler: (ctx, req) => relayCall('status', ctx, req) } } },
	{ name: '/call/execute', api: 'relay', pattern: /^\/call\/execute$/, methods: { POST: { handler: (ctx, req) => relayCall('execute', ctx, req), readsBody: true } } },
];
