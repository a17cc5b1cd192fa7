/**
 * A fuzz child (started by runner.ts with a heap cap): warms up once, then runs one scenario after another, each
 * through n8n's real engine as one process runs many executions, watching its own event loop and reporting over IPC
 * only what the invariants need (never the output itself, which may be too big or too deep to send): sizes, depth,
 * events, state size, where a secret was seen, the error's redacted text. Between scenarios it collects its garbage.
 */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import * as transport from '../../nodes/shared/transport';
import { runActionNode } from '../engine';
import type { CredentialsMap } from '../engine';
import { searchList } from '../listSearch';
import { keepLoopBusy } from '../busyLoop';
import { watchCpuBlocks } from '../cpuBlocks';
import { createPoller } from '../poller';
import { runAgentWithTool } from '../toolAgent';
import { FUZZ_JOB_ID, saneJob } from './bodies';
import { allSecretForms, anySecretShown, credentialsFor } from './credentials';
import { testCredential } from './credentialTest';
import type { ChildMessage, ChildReport, OutputFigures, ParentMessage, PollReport } from './protocol';
import { DEFAULT_CALL_MS, limitsFor, OUTPUT_SCAN_LIMIT_BYTES, SEED_END_MARK } from './protocol';
import type { Scenario } from './scenario';
import { triggerShape } from './scenario';

export function parametersFor(scenario: Scenario): INodeParameters {
	const relay = scenario.variant === 'relay';
	const authentication = relay ? 'jobExecutionRelayApi' : 'jobExecutionApi';
	const flow = relay ? { flowId: '3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10' } : { flowFileName: '/Shared/Flows/sales.flow' };
	const jobId = { __rl: true, mode: 'id', value: FUZZ_JOB_ID };
	// Version 2: the log also goes out as a file, and a quarter of the seeds (those on 2.1) take the simplified summary.
	const v2 = scenario.typeVersion >= 2;
	const options = v2 ? { parseLog: scenario.parseLog, logAsFile: true } : { parseLog: scenario.parseLog };
	const shape = v2 ? { simplify: scenario.seed % 4 === 1 } : {};
	const { pollInterval, timeout } = scenario.wait ?? { pollInterval: 1, timeout: 3 };
	// 2.1 holds the same Timeout as an amount and a unit.
	const waitSettings: INodeParameters = scenario.typeVersion === 2.1 ? { pollInterval, timeoutAfter: { values: { amount: timeout, unit: 'seconds' } } } : { pollInterval, timeout };
	const byTarget: Record<Scenario['target'], INodeParameters> = {
		submit: { resource: 'job', operation: 'submit', ...flow, runProfileName: 'default' },
		submitAndWait: { resource: 'job', operation: 'submit', ...flow, runProfileName: 'default', waitForCompletion: true, waitSettings, options },
		get: { resource: 'job', operation: 'get', jobId, options: { ...options, statusOnly: scenario.statusOnly } },
		getMany: { resource: 'job', operation: 'getMany', returnAll: true, options },
		wait: { resource: 'job', operation: 'waitForCompletion', jobId, waitSettings, options },
		navigationUrl: { resource: 'flow', operation: 'getNavigationUrl', flowFileName: '/Shared/Flows/sales.flow', runProfile: 'default' },
		trigger: { options },
		listSearch: {},
		credentialTest: {},
	};
	return { authentication, ...byTarget[scenario.target], ...(['trigger', 'listSearch', 'credentialTest'].includes(scenario.target) ? {} : shape) };
}

/** Walks a value without recursion (it may be 200,000 levels deep), measuring it and looking for secrets. */
export function measure(value: unknown, shown: (text: string) => boolean): OutputFigures & { secret: boolean } {
	const figures = { items: Array.isArray(value) ? value.length : 1, bytes: 0, maxDepth: 0, serialisable: true, scanned: true, secret: false };
	const stack: Array<[unknown, number]> = [[value, 0]];
	const seen = new Set<object>();
	const visit = (text: string) => {
		figures.bytes += text.length;
		if (figures.bytes > OUTPUT_SCAN_LIMIT_BYTES) return;
		if (!figures.secret && shown(text)) figures.secret = true;
	};
	while (stack.length > 0) {
		const [current, depth] = stack.pop() as [unknown, number];
		figures.maxDepth = Math.max(figures.maxDepth, depth);
		if (figures.bytes > OUTPUT_SCAN_LIMIT_BYTES) {
			figures.scanned = false;
			break;
		}
		if (typeof current === 'string') visit(current);
		// A number is read as its text: a digits-only key echoed as a JSON number shows there.
		else if (typeof current === 'number') visit(String(current));
		else if (typeof current === 'boolean') figures.bytes += 8;
		else if (current && typeof current === 'object' && !seen.has(current)) {
			seen.add(current);
			for (const [key, child] of Object.entries(current)) {
				visit(key);
				stack.push([child, depth + 1]);
			}
		}
	}
	if (figures.scanned) {
		try {
			JSON.stringify(value);
		} catch {
			figures.serialisable = false;
		}
	}
	return figures;
}

function errorText(error: unknown): string {
	if (!error || typeof error !== 'object') return error === undefined ? '' : String(error);
	const record = error as Error & IDataObject;
	let own = '';
	try {
		own = JSON.stringify(record, Object.getOwnPropertyNames(record));
	} catch {
		own = String(record.message);
	}
	let cause = '';
	try {
		cause = JSON.stringify(record.cause ?? null);
	} catch {
		cause = '';
	}
	return [record.message, String(record.description ?? ''), own, String(record.stack ?? ''), cause].join('\n');
}

function redactForReport(text: string, forms: string[]): string {
	let shown = text.slice(0, 2000);
	for (const form of forms) shown = shown.split(form).join('***');
	return shown;
}

class Probe {
	readonly logs: string[] = [];
	readonly secretsFound = new Set<string>();
	peakRss = 0;
	/** Runs the probe's own work outside the node's event-loop blocks (set once the watch starts). */
	aside: <T>(work: () => T) => T = (work) => work();

	constructor(
		readonly forms: string[],
		readonly shown: (text: string) => boolean,
	) {}

	check(where: string, text: string): void {
		if (this.aside(() => this.shown(text))) this.secretsFound.add(where);
	}

	/** n8n's logger, as the nodes reach it: every line is checked for secrets and counted. */
	watchLogger(): void {
		const logger = Container.get(Logger);
		for (const level of ['error', 'warn', 'info', 'debug']) {
			// Levels below N8N_LOG_LEVEL are fixed no-ops (Logger.setLevel): they print nothing, so there is nothing to watch.
			if (Object.getOwnPropertyDescriptor(logger, level)?.configurable === false) continue;
			const value = (message: unknown, meta?: unknown) => {
				const line = `${level}: ${String(message)} ${meta === undefined ? '' : safeJson(meta)}`;
				this.check('n8n log', line);
				if (this.logs.length < 200) this.logs.push(line.slice(0, 300));
			};
			Object.defineProperty(logger, level, { value, configurable: true, writable: true });
		}
	}
}

function safeJson(value: unknown): string {
	try {
		return JSON.stringify(value);
	} catch {
		return '[unserialisable]';
	}
}

const parentMessages: Array<(message: ParentMessage) => void> = [];
function send(message: ChildMessage): void {
	process.send?.(message);
}
function nextGo(): Promise<void> {
	return new Promise((resolve) => parentMessages.push((message) => message.type === 'go' && resolve()));
}

/** The worst of two measurements: what the output bound is checked against. */
function worse(a: OutputFigures & { secret: boolean }, b: OutputFigures & { secret: boolean }): OutputFigures & { secret: boolean } {
	return {
		items: Math.max(a.items, b.items),
		bytes: Math.max(a.bytes, b.bytes),
		maxDepth: Math.max(a.maxDepth, b.maxDepth),
		serialisable: a.serialisable && b.serialisable,
		scanned: a.scanned && b.scanned,
		secret: a.secret || b.secret,
	};
}

/** The trigger over the scenario's polls; each poll's emitted items are one output, measured on its own. */
async function runTrigger(scenario: Scenario, credentials: CredentialsMap, probe: Probe): Promise<Outcome> {
	const shape = triggerShape(scenario.seed);
	const poller = createPoller({ ...parametersFor(scenario), ...shape.parameters }, credentials, { typeVersion: shape.typeVersion });
	const polls: PollReport[] = [];
	let figures = measure([], probe.shown);
	for (let poll = 0; poll < scenario.polls; poll++) {
		send({ type: 'poll', poll });
		await nextGo();
		const started = Date.now();
		const report: PollReport = { poll, ms: 0, events: [], stateBytes: 0 };
		try {
			const items = (await poller.poll()) ?? [];
			figures = worse(figures, probe.aside(() => measure(items.map((item) => item.json), probe.shown)));
			for (const item of items.slice(0, 5000)) {
				// Version 2 names the job `jobId` (its simplified items have no `id`).
				report.events.push([String(item.json.jobId ?? item.json.id).slice(0, 300), String(item.json.executionStatus).slice(0, 40)]);
			}
		} catch (error) {
			probe.check('trigger error', errorText(error));
			report.error = redactForReport(String((error as Error)?.message ?? error), probe.forms);
		}
		report.ms = Date.now() - started;
		const state = JSON.stringify(poller.storedState());
		probe.check('trigger state', state);
		report.stateBytes = Buffer.byteLength(state);
		polls.push(report);
	}
	return { figures, polls };
}

interface Outcome {
	/** Measured output (the trigger measures each poll's own). */
	figures?: OutputFigures & { secret: boolean };
	output?: unknown;
	error?: unknown;
	polls?: PollReport[];
}

async function runTarget(scenario: Scenario, url: string, probe: Probe): Promise<Outcome> {
	const credentials = credentialsFor(url)[scenario.variant];
	if (scenario.target === 'trigger') return await runTrigger(scenario, credentials, probe);
	if (scenario.target === 'listSearch') {
		try {
			return { output: await searchList('searchJobs', parametersFor(scenario), credentials) };
		} catch (error) {
			return { output: null, error };
		}
	}
	if (scenario.target === 'credentialTest') {
		const type = scenario.variant === 'relay' ? 'jobExecutionRelayApi' : 'jobExecutionApi';
		try {
			return { output: await testCredential(type, credentials[type]) };
		} catch (error) {
			return { output: null, error };
		}
	}
	if (scenario.tool) {
		// One agent call of the node's tool variant: n8n-core's makeHandleToolInvocation runs the tries.
		const calls = [[{}]];
		const [outcome] = await runAgentWithTool({ credentials, parameters: parametersFor(scenario), calls, retryOnFail: true, maxTries: scenario.tool.maxTries, waitBetweenTries: 0 });
		return { output: outcome, error: outcome?.error };
	}
	const result = await runActionNode({ credentials, parameters: parametersFor(scenario), typeVersion: scenario.typeVersion });
	// A log given as a file is output too: its text is checked like the JSON (no secret, bounded).
	const files = result.items.flatMap((item) => Object.values(item.binary ?? {}).map((file) => Buffer.from(file.data, 'base64').toString('utf8')));
	return { output: files.length > 0 ? [...result.json, { files }] : result.json, error: result.error };
}

async function run(scenario: Scenario, url: string): Promise<ChildReport> {
	const probe = new Probe(allSecretForms(url), anySecretShown(url));
	probe.watchLogger();
	// Shorter wall-clock limits, through the knob the transport keeps for tests, so that drips end in seconds.
	const timing = (transport as { transportTiming?: { attemptMs: number; callMs: number } }).transportTiming;
	if (timing) Object.assign(timing, limitsFor(scenario));
	// Without the knob the transport keeps its own 60 s call limit: the runner's bounds follow what is in effect.
	send({ type: 'limits', callMs: timing?.callMs ?? DEFAULT_CALL_MS });
	const lag = monitorEventLoopDelay({ resolution: 10 });
	lag.enable();
	const blocks = watchCpuBlocks();
	probe.aside = blocks.aside;
	const started = Date.now();
	// Other work of n8n keeps the loop busy: only the wall ceilings end what the service holds.
	const busy = scenario.busyLoop ? keepLoopBusy() : undefined;
	const outcome = await runTarget(scenario, url, probe).finally(() => busy?.stop());
	const elapsedMs = Date.now() - started;
	lag.disable();
	const longestBlockMs = blocks.stop();
	const figures = outcome.figures ?? measure(outcome.output, probe.shown);
	if (figures.secret) probe.secretsFound.add('output');
	const error = outcome.error === undefined ? undefined : errorText(outcome.error);
	if (error) probe.check('error', error);
	probe.peakRss = Math.max(probe.peakRss, process.memoryUsage().rss);
	return {
		elapsedMs,
		maxLagMs: Math.round(longestBlockMs),
		maxWallLagMs: Math.round(lag.max / 1e6),
		peakRssMb: Math.round(probe.peakRss / 2 ** 20),
		output: { items: figures.items, bytes: figures.bytes, maxDepth: figures.maxDepth, serialisable: figures.serialisable, scanned: figures.scanned },
		error: error === undefined ? undefined : redactForReport(String((outcome.error as Error)?.message ?? outcome.error), probe.forms),
		secretsFound: [...probe.secretsFound],
		polls: outcome.polls,
		resultStatus: scenario.target === 'credentialTest' ? String((outcome.output as { status?: unknown } | null)?.status) : undefined,
		logLines: probe.logs.length,
		logSample: probe.logs.slice(0, 5).map((line) => redactForReport(line, probe.forms)),
	};
}

/**
 * One sane pass over every target against a server in this process, before the watch starts: n8n loads modules
 * and compiles on first use, which would count as the first run's event-loop block.
 */
async function warmUp(): Promise<void> {
	const job = JSON.stringify(saneJob(FUZZ_JOB_ID, 'COMPLETED', { start: 1, end: 2 }));
	const server = createServer((request, response) => {
		const list = (request.url ?? '').includes('filter=') || (request.url ?? '').endsWith('/jobs');
		response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(list ? `[${job}]` : job));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	const warm: Scenario = { seed: 0, target: 'get', variant: 'bearer', classes: [], faults: [], world: [], polls: 2, sanePolls: 2, parseLog: true, statusOnly: false, runningReads: 0, typeVersion: 1 };
	const credentials = credentialsFor(url).bearer;
	await runActionNode({ credentials, parameters: parametersFor(warm) });
	const poller = createPoller(parametersFor({ ...warm, target: 'trigger' }), credentials);
	await poller.poll().catch(() => null);
	await poller.poll().catch(() => null);
	await searchList('searchJobs', parametersFor({ ...warm, target: 'listSearch' }), credentials).catch(() => null);
	await testCredential('jobExecutionApi', credentials.jobExecutionApi).catch(() => null);
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * The runner's own tests (the lanes tests of test/fuzz/fuzz.test.ts): a run that dies, that passes the memory cap,
 * or that leaves ~250 MiB of garbage in the heap (and in serve, one that shows a key on the console).
 */
async function drill(kind: Scenario['drill']): Promise<void> {
	if (kind === 'crash') process.exit(3);
	if (kind === 'garbage') Array.from({ length: 3200 }, (_, n) => new Array<number>(10_000).fill(n + 0.5));
	if (kind !== 'overMemory') return;
	const held: Buffer[] = [];
	// Up to 2 GiB, in steps the runner's 50 ms samples see; it kills the child at RSS_CAP_MB.
	for (let step = 0; step < 32; step++) {
		held.push(Buffer.alloc(64 * 2 ** 20, 1));
		await new Promise((resolve) => setTimeout(resolve, 60));
	}
}

/** Collects what the run left (twice: the first pass runs finalizers that free more), a turn between. */
async function collect(): Promise<void> {
	for (let pass = 0; pass < 2; pass++) {
		globalThis.gc?.();
		await new Promise((resolve) => setImmediate(resolve));
	}
}

/** One scenario; then, freed of it, ready for the next. A harness failure ends the child: nothing of it is reused. */
async function serve(scenario: Scenario, url: string): Promise<void> {
	let report: ChildReport;
	try {
		await drill(scenario.drill);
		report = await run(scenario, url);
	} catch (error) {
		process.send?.({ type: 'failed', message: String((error as Error)?.stack ?? error).slice(0, 2000) } satisfies ChildMessage, () => process.exit(0));
		return;
	}
	send({ type: 'done', report });
	await collect();
	// A key shown after the report, right before the mark, is still this seed's console (drilled).
	if (scenario.drill === 'keyOnConsole') console.error(String(credentialsFor(url).bearer.jobExecutionApi.token));
	// Console output is in the pipes before the mark (writes to pipes are synchronous): the runner reads up to it.
	process.stdout.write(SEED_END_MARK);
	process.stderr.write(SEED_END_MARK);
	send({ type: 'ready' });
}

function main(): void {
	// A heartbeat: a parent that hears nothing for a while knows the event loop is blocked.
	setInterval(() => send({ type: 'beat', rss: process.memoryUsage().rss }), 100);
	// The runner gone (done with the lane, or itself ended): nothing more to serve.
	process.on('disconnect', () => process.exit(0));
	process.on('message', (message: ParentMessage) => {
		for (const listener of parentMessages.splice(0)) listener(message);
		if (message.type === 'run') void serve(message.scenario, message.url);
	});
	warmUp().then(
		() => send({ type: 'ready' }),
		(error: unknown) => process.send?.({ type: 'failed', message: `warm-up: ${String((error as Error)?.stack ?? error).slice(0, 2000)}` } satisfies ChildMessage, () => process.exit(0)),
	);
}

main();
