// Shared helpers of the reference server tests: a started server with a manual clock, an axios client
// that never throws on status, the field formats of the spec and a parser of docs/log-format.md.
import axios from 'axios';
import type { AxiosInstance } from 'axios';

import { ManualClock, startReferenceServer } from '../../server';
import type { ReferenceServer, ReferenceServerOptions } from '../../server';

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const MS_13 = /^\d{13}$/;
export const TIMESTAMP_TEXT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/;
export const RUNTIME_TEXT = /^\d+\.\d{3} seconds$/;
export const ELAPSED_TEXT = /^\d+:\d{2}:\d{2}$/;
export const STEP_ID = /^Step \d+$/;
export const STEP_RUNNING = /^Step (\d+) \((\d+) of (\d+) completed\)$/;
export const STEP_DONE = /^Step (\d+) \((\d+)\)$/;

export const FIELD_ORDER = [
	'id',
	'jobType',
	'flowName',
	'runProfileName',
	'jobName',
	'startTime',
	'endTime',
	'executionStatus',
	'log',
	'executionPerformanceReport',
	'error',
	'currentStepId',
	'currentStepDescription',
	'currentStepStartTime',
	'currentStepStatus',
	'runProfile',
	'runtimeFormatted',
	'startTimeFormatted',
	'endTimeFormatted',
	'currentStepElapsedTime',
];

// Test catalog: short steps so the arithmetic stays readable.
export const TEST_CATALOG = {
	flows: [
		{ flowFileName: '/Shared/Flows/sales.flow', flowId: '3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10', flowName: 'sales', runProfiles: ['default', 'nightly'], steps: 3, stepMs: 1000, outcome: 'COMPLETED' as const, nodes: ['Read orders', 'Filter (EU | US)', 'Write\\mart'] },
		{ flowFileName: '/Shared/Flows/broken.flow', flowId: 'c41d7a90-93e5-4f1b-8e26-7b0a5c6d9e12', steps: 2, stepMs: 500, outcome: 'ERROR' as const, reason: 'disk full' },
		{ flowFileName: '/Shared/Flows/stopped.flow', flowId: '5e9f0b23-7a18-4c6d-a3f4-2d8e1b6c0f95', steps: 4, stepMs: 250, outcome: 'CANCELLED' as const },
		{ flowFileName: '/Shared/Flows/<b>&"x".flow', flowId: '0b7c3d5e-1f2a-4a6b-9c8d-e4f5a6b7c8d9', steps: 1, stepMs: 100 },
	],
};

export const SALES = '/Shared/Flows/sales.flow';
export const SALES_ID = '3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10';
export const BROKEN = '/Shared/Flows/broken.flow';
export const STOPPED = '/Shared/Flows/stopped.flow';

export interface Harness {
	server: ReferenceServer;
	clock: ManualClock;
	http: AxiosInstance;
	relay: AxiosInstance;
}

export async function startHarness(options: ReferenceServerOptions = {}): Promise<Harness> {
	const clock = new ManualClock();
	const server = await startReferenceServer({ port: 0, clock, catalog: TEST_CATALOG, relayApiKey: 'relay-key-1', userApiKey: 'user-key-1', ...options });
	const http = axios.create({ baseURL: server.url, validateStatus: () => true });
	const relay = axios.create({
		baseURL: server.url,
		validateStatus: () => true,
		headers: { apiKey: server.relayApiKey, 'user-api-key': server.userApiKey, 'Content-Type': 'application/json' },
	});
	return { server, clock, http, relay };
}

export function jobBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
	return { flowFileName: SALES, runProfileName: 'default', notificationEnabled: false, parameters: [], ...overrides };
}

export async function submit(h: Harness, overrides: Record<string, unknown> = {}): Promise<{ status: number; jobId: string }> {
	const r = await h.http.post('/api/v1/jobs', jobBody(overrides));
	if (r.status !== 200 && r.status !== 202) throw new Error(`submit failed: ${r.status} ${JSON.stringify(r.data)}`);
	return { status: r.status, jobId: r.data.jobId };
}

// --- log grammar (docs/log-format.md) ---

export const ENTRY_RE = /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}) \[([^\]]+)\] ([A-Z]+) (.*)$/;
export const ROW_RE = /^ {2}\| (.*) \|$/;

export interface LogEntry {
	time: string;
	thread: string;
	level: string;
	message: string;
	table: string[][];
}

// Splits a table row on unescaped ` | ` and unescapes `\\`, `\|`, `\n`.
export function parseCells(inner: string): string[] {
	const cells: string[] = [];
	let cell = '';
	for (let i = 0; i < inner.length; i++) {
		const c = inner[i];
		if (c === '\\') {
			const n = inner[i + 1];
			if (n === '\\' || n === '|') cell += n;
			else if (n === 'n') cell += '\n';
			else throw new Error(`bad escape \\${n} in ${inner}`);
			i++;
		} else if (c === ' ' && inner.startsWith(' | ', i)) {
			cells.push(cell);
			cell = '';
			i += 2;
		} else if (c === '|') {
			throw new Error(`unescaped | in ${inner}`);
		} else {
			cell += c;
		}
	}
	cells.push(cell);
	return cells;
}

// Every line must be an entry or a table row of the entry above it.
export function parseLog(log: string): LogEntry[] {
	const entries: LogEntry[] = [];
	for (const line of log.split('\n')) {
		const e = ENTRY_RE.exec(line);
		if (e) {
			entries.push({ time: e[1], thread: e[2], level: e[3], message: e[4], table: [] });
			continue;
		}
		const r = ROW_RE.exec(line);
		if (r && entries.length > 0) {
			entries[entries.length - 1].table.push(parseCells(r[1]));
			continue;
		}
		throw new Error(`log line matches neither an entry nor a table row: ${JSON.stringify(line)}`);
	}
	return entries;
}

export function keyValues(message: string, prefix: string): Record<string, string> {
	expect(message.startsWith(prefix)).toBe(true);
	const out: Record<string, string> = {};
	for (const pair of message.slice(prefix.length).trim().split(', ')) {
		const eq = pair.indexOf('=');
		out[pair.slice(0, eq)] = pair.slice(eq + 1);
	}
	return out;
}
