/**
 * Runs fuzz seeds: for each, the scenario's service on 127.0.0.1 in this process and the node in a child process
 * (heap cap, event-loop watchdog), then every invariant. The child runs the built nodes (dist/, as n8n loads them)
 * and the test kit's TypeScript through a small transpiling loader. A failing run prints its seed, the scenario and
 * the violations: `FUZZ_SEED=<n>` reruns exactly it.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { cpuMsOf } from '../processCpu';
import { anySecretShown } from './credentials';
import { checkInvariants, timeBoundMs } from './invariants';
import type { Observed, Violation } from './invariants';
import type { ChildMessage, ChildReport, ParentMessage } from './protocol';
import { HEAP_CAP_MB, HEARTBEAT_KILL_CPU_MS, HEARTBEAT_KILL_MS, RSS_CAP_MB } from './protocol';
import { describeScenario, scenarioFor } from './scenario';
import type { Scenario } from './scenario';
import { startFuzzService } from './service';
import type { FuzzService } from './service';

const ROOT = resolve(__dirname, '../..');
const CHILD = join(__dirname, 'child.ts');

/**
 * The child's loader: TypeScript of the test kit transpiled on load (as ts-jest does), and the nodes and credentials
 * taken from dist/ (run `npm run build` first), so the fuzzer runs the code n8n would load.
 */
const LOADER = `
const fs = require('fs'), path = require('path'), Module = require('module');
const root = ${JSON.stringify(ROOT)};
const shipped = [path.join(root, 'nodes') + path.sep, path.join(root, 'credentials') + path.sep];
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
	const base = parent && parent.filename && request.startsWith('.') ? path.resolve(path.dirname(parent.filename), request) : '';
	if (shipped.some((dir) => base.startsWith(dir))) {
		for (const source of [base + '.ts', path.join(base, 'index.ts')]) {
			if (!fs.existsSync(source)) continue;
			const built = path.join(root, 'dist', path.relative(root, source)).replace(/\\.ts$/, '.js');
			if (!fs.existsSync(built)) throw new Error('fuzz: ' + built + ' is missing: run npm run build first');
			return built;
		}
	}
	return resolveFilename.call(this, request, parent, ...rest);
};
// Transpiled once per source text, kept in the project's ignored .cache (nothing in /tmp): later children skip TypeScript.
const cacheDir = path.join(root, '.cache', 'fuzz-ts');
let ts;
require.extensions['.ts'] = (module, filename) => {
	const source = fs.readFileSync(filename, 'utf8');
	const cached = path.join(cacheDir, require('crypto').createHash('sha256').update(filename + '|' + source).digest('hex') + '.js');
	let output;
	try {
		output = fs.readFileSync(cached, 'utf8');
	} catch {
		ts = ts || require('typescript');
		const options = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, isolatedModules: true };
		output = ts.transpileModule(source, { compilerOptions: options, fileName: filename }).outputText;
		fs.mkdirSync(cacheDir, { recursive: true });
		fs.writeFileSync(cached + '.' + process.pid, output);
		fs.renameSync(cached + '.' + process.pid, cached);
	}
	module._compile(output, filename);
};
require(process.argv[1]);
`;

export interface SeedResult {
	seed: number;
	scenario: Scenario;
	violations: Violation[];
	report?: ChildReport;
	elapsedMs: number;
	requests: number;
}

/** Resident memory of a process from /proc (Linux); 0 elsewhere. */
function rssMb(pid: number): number {
	try {
		const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
		return match ? Math.round(Number(match[1]) / 1024) : 0;
	} catch {
		return 0;
	}
}

/** The first sane poll waits until every Retry-After the service sent has passed (the trigger may honour them). */
function retryAfterWaitMs(service: FuzzService): number {
	const until = Math.max(0, ...service.requests.filter((request) => request.retryAfterMs !== undefined).map((request) => request.at + Math.min(request.retryAfterMs as number, 10_000)));
	return Math.max(0, until - Date.now());
}

interface ChildWatch {
	observed: Partial<Observed> & { peakRssMb: number; longestSilenceMs: number; heldMs: number };
	stdout: string;
	stderr: string;
}

/** Starts the child and watches it: memory, heartbeat, time; answers its polls; resolves once it exited. */
function superviseChild(scenario: Scenario, service: FuzzService): Promise<ChildWatch> {
	const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_CAP_MB}`, '-e', LOADER, CHILD], {
		cwd: ROOT,
		stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
		env: { ...process.env, N8N_LOG_LEVEL: 'warn', NODE_OPTIONS: '' },
	});
	const watch: ChildWatch = { observed: { peakRssMb: 0, longestSilenceMs: 0, heldMs: 0 }, stdout: '', stderr: '' };
	const keep = (text: string, chunk: Buffer) => (text + chunk.toString()).slice(-20_000);
	child.stdout?.on('data', (chunk: Buffer) => (watch.stdout = keep(watch.stdout, chunk)));
	child.stderr?.on('data', (chunk: Buffer) => (watch.stderr = keep(watch.stderr, chunk)));
	let lastBeat = Date.now();
	let cpuAtBeat = 0;
	let started = 0;
	const kill = (reason: 'memory' | 'blocked' | 'time') => {
		if (watch.observed.killed) return;
		watch.observed.killed = reason;
		child.kill('SIGKILL');
	};
	const timer = setInterval(() => {
		const rss = rssMb(child.pid ?? 0);
		watch.observed.peakRssMb = Math.max(watch.observed.peakRssMb, rss);
		if (rss > RSS_CAP_MB) kill('memory');
		if (!started) return;
		const silence = Date.now() - lastBeat;
		watch.observed.longestSilenceMs = Math.max(watch.observed.longestSilenceMs, silence);
		if (silence > HEARTBEAT_KILL_MS && cpuMsOf(child.pid ?? 0, 0) - cpuAtBeat >= HEARTBEAT_KILL_CPU_MS) kill('blocked');
		if (Date.now() - started > timeBoundMs(scenario, watch.observed.heldMs, watch.observed.callMs) + 5000) kill('time');
	}, 50);
	const tell = (message: ParentMessage) => child.connected && child.send(message);
	child.on('message', (message: ChildMessage) => {
		lastBeat = Date.now();
		cpuAtBeat = cpuMsOf(child.pid ?? 0, 0);
		if (message.type === 'ready') {
			started = Date.now();
			tell({ type: 'run', scenario, url: service.url });
		} else if (message.type === 'poll') {
			const { poll } = message;
			void service.startPoll(poll).then(() => {
				const hold = poll === scenario.polls - scenario.sanePolls ? retryAfterWaitMs(service) : 0;
				watch.observed.heldMs += hold;
				setTimeout(() => tell({ type: 'go' }), hold);
			});
		} else if (message.type === 'limits') {
			watch.observed.callMs = message.callMs;
		} else if (message.type === 'done') {
			watch.observed.report = message.report;
		} else if (message.type === 'failed') {
			watch.observed.harnessError = message.message;
		}
	});
	return new Promise((resolveWatch) => {
		child.on('exit', (code, signal) => {
			clearInterval(timer);
			watch.observed.exit = { code, signal };
			resolveWatch(watch);
		});
	});
}

export async function runSeed(seed: number): Promise<SeedResult> {
	const scenario = scenarioFor(seed);
	const service = await startFuzzService(scenario);
	const started = Date.now();
	try {
		const watch = await superviseChild(scenario, service);
		const shown = anySecretShown(service.url);
		const console = `${watch.stdout}\n${watch.stderr}`;
		const observed: Observed = {
			...watch.observed,
			scenario,
			exit: watch.observed.exit ?? { code: null, signal: null },
			requests: service.requests,
			recorderRequests: service.recorder.requests.length,
			secretInConsole: shown(console),
			stderrTail: watch.stderr.slice(-2000),
			world: service.world ? { kinds: service.world.kinds, saneEnded: service.world.saneEnded() } : undefined,
			visible: service.visible,
		};
		return { seed, scenario, violations: checkInvariants(observed), report: watch.observed.report, elapsedMs: Date.now() - started, requests: service.requests.length };
	} finally {
		await service.close();
	}
}

/** Runs seeds, `concurrency` children at a time, in seed order of results. */
export async function runSeeds(seeds: number[], concurrency = 2, onResult?: (result: SeedResult) => void): Promise<SeedResult[]> {
	const results: SeedResult[] = new Array(seeds.length);
	let next = 0;
	const worker = async () => {
		while (next < seeds.length) {
			const index = next++;
			results[index] = await runSeed(seeds[index]);
			onResult?.(results[index]);
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, seeds.length) }, worker));
	return results;
}

/** One line of figures per run, for logs. */
export function summary(result: SeedResult): string {
	const { report, scenario } = result;
	const parts = [`seed ${result.seed} ${scenario.target}/${scenario.variant} [${scenario.classes.join('+')}]`, `${(result.elapsedMs / 1000).toFixed(1)} s`, `${result.requests} requests`];
	if (report) {
		parts.push(`block ${report.maxLagMs} ms (wall ${report.maxWallLagMs} ms)`, `rss ${report.peakRssMb} MiB`, `output ${report.output.items} items`);
		if (report.polls) {
			const events = report.polls.reduce((sum, poll) => sum + poll.events.length, 0);
			const failed = report.polls.filter((poll) => poll.error).length;
			const state = Math.max(...report.polls.map((poll) => poll.stateBytes));
			parts.push(`${report.polls.length} polls (${failed} failed), ${events} events, state ${(state / 1024).toFixed(1)} KiB`);
		}
	}
	parts.push(result.violations.length === 0 ? 'ok' : `violated ${[...new Set(result.violations.map((violation) => violation.invariant))].join(', ')}`);
	return parts.join(' · ');
}

/** What a failing seed prints: how to rerun it, what the service did, which invariants broke. */
export function reproduction(result: SeedResult, testFile = 'test/fuzz/fuzz.test.ts'): string {
	const lines = [
		`fuzz seed ${result.seed}: FUZZ_SEED=${result.seed} npx jest ${testFile}`,
		`  ${describeScenario(result.scenario)}`,
		...result.violations.map((violation) => `  violated ${violation.invariant}: ${violation.detail}`),
	];
	if (result.report?.error) lines.push(`  the run's error: ${result.report.error.split('\n')[0].slice(0, 300)}`);
	for (const poll of result.report?.polls ?? []) if (poll.error) lines.push(`  poll ${poll.poll} failed: ${poll.error.split('\n')[0].slice(0, 300)}`);
	return lines.join('\n');
}
