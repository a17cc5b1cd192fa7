// The flow catalog: which flows exist, how many steps they take, how they end.
import { createHash } from 'crypto';
import { readFileSync } from 'fs';
import { basename, extname } from 'path';

import defaultCatalogJson from './default-catalog.json';

export type Outcome = 'COMPLETED' | 'ERROR' | 'CANCELLED';
export const OUTCOMES: readonly Outcome[] = ['COMPLETED', 'ERROR', 'CANCELLED'];

export interface CatalogFlow {
	flowFileName: string;
	flowId?: string;
	flowName?: string;
	runProfiles?: string[];
	steps?: number;
	stepMs?: number;
	outcome?: Outcome;
	// Node names used in the log, in order (cycled when the flow has more nodes).
	nodes?: string[];
	// Reason written in the log of an ERROR or CANCELLED job.
	reason?: string;
}

export interface Catalog {
	flows: CatalogFlow[];
}

// A flow with every default filled in: what a job is built from.
export interface ResolvedFlow {
	flowFileName: string;
	flowId: string;
	flowName: string;
	runProfiles?: string[];
	steps: number;
	stepMs?: number;
	outcome: Outcome;
	nodes?: string[];
	reason?: string;
	known: boolean;
}

export const DEFAULT_STEPS = 3;
export const MAX_STEPS = 1000;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
	return UUID_RE.test(value);
}

// A stable UUID (v5 layout) from a text, so an unknown flow gets the same flowId on every run.
export function deriveUuid(text: string): string {
	const h = createHash('sha1').update(text).digest();
	h[6] = (h[6] & 0x0f) | 0x50;
	h[8] = (h[8] & 0x3f) | 0x80;
	const hex = h.subarray(0, 16).toString('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

// `/Shared/Flows/sales.flow` -> `sales`.
export function flowNameFromFile(flowFileName: string): string {
	const base = basename(flowFileName.replace(/\\/g, '/'));
	const ext = extname(base);
	const name = ext && ext !== base ? base.slice(0, -ext.length) : base;
	return name || flowFileName;
}

export class CatalogError extends Error {}

function fail(where: string, what: string): never {
	throw new CatalogError(`catalog: ${where} ${what}`);
}

function isNonEmptyString(v: unknown): v is string {
	return typeof v === 'string' && v.trim() !== '';
}

// Checks a parsed catalog and names the first bad field.
export function validateCatalog(input: unknown): Catalog {
	if (typeof input !== 'object' || input === null || Array.isArray(input)) fail('root', 'must be an object with a "flows" array');
	const flows = (input as { flows?: unknown }).flows;
	if (!Array.isArray(flows)) fail('flows', 'must be an array');
	const files = new Set<string>();
	const ids = new Set<string>();
	const out: CatalogFlow[] = [];
	flows.forEach((raw: unknown, i: number) => {
		const at = `flows[${i}]`;
		if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(at, 'must be an object');
		const f = raw as Record<string, unknown>;
		if (!isNonEmptyString(f.flowFileName)) fail(`${at}.flowFileName`, 'must be a non-empty string');
		if (files.has(f.flowFileName)) fail(`${at}.flowFileName`, `duplicates "${f.flowFileName}"`);
		files.add(f.flowFileName);
		const flow: CatalogFlow = { flowFileName: f.flowFileName };
		if (f.flowId !== undefined) {
			if (typeof f.flowId !== 'string' || !isUuid(f.flowId)) fail(`${at}.flowId`, 'must be a UUID');
			flow.flowId = f.flowId.toLowerCase();
		}
		const id = flow.flowId ?? deriveUuid(`flow:${flow.flowFileName}`);
		if (ids.has(id)) fail(`${at}.flowId`, `duplicates "${id}"`);
		ids.add(id);
		if (f.flowName !== undefined) {
			if (!isNonEmptyString(f.flowName)) fail(`${at}.flowName`, 'must be a non-empty string');
			flow.flowName = f.flowName;
		}
		if (f.runProfiles !== undefined) {
			if (!Array.isArray(f.runProfiles) || f.runProfiles.length === 0 || !f.runProfiles.every(isNonEmptyString)) {
				fail(`${at}.runProfiles`, 'must be a non-empty array of non-empty strings');
			}
			flow.runProfiles = [...(f.runProfiles as string[])];
		}
		if (f.steps !== undefined) {
			if (!Number.isInteger(f.steps) || (f.steps as number) < 1 || (f.steps as number) > MAX_STEPS) {
				fail(`${at}.steps`, `must be an integer between 1 and ${MAX_STEPS}`);
			}
			flow.steps = f.steps as number;
		}
		if (f.stepMs !== undefined) {
			if (!Number.isInteger(f.stepMs) || (f.stepMs as number) < 1) fail(`${at}.stepMs`, 'must be a positive integer');
			flow.stepMs = f.stepMs as number;
		}
		if (f.outcome !== undefined) {
			if (!OUTCOMES.includes(f.outcome as Outcome)) fail(`${at}.outcome`, `must be one of ${OUTCOMES.join(', ')}`);
			flow.outcome = f.outcome as Outcome;
		}
		if (f.nodes !== undefined) {
			if (!Array.isArray(f.nodes) || f.nodes.length === 0 || !f.nodes.every(isNonEmptyString)) {
				fail(`${at}.nodes`, 'must be a non-empty array of non-empty strings');
			}
			flow.nodes = [...(f.nodes as string[])];
		}
		if (f.reason !== undefined) {
			if (!isNonEmptyString(f.reason)) fail(`${at}.reason`, 'must be a non-empty string');
			flow.reason = f.reason;
		}
		out.push(flow);
	});
	return { flows: out };
}

export function loadCatalogFile(path: string): Catalog {
	let text: string;
	try {
		text = readFileSync(path, 'utf8');
	} catch (err) {
		throw new CatalogError(`catalog: cannot read ${path}: ${(err as Error).message}`);
	}
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch (err) {
		throw new CatalogError(`catalog: ${path} is not valid JSON: ${(err as Error).message}`);
	}
	try {
		return validateCatalog(parsed);
	} catch (err) {
		throw new CatalogError(`${(err as Error).message} (in ${path})`);
	}
}

export function defaultCatalog(): Catalog {
	return validateCatalog(defaultCatalogJson as unknown);
}

export class CatalogIndex {
	private readonly byFile = new Map<string, ResolvedFlow>();
	private readonly byId = new Map<string, ResolvedFlow>();

	constructor(
		readonly catalog: Catalog,
		readonly strict = false,
	) {
		for (const f of catalog.flows) {
			const flowId = (f.flowId ?? deriveUuid(`flow:${f.flowFileName}`)).toLowerCase();
			const resolved: ResolvedFlow = {
				flowFileName: f.flowFileName,
				flowId,
				flowName: f.flowName ?? flowNameFromFile(f.flowFileName),
				runProfiles: f.runProfiles,
				steps: f.steps ?? DEFAULT_STEPS,
				stepMs: f.stepMs,
				outcome: f.outcome ?? 'COMPLETED',
				nodes: f.nodes,
				reason: f.reason,
				known: true,
			};
			this.byFile.set(f.flowFileName, resolved);
			this.byId.set(flowId, resolved);
		}
	}

	get flows(): ResolvedFlow[] {
		return [...this.byFile.values()];
	}

	// Unknown files are accepted with defaults unless strict; undefined means "refuse".
	byFileName(flowFileName: string): ResolvedFlow | undefined {
		const known = this.byFile.get(flowFileName);
		if (known) return known;
		if (this.strict) return undefined;
		return {
			flowFileName,
			flowId: deriveUuid(`flow:${flowFileName}`),
			flowName: flowNameFromFile(flowFileName),
			steps: DEFAULT_STEPS,
			outcome: 'COMPLETED',
			known: false,
		};
	}

	byFlowId(flowId: string): ResolvedFlow | undefined {
		const id = flowId.toLowerCase();
		const known = this.byId.get(id);
		if (known) return known;
		if (this.strict) return undefined;
		const short = id.replace(/-/g, '').slice(0, 8);
		return {
			flowFileName: `/Shared/Flows/flow-${short}.flow`,
			flowId: id,
			flowName: `flow-${short}`,
			steps: DEFAULT_STEPS,
			outcome: 'COMPLETED',
			known: false,
		};
	}
}
