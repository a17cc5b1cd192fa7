// The native routes, written once: the native HTTP layer and the relay adapter both call handleNative
// with a normalized request and send back its { status, contentType, body }.
import type { CatalogIndex, ResolvedFlow } from './catalog';
import { isUuid } from './catalog';
import { QueueFullError } from './jobStore';
import type { JobParameter, JobStatus, JobStore, ListFilter, StoredJob, SubmitInput } from './jobStore';

export type StatusFilterForm = 'jsonString' | 'bareText' | 'object';
// How the submission names its flow: natively by file, through the relay by id.
export type FlowRef = 'flowFileName' | 'flowId';

export interface NativeRequest {
	method: string;
	path: string;
	query: URLSearchParams;
	// Raw body text (JSON is parsed here so both interfaces report malformed JSON the same way).
	body?: string;
	flowRef: FlowRef;
}

export interface NativeResponse {
	status: number;
	contentType: string;
	body: string;
	headers?: Record<string, string>;
	// Set for answers written piece by piece (lists); `body` is then empty.
	stream?: () => Iterable<string>;
}

export interface NativeContext {
	store: JobStore;
	catalog: CatalogIndex;
	statusFilterForm: StatusFilterForm;
	// Resolves once the submitted job is on disk (no-op without --data).
	persist: () => Promise<void>;
}

export const JSON_TYPE = 'application/json; charset=utf-8';
const API = '/api/v1';
const JOB_PATH = /^\/api\/v1\/jobs\/([^/]+)$/;

export function json(status: number, value: unknown, headers?: Record<string, string>): NativeResponse {
	return { status, contentType: JSON_TYPE, body: JSON.stringify(value), headers };
}

export function message(status: number, text: string, headers?: Record<string, string>): NativeResponse {
	return json(status, { message: text }, headers);
}

// Keeps client-supplied text short in error messages.
function quote(text: string): string {
	const short = text.length > 80 ? `${text.slice(0, 80)}...` : text;
	return JSON.stringify(short);
}

// Route name for stats and 404/405 decisions; undefined = no such path.
export function nativeRouteOf(path: string): { name: string; methods: string[] } | undefined {
	if (path === `${API}/jobs`) return { name: '/api/v1/jobs', methods: ['GET', 'POST'] };
	if (JOB_PATH.test(path)) return { name: '/api/v1/jobs/{jobId}', methods: ['GET'] };
	if (path === `${API}/flows`) return { name: '/api/v1/flows', methods: ['GET'] };
	return undefined;
}

export async function handleNative(ctx: NativeContext, req: NativeRequest): Promise<NativeResponse> {
	const route = nativeRouteOf(req.path);
	if (!route) return message(404, `no route for ${req.method} ${req.path.slice(0, 200)}`);
	if (!route.methods.includes(req.method)) {
		return message(405, `method ${req.method} not allowed on ${route.name}`, { allow: route.methods.join(', ') });
	}
	if (route.name === '/api/v1/jobs') return req.method === 'POST' ? submitJob(ctx, req) : listJobs(ctx, req);
	if (route.name === '/api/v1/flows') return navigate(ctx, req);
	return jobStatus(ctx, req);
}

// A single filter parameter; several values or an empty one are refused.
function readFilter(query: URLSearchParams): { value?: string; error?: string } {
	const values = query.getAll('filter');
	if (values.length === 0) return {};
	if (values.length > 1) return { error: 'filter must be given once' };
	return { value: values[0] };
}

function listJobs(ctx: NativeContext, req: NativeRequest): NativeResponse {
	const { value, error } = readFilter(req.query);
	if (error) return message(400, error);
	if (value !== undefined && value !== 'active' && value !== 'history') {
		return message(400, `unknown filter ${quote(value)} (allowed: active, history)`);
	}
	const statuses = ctx.store.listLazily(value as ListFilter | undefined);
	return { status: 200, contentType: JSON_TYPE, body: '', stream: () => jsonArray(statuses, LIST_MAX_BYTES) };
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

// The whole body of a response as one string (streamed lists included).
export function bodyText(r: NativeResponse): string {
	return r.stream ? [...r.stream()].join('') : r.body;
}

function jobStatus(ctx: NativeContext, req: NativeRequest): NativeResponse {
	const raw = (JOB_PATH.exec(req.path) as RegExpExecArray)[1];
	let id: string;
	try {
		id = decodeURIComponent(raw);
	} catch {
		return message(400, 'malformed job id');
	}
	const { value, error } = readFilter(req.query);
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

function navigate(ctx: NativeContext, req: NativeRequest): NativeResponse {
	const flowFileName = req.query.get('flowFileName');
	const runProfile = req.query.get('runProfile');
	const nodeId = req.query.get('nodeId');
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

const INTEGER_RE = /^[+-]?\d+$/;
const FLOAT_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function parameterValue(p: Record<string, unknown>, at: string): { value?: string; error?: string } {
	const v = p.value;
	if (v === undefined || v === null) return { error: `${at}.value is required` };
	if (p.type === 'string') {
		if (typeof v === 'string') return { value: v };
		if (typeof v === 'number' || typeof v === 'boolean') return { value: String(v) };
		return { error: `${at}.value must be a string` };
	}
	if (p.type === 'integer') {
		if (typeof v === 'number' && Number.isInteger(v)) return { value: String(v) };
		if (typeof v === 'string' && INTEGER_RE.test(v)) return { value: v };
		return { error: `${at}.value is not an integer` };
	}
	if (typeof v === 'number' && Number.isFinite(v)) return { value: String(v) };
	if (typeof v === 'string' && FLOAT_RE.test(v)) return { value: v };
	return { error: `${at}.value is not a float` };
}

// Stated limits of a submission (README, "Limits"): beyond them the answer is 400 naming the field, so no
// request can make a JobStatus (and a list of 100) grow without bound.
export const FIELD_LIMITS = {
	flowFileName: 1024,
	runProfileName: 256,
	parameters: 100,
	parameterName: 256,
	parameterValue: 8192,
	// Names and values of all parameters together, in characters.
	parametersTotal: 65_536,
} as const;

function tooLong(field: string, value: string, max: number): string | undefined {
	return value.length > max ? `${field} is longer than ${max} characters (${value.length})` : undefined;
}

type Valid<T> = { ok: T } | { error: string };

function validateFlow(ctx: NativeContext, b: Record<string, unknown>, flowRef: FlowRef): Valid<ResolvedFlow> {
	if (flowRef === 'flowId') {
		if (b.flowId === undefined || b.flowId === null || b.flowId === '') return { error: 'flowId is required' };
		if (typeof b.flowId !== 'string' || !isUuid(b.flowId)) return { error: 'flowId must be a UUID' };
		const flow = ctx.catalog.byFlowId(b.flowId);
		return flow ? { ok: flow } : { error: `unknown flowId ${quote(b.flowId)}` };
	}
	const name = b.flowFileName;
	if (name === undefined || name === null || name === '') return { error: 'flowFileName is required' };
	if (typeof name !== 'string') return { error: 'flowFileName must be a string' };
	if (name.trim() === '') return { error: 'flowFileName is required' };
	const long = tooLong('flowFileName', name, FIELD_LIMITS.flowFileName);
	if (long) return { error: long };
	const flow = ctx.catalog.byFileName(name);
	return flow ? { ok: flow } : { error: `unknown flow ${quote(name)}` };
}

function validateProfile(b: Record<string, unknown>, flow: ResolvedFlow): Valid<string> {
	const profile = b.runProfileName;
	if (profile === undefined || profile === null || profile === '') return { error: 'runProfileName is required' };
	if (typeof profile !== 'string') return { error: 'runProfileName must be a string' };
	if (profile.trim() === '') return { error: 'runProfileName is required' };
	const long = tooLong('runProfileName', profile, FIELD_LIMITS.runProfileName);
	if (long) return { error: long };
	if (flow.runProfiles && !flow.runProfiles.includes(profile)) {
		return { error: `runProfileName ${quote(profile)} is not a run profile of flow ${quote(flow.flowFileName)} (allowed: ${flow.runProfiles.join(', ')})` };
	}
	return { ok: profile };
}

function validateParameter(raw: unknown, at: string, seen: Set<string>): Valid<JobParameter> {
	if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { error: `${at} must be an object` };
	const q = raw as Record<string, unknown>;
	if (typeof q.name !== 'string' || q.name === '') return { error: `${at}.name is required` };
	const longName = tooLong(`${at}.name`, q.name, FIELD_LIMITS.parameterName);
	if (longName) return { error: longName };
	if (seen.has(q.name)) return { error: `duplicate parameter name ${quote(q.name)}` };
	seen.add(q.name);
	if (q.type !== 'string' && q.type !== 'integer' && q.type !== 'float') return { error: `${at}.type must be one of string, integer, float` };
	const { value, error } = parameterValue(q, at);
	if (error !== undefined) return { error };
	const longValue = tooLong(`${at}.value`, value as string, FIELD_LIMITS.parameterValue);
	if (longValue) return { error: longValue };
	return { ok: { name: q.name, type: q.type, value: value as string } };
}

function validateParameters(list: unknown): Valid<JobParameter[]> {
	if (list === undefined) return { ok: [] };
	if (!Array.isArray(list)) return { error: 'parameters must be an array' };
	if (list.length > FIELD_LIMITS.parameters) return { error: `parameters has ${list.length} items, at most ${FIELD_LIMITS.parameters} are allowed` };
	const parameters: JobParameter[] = [];
	const seen = new Set<string>();
	let total = 0;
	for (let i = 0; i < list.length; i++) {
		const p = validateParameter(list[i], `parameters[${i}]`, seen);
		if ('error' in p) return p;
		total += p.ok.name.length + p.ok.value.length;
		if (total > FIELD_LIMITS.parametersTotal) {
			return { error: `parameters: names and values together are longer than ${FIELD_LIMITS.parametersTotal} characters` };
		}
		parameters.push(p.ok);
	}
	return { ok: parameters };
}

function validateJobRequest(ctx: NativeContext, body: unknown, flowRef: FlowRef): Valid<SubmitInput> {
	if (typeof body !== 'object' || body === null || Array.isArray(body)) return { error: 'body must be a JSON object' };
	const b = body as Record<string, unknown>;
	const flow = validateFlow(ctx, b, flowRef);
	if ('error' in flow) return flow;
	const profile = validateProfile(b, flow.ok);
	if ('error' in profile) return profile;
	if (b.notificationEnabled !== undefined && typeof b.notificationEnabled !== 'boolean') return { error: 'notificationEnabled must be a boolean' };
	const parameters = validateParameters(b.parameters);
	if ('error' in parameters) return parameters;
	return { ok: { flow: flow.ok, runProfileName: profile.ok, notificationEnabled: b.notificationEnabled === true, parameters: parameters.ok } };
}

// What a failed write may tell a client: the error code (ENOSPC, EACCES), never the file's path.
function writeFailure(err: unknown): string {
	const code = (err as NodeJS.ErrnoException).code;
	return `could not save the job (${typeof code === 'string' ? code : 'write error'}); it was not accepted`;
}

// A job is shown to readers only once it is on disk: staged, written, then committed (or discarded).
async function submitJob(ctx: NativeContext, req: NativeRequest): Promise<NativeResponse> {
	let body: unknown;
	try {
		body = JSON.parse(req.body ?? '');
	} catch {
		return message(400, 'body is not valid JSON');
	}
	const valid = validateJobRequest(ctx, body, req.flowRef);
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
