// Fault injection, for tests only and off by default: the next matching requests get a chosen failure
// instead of (before) or in place of the answer to (after) the real route.
import { JSON_TYPE } from './responses';
import type { NativeResponse } from './responses';

export type FaultKind =
	// Wait `ms`, then answer normally.
	| 'latency'
	// Answer `status` (default 503) with a short JSON {message}.
	| 'status'
	// Close the connection without any answer.
	| 'drop'
	// Answer 200 (after: the route's own status) with JSON cut in the middle.
	| 'malformedJson'
	// Answer `status` (default 502) with an HTML error page, as a proxy would.
	| 'html'
	// Answer 400 with no body at all.
	| 'emptyBadRequest'
	// Answer `status` (default 200) with a bare text body, `text` (default "OK").
	| 'bareString';

export interface Fault {
	kind: FaultKind;
	// Only requests with this HTTP verb of the native call (relay: the `method` header's call).
	method?: 'GET' | 'POST';
	// Only requests whose native path and query (relay: the `endpoint` header) equal this text or match this pattern.
	target?: string | RegExp;
	// Only one interface.
	api?: 'native' | 'relay';
	// false (default): the fault replaces the route, which never runs. true: the route runs (a submit creates
	// its job), then the fault replaces or delays its answer.
	after?: boolean;
	// How many matching requests get the fault (default 1).
	times?: number;
	// Matching requests to let through before the fault applies (default 0).
	skip?: number;
	ms?: number;
	status?: number;
	text?: string;
}

// What the server knows of a request when it picks a fault.
export interface FaultRequest {
	api: 'native' | 'relay';
	method: string;
	target: string;
}

export interface AppliedFault {
	kind: FaultKind;
	after: boolean;
	method: string;
	target: string;
}

interface Pending {
	fault: Fault;
	skip: number;
	left: number;
}

function matches(fault: Fault, req: FaultRequest): boolean {
	if (fault.api !== undefined && fault.api !== req.api) return false;
	if (fault.method !== undefined && fault.method !== req.method) return false;
	if (fault.target === undefined) return true;
	return typeof fault.target === 'string' ? fault.target === req.target : fault.target.test(req.target);
}

export class FaultInjector {
	private pending: Pending[] = [];
	// Every fault that was applied, oldest first.
	readonly applied: AppliedFault[] = [];

	inject(faults: Fault | Fault[]): void {
		for (const fault of Array.isArray(faults) ? faults : [faults]) {
			const times = fault.times ?? 1;
			const skip = fault.skip ?? 0;
			if (!(times >= 1) || !(skip >= 0)) throw new Error('fault times must be >= 1 and skip >= 0');
			this.pending.push({ fault, skip, left: times });
		}
	}

	clear(): void {
		this.pending = [];
	}

	// Faults still waiting for a request.
	waiting(): number {
		return this.pending.length;
	}

	// The fault for this request, if any: the first queued fault it matches.
	take(req: FaultRequest): Fault | undefined {
		for (let i = 0; i < this.pending.length; i++) {
			const entry = this.pending[i];
			if (!matches(entry.fault, req)) continue;
			if (entry.skip > 0) {
				entry.skip--;
				return undefined;
			}
			entry.left--;
			if (entry.left <= 0) this.pending.splice(i, 1);
			this.applied.push({ kind: entry.fault.kind, after: entry.fault.after === true, method: req.method, target: req.target });
			return entry.fault;
		}
		return undefined;
	}
}

// The answer a fault sends, or undefined for the kinds that do not answer (latency, drop).
export function faultAnswer(fault: Fault, real: NativeResponse | undefined): NativeResponse | undefined {
	switch (fault.kind) {
		case 'status':
			return {
				status: fault.status ?? 503,
				contentType: JSON_TYPE,
				body: JSON.stringify({ message: `injected fault: HTTP ${fault.status ?? 503}` }),
			};
		case 'malformedJson': {
			const body = real?.body ?? '{"jobId":"3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10"}';
			return { status: real?.status ?? 200, contentType: JSON_TYPE, body: body.slice(0, Math.max(1, Math.floor(body.length / 2))) };
		}
		case 'html': {
			const status = fault.status ?? 502;
			const body = `<!doctype html>\n<html><head><title>${status} Bad Gateway</title></head><body><h1>${status} Bad Gateway</h1><hr>proxy</body></html>\n`;
			return { status, contentType: 'text/html; charset=utf-8', body };
		}
		case 'emptyBadRequest':
			return { status: 400, contentType: 'text/plain; charset=utf-8', body: '' };
		case 'bareString':
			return { status: fault.status ?? 200, contentType: 'text/plain; charset=utf-8', body: fault.text ?? 'OK' };
		default:
			return undefined;
	}
}
