// The native routes, written once: the native HTTP layer and the relay adapter both call handleNative
// with a normalized request and send back its { status, contentType, body }.
import type { CatalogIndex, ResolvedFlow } from './catalog';
import { isUuid } from './catalog';
import type { JobParameter, JobStore, ListFilter } from './jobStore';

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
	return json(200, ctx.store.list(value as ListFilter | undefined));
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

interface ValidRequest {
	flow: ResolvedFlow;
	runProfileName: string;
	notificationEnabled: boolean;
	parameters: JobParameter[];
}

function validateJobRequest(ctx: NativeContext, body: unknown, flowRef: FlowRef): ValidRequest | string {
	if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body must be a JSON object';
	const b = body as Record<string, unknown>;
	let flow: ResolvedFlow | undefined;
	if (flowRef === 'flowFileName') {
		if (b.flowFileName === undefined || b.flowFileName === null || b.flowFileName === '') return 'flowFileName is required';
		if (typeof b.flowFileName !== 'string') return 'flowFileName must be a string';
		if (b.flowFileName.trim() === '') return 'flowFileName is required';
		flow = ctx.catalog.byFileName(b.flowFileName);
		if (!flow) return `unknown flow ${quote(b.flowFileName)}`;
	} else {
		if (b.flowId === undefined || b.flowId === null || b.flowId === '') return 'flowId is required';
		if (typeof b.flowId !== 'string' || !isUuid(b.flowId)) return 'flowId must be a UUID';
		flow = ctx.catalog.byFlowId(b.flowId);
		if (!flow) return `unknown flowId ${quote(b.flowId)}`;
	}
	if (b.runProfileName === undefined || b.runProfileName === null || b.runProfileName === '') return 'runProfileName is required';
	if (typeof b.runProfileName !== 'string') return 'runProfileName must be a string';
	if (b.runProfileName.trim() === '') return 'runProfileName is required';
	if (flow.runProfiles && !flow.runProfiles.includes(b.runProfileName)) {
		return `runProfileName ${quote(b.runProfileName)} is not a run profile of flow ${quote(flow.flowFileName)} (allowed: ${flow.runProfiles.join(', ')})`;
	}
	if (b.notificationEnabled !== undefined && typeof b.notificationEnabled !== 'boolean') return 'notificationEnabled must be a boolean';
	const parameters: JobParameter[] = [];
	if (b.parameters !== undefined) {
		if (!Array.isArray(b.parameters)) return 'parameters must be an array';
		const seen = new Set<string>();
		for (let i = 0; i < b.parameters.length; i++) {
			const at = `parameters[${i}]`;
			const p = b.parameters[i] as unknown;
			if (typeof p !== 'object' || p === null || Array.isArray(p)) return `${at} must be an object`;
			const q = p as Record<string, unknown>;
			if (typeof q.name !== 'string' || q.name === '') return `${at}.name is required`;
			if (seen.has(q.name)) return `duplicate parameter name ${quote(q.name)}`;
			seen.add(q.name);
			if (q.type !== 'string' && q.type !== 'integer' && q.type !== 'float') {
				return `${at}.type must be one of string, integer, float`;
			}
			const { value, error } = parameterValue(q, at);
			if (error) return error;
			parameters.push({ name: q.name, type: q.type, value: value as string });
		}
	}
	return {
		flow,
		runProfileName: b.runProfileName,
		notificationEnabled: b.notificationEnabled === true,
		parameters,
	};
}

async function submitJob(ctx: NativeContext, req: NativeRequest): Promise<NativeResponse> {
	let body: unknown;
	try {
		body = JSON.parse(req.body ?? '');
	} catch {
		return message(400, 'body is not valid JSON');
	}
	const valid = validateJobRequest(ctx, body, req.flowRef);
	if (typeof valid === 'string') return message(400, valid);
	const { job, started } = ctx.store.submit(valid);
	try {
		await ctx.persist();
	} catch (err) {
		// Not on disk, so not accepted: the job is withdrawn.
		ctx.store.remove(job.id);
		return message(400, `could not persist the job: ${(err as Error).message}`);
	}
	return json(started ? 200 : 202, { jobId: job.id });
}
