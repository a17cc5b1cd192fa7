// How routes are declared (path pattern + method → handler) and resolved. resolveRoute is the one place where
// "no such path" (404) and "not this method" (405) are decided, for the HTTP layer and the relay adapter alike.
import type { IncomingHttpHeaders } from 'http';

import type { CatalogIndex } from './catalog';
import type { JobStore } from './jobStore';
import { message } from './responses';
import type { NativeResponse } from './responses';
import type { FlowRef } from './submission';

export type StatusFilterForm = 'jsonString' | 'bareText' | 'object';

export interface NativeContext {
	store: JobStore;
	catalog: CatalogIndex;
	statusFilterForm: StatusFilterForm;
	// The order lists are sent in: newest first (the default), or oldest first (the spec defines none).
	listOrder: 'newestFirst' | 'oldestFirst';
	// Resolves once the submitted job is on disk (no-op without --data).
	persist: () => Promise<void>;
}

// A request as a route sees it (relay calls are translated into one of the native routes').
export interface RouteCall {
	method: string;
	path: string;
	query: URLSearchParams;
	// The path's captured parts (the job id).
	params: string[];
	// Raw body text, read only for routes that take one.
	body?: string;
	headers: IncomingHttpHeaders;
	flowRef: FlowRef;
}

export type RouteHandler = (ctx: NativeContext, call: RouteCall) => NativeResponse | Promise<NativeResponse>;

export interface Endpoint {
	handler: RouteHandler;
	// The request body is read (up to the size limit) before the handler runs.
	readsBody?: boolean;
}

export interface Route {
	// Its name in counters and messages, e.g. `/api/v1/jobs/{jobId}`.
	name: string;
	api: 'native' | 'relay';
	pattern: RegExp;
	methods: Partial<Record<string, Endpoint>>;
}

export type Resolved = { route: Route; endpoint: Endpoint; params: string[] } | { route?: Route; refusal: NativeResponse };

export function resolveRoute(routes: readonly Route[], method: string, path: string): Resolved {
	for (const route of routes) {
		const match = route.pattern.exec(path);
		if (!match) continue;
		const endpoint = Object.prototype.hasOwnProperty.call(route.methods, method) ? route.methods[method] : undefined;
		if (!endpoint) {
			const allow = Object.keys(route.methods).join(', ');
			return { route, refusal: message(405, `method ${method} not allowed on ${route.name}`, { allow }) };
		}
		return { route, endpoint, params: match.slice(1) };
	}
	return { refusal: message(404, `no route for ${method} ${path.slice(0, 200)}`) };
}
