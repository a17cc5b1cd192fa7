// The native routes, declared once (NATIVE_ROUTES) and answered here: the HTTP layer and the relay adapter both
// reach them through resolveRoute, with a normalized request, and send back their { status, contentType, body }.
import type { JobStatus, ListFilter, StoredJob } from './jobTypes';
import { QueueFullError } from './jobStore';
import { json, JSON_TYPE, message, quote } from './responses';
import type { NativeResponse } from './responses';
import { resolveRoute } from './routeTable';
import type { NativeContext, Route, RouteCall } from './routeTable';
import { parseJobRequest } from './submission';
import type { FlowRef } from './submission';

// A native call as the relay adapter (or a test) gives it.
export interface NativeRequest {
	method: string;
	path: string;
	query: URLSearchParams;
	body?: string;
	flowRef: FlowRef;
}

// A single filter parameter; several values or an empty one are refused.
function readFilter(query: URLSearchParams): { value?: string; error?: string } {
	const values = query.getAll('filter');
	if (values.length === 0) return {};
	if (values.length > 1) return { error: 'filter must be given once' };
	return { value: values[0] };
}

// A list stops before this many bytes (fewer than 100 jobs then): no answer, and no slow reader, holds more.
export const LIST_MAX_BYTES = 8 * 1024 * 1024;

// The list's JSON text piece by piece; each JobStatus is built only when its piece is asked for.
function* jsonArray(items: (() => JobStatus)[], maxBytes: number): Generator<string> {
	let bytes = 2;
	let first = true;
	yield '[';
	for (const item of items) {
		const text = JSON.stringify(item());
		const size = Buffer.byteLength(text) + (first ? 0 : 1);
		if (bytes + size > maxBytes) break;
		bytes += size;
		yield first ? text : `,${text}`;
		first = false;
	}
	yield ']';
}

function listJobs(ctx: NativeContext, call: RouteCall): NativeResponse {
	const { value, error } = readFilter(call.query);
	if (error) return message(400, error);
	if (value !== undefined && value !== 'active' && value !== 'history') {
		return message(400, `unknown filter ${quote(value)} (allowed: active, history)`);
	}
	const listed = ctx.store.listLazily(value as ListFilter | undefined);
	const statuses = ctx.listOrder === 'oldestFirst' ? listed.reverse() : listed;
	return { status: 200, contentType: JSON_TYPE, body: '', stream: () => jsonArray(statuses, LIST_MAX_BYTES) };
}

function jobStatus(ctx: NativeContext, call: RouteCall): NativeResponse {
	let id: string;
	try {
		id = decodeURIComponent(call.params[0]);
	} catch {
		return message(400, 'malformed job id');
	}
	const { value, error } = readFilter(call.query);
	if (error) return message(400, error);
	if (value !== undefined && value !== 'executionStatus') {
		return message(400, `unknown filter ${quote(value)} (allowed: executionStatus)`);
	}
	const status = ctx.store.status(id);
	if (!status) return message(400, `unknown job id ${quote(id)}`);
	if (value === undefined) return json(200, status);
	switch (ctx.statusFilterForm) {
		case 'bareText':
			return { status: 200, contentType: 'text/plain; charset=utf-8', body: status.executionStatus };
		case 'object':
			return json(200, { executionStatus: status.executionStatus });
		default:
			return json(200, status.executionStatus);
	}
}

function escapeHtml(text: string): string {
	return text
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&#39;');
}

function navigate(ctx: NativeContext, call: RouteCall): NativeResponse {
	const flowFileName = call.query.get('flowFileName');
	const runProfile = call.query.get('runProfile');
	const nodeId = call.query.get('nodeId');
	if (!flowFileName) return message(400, 'flowFileName is required');
	if (!runProfile) return message(400, 'runProfile is required');
	if (nodeId !== null && !/^node_\d+$/.test(nodeId)) return message(400, 'nodeId must have the form node_<digits>');
	const flow = ctx.catalog.byFileName(flowFileName);
	if (!flow) return message(400, `unknown flow ${quote(flowFileName)}`);
	const title = `${flow.flowName} / ${runProfile}${nodeId ? ` / ${nodeId}` : ''}`;
	const html = [
		'<!doctype html>',
		'<html lang="en">',
		'<head><meta charset="utf-8"><title>' + escapeHtml(title) + '</title></head>',
		'<body>',
		`<h1>Flow ${escapeHtml(flow.flowName)}</h1>`,
		'<dl>',
		`<dt>Flow file</dt><dd class="flow">${escapeHtml(flowFileName)}</dd>`,
		`<dt>Run profile</dt><dd class="run-profile">${escapeHtml(runProfile)}</dd>`,
		nodeId ? `<dt>Node</dt><dd class="node">${escapeHtml(nodeId)}</dd>` : '<dt>Node</dt><dd class="node">(flow opened, no node selected)</dd>',
		'</dl>',
		'</body>',
		'</html>',
		'',
	].join('\n');
	return { status: 200, contentType: 'text/html; charset=utf-8', body: html };
}

// What a failed write may tell a client: the error code (ENOSPC, EACCES), never the file's path.
function writeFailure(err: unknown): string {
	const code = (err as NodeJS.ErrnoException).code;
	return `could not save the job (${typeof code === 'string' ? code : 'write error'}); it was not accepted`;
}

// A job is shown to readers only once it is on disk: staged, written, then committed (or discarded).
async function submitJob(ctx: NativeContext, call: RouteCall): Promise<NativeResponse> {
	const valid = parseJobRequest(ctx.catalog, call.body, call.flowRef);
	if ('error' in valid) return message(400, valid.error);
	let job: StoredJob;
	try {
		job = ctx.store.stage(valid.ok);
	} catch (err) {
		if (err instanceof QueueFullError) return message(503, err.message, { 'retry-after': '1' });
		throw err;
	}
	try {
		await ctx.persist();
	} catch (err) {
		ctx.store.discard(job.id);
		return message(400, writeFailure(err));
	}
	return json(ctx.store.commit(job.id) ? 200 : 202, { jobId: job.id });
}

export const NATIVE_ROUTES: readonly Route[] = [
	{ name: '/api/v1/jobs', api: 'native', pattern: /^\/api\/v1\/jobs$/, methods: { GET: { handler: listJobs }, POST: { handler: submitJob, readsBody: true } } },
	{ name: '/api/v1/jobs/{jobId}', api: 'native', pattern: /^\/api\/v1\/jobs\/([^/]+)$/, methods: { GET: { handler: jobStatus } } },
	{ name: '/api/v1/flows', api: 'native', pattern: /^\/api\/v1\/flows$/, methods: { GET: { handler: navigate } } },
];

// A native call answered (the relay adapter's way in, and tests').
export async function handleNative(ctx: NativeContext, req: NativeRequest): Promise<NativeResponse> {
	const resolved = resolveRoute(NATIVE_ROUTES, req.method, req.path);
	if ('refusal' in resolved) return resolved.refusal;
	return resolved.endpoint.handler(ctx, { ...req, params: resolved.params, headers: {} });
}
