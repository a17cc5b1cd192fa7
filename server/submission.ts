// A submission's body, checked against the stated limits (README, "Limits") and resolved against the catalog:
// either the job to stage, or the one-line reason of a 400.
import type { CatalogIndex, ResolvedFlow } from './catalog';
import { isUuid } from './catalog';
import type { JobParameter, SubmitInput } from './jobTypes';
import { quote } from './responses';

// How the submission names its flow: natively by file, through the relay by id.
export type FlowRef = 'flowFileName' | 'flowId';

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

export type Valid<T> = { ok: T } | { error: string };

/** A required text field: present, a string, not blank, within its stated limit. */
function requiredText(field: 'flowFileName' | 'runProfileName', value: unknown): Valid<string> {
	if (value === undefined || value === null || value === '') return { error: `${field} is required` };
	if (typeof value !== 'string') return { error: `${field} must be a string` };
	if (value.trim() === '') return { error: `${field} is required` };
	const long = tooLong(field, value, FIELD_LIMITS[field]);
	return long ? { error: long } : { ok: value };
}

function validateFlow(catalog: CatalogIndex, b: Record<string, unknown>, flowRef: FlowRef): Valid<ResolvedFlow> {
	if (flowRef === 'flowId') {
		if (b.flowId === undefined || b.flowId === null || b.flowId === '') return { error: 'flowId is required' };
		if (typeof b.flowId !== 'string' || !isUuid(b.flowId)) return { error: 'flowId must be a UUID' };
		const flow = catalog.byFlowId(b.flowId);
		return flow ? { ok: flow } : { error: `unknown flowId ${quote(b.flowId)}` };
	}
	const text = requiredText('flowFileName', b.flowFileName);
	if ('error' in text) return text;
	const name = text.ok;
	const flow = catalog.byFileName(name);
	return flow ? { ok: flow } : { error: `unknown flow ${quote(name)}` };
}

function validateProfile(b: Record<string, unknown>, flow: ResolvedFlow): Valid<string> {
	const text = requiredText('runProfileName', b.runProfileName);
	if ('error' in text) return text;
	const profile = text.ok;
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

function validateJobRequest(catalog: CatalogIndex, body: unknown, flowRef: FlowRef): Valid<SubmitInput> {
	if (typeof body !== 'object' || body === null || Array.isArray(body)) return { error: 'body must be a JSON object' };
	const b = body as Record<string, unknown>;
	const flow = validateFlow(catalog, b, flowRef);
	if ('error' in flow) return flow;
	const profile = validateProfile(b, flow.ok);
	if ('error' in profile) return profile;
	if (b.notificationEnabled !== undefined && typeof b.notificationEnabled !== 'boolean') return { error: 'notificationEnabled must be a boolean' };
	const parameters = validateParameters(b.parameters);
	if ('error' in parameters) return parameters;
	return { ok: { flow: flow.ok, runProfileName: profile.ok, notificationEnabled: b.notificationEnabled === true, parameters: parameters.ok } };
}

// The body's JSON; a leading UTF-8 byte-order mark is dropped (some clients write one).
export function parseJobRequest(catalog: CatalogIndex, text: string | undefined, flowRef: FlowRef): Valid<SubmitInput> {
	let body: unknown;
	try {
		body = JSON.parse((text ?? '').replace(/^\uFEFF/, ''));
	} catch {
		return { error: 'body is not valid JSON' };
	}
	return validateJobRequest(catalog, body, flowRef);
}
