/**
 * Runs fuzz seeds: for each, the scenario's service on 127.0.0.1 in this process and the node in a child process
 * (heap cap, event-loop watchdog), then every invariant. A child serves a lane of seeds one after another (process
 * start, loading n8n and the warm-up are most of a short seed's cost), its garbage collected between them; each seed
 * keeps a watch of its own, and after a child is killed or dies the lane's next seed gets a new one. The child runs
 * the built nodes (dist/, as n8n loads them) and the test kit's TypeScript through a small transpiling loader. A
 * failing run prints its seed, the scenario and the violations: `FUZZ_SEED=<n>` reruns exactly it.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { cpuMsOf } from '../processCpu';
import { anySecretShown } from './credentials';
import { checkInvariants, timeBoundMs } from './invariants';
import type { Observed, Violation } from './invariants';
import type { ChildMessage, ChildReport, ParentMessage } from './protocol';
import { HEAP_CAP_MB, HEARTBEAT_KILL_CPU_MS, HEARTBEAT_KILL_MS, RSS_CAP_MB, SEED_END_MARK } from './protocol';
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
// The compiler is needed only while the kit loads: dropped, so that the first seed's collection frees it rather than
// a lane of seeds carrying it (~40 MiB of resident memory where the transpile cache was cold).
if (ts) {
	ts = undefined;
	const compiler = (id) => id.includes(path.sep + path.join('node_modules', 'typescript') + path.sep);
	for (const id of Object.keys(require.cache)) if (compiler(id)) delete require.cache[id];
	module.children = module.children.filter((child) => !compiler(child.id));
}
`;

export interface SeedResult {
	seed: number;
	scenario: Scenario;
	violations: Violation[];
	report?: ChildReport;
	elapsedMs: number;
	requests: number;
	/** Seeds the same child ran before this one, in order (none: a new child); what they left may show here. */
	after: number[];
	/** What the runner watched of the child during this seed alone. */
	watched: Pick<Observed, 'peakRssMb' | 'heldMs' | 'longestSilenceMs' | 'killed' | 'exit'>;
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

type StreamName = 'stdout' | 'stderr';
type Exit = Observed['exit'];

/** What hears a lane's child while a seed has it. */
interface SeedListener {
	message(message: ChildMessage): void;
	/** Console text of the child; gives back what comes past the seed's end mark (the next seed's). */
	output(name: StreamName, text: string): string;
	closed(exit: Exit): void;
}

const keep = (text: string) => text.slice(-20_000);

/**
 * One child process serving seeds one after another (started and warmed up once), and a new one after a child
 * ended. The seed that has it listens to it; console text coming between seeds waits for the next, and a child that
 * dies between seeds is the next seed's to report (it ran after the seeds that left something behind).
 */
class Lane {
	private child?: ChildProcess;
	private listener?: SeedListener;
	private idle = false;
	private ran: number[] = [];
	private diedIdle?: Exit;
	private readonly waiting: Record<StreamName, string> = { stdout: '', stderr: '' };

	get pid(): number {
		return this.child?.pid ?? 0;
	}

	/** Gives the child to a seed; returns the seeds it ran before (none for a new child). */
	attach(listener: SeedListener, seed: number): number[] {
		this.listener = listener;
		for (const name of ['stdout', 'stderr'] as const) this.waiting[name] = listener.output(name, this.waiting[name]);
		if (!this.child && !this.diedIdle) this.start();
		const before = this.ran;
		this.ran = [...before, seed];
		if (this.diedIdle) this.closed(this.diedIdle);
		// A child already warmed up and collected is ready at once: as if it said so now.
		else if (this.idle) listener.message({ type: 'ready' });
		this.idle = false;
		return before;
	}

	/** The seed is over, its child ready for the next. */
	release(): void {
		this.listener = undefined;
		this.idle = true;
	}

	send(message: ParentMessage): void {
		if (this.child?.connected) this.child.send(message);
	}

	kill(): void {
		this.child?.kill('SIGKILL');
	}

	/** Ends the lane's child (idle between seeds: nothing of a seed is lost). */
	async close(): Promise<void> {
		const child = this.child;
		this.listener = undefined;
		if (!child) return;
		const closed = new Promise((resolve) => child.once('close', resolve));
		child.kill('SIGKILL');
		await closed;
	}

	private start(): void {
		const child = spawn(process.execPath, ['--expose-gc', `--max-old-space-size=${HEAP_CAP_MB}`, '-e', LOADER, CHILD], {
			cwd: ROOT,
			stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
			env: { ...process.env, N8N_LOG_LEVEL: 'warn', NODE_OPTIONS: '' },
		});
		this.child = child;
		this.ran = [];
		child.stdout?.on('data', (chunk: Buffer) => this.output('stdout', chunk.toString()));
		child.stderr?.on('data', (chunk: Buffer) => this.output('stderr', chunk.toString()));
		child.on('message', (message: ChildMessage) => this.listener?.message(message));
		// 'close', not 'exit': by then the console has been read whole.
		child.on('close', (code, signal) => {
			if (this.child === child) this.closed({ code, signal });
		});
	}

	private output(name: StreamName, text: string): void {
		this.waiting[name] = keep(this.waiting[name] + (this.listener ? this.listener.output(name, text) : text));
	}

	private closed(exit: Exit): void {
		this.child = undefined;
		this.idle = false;
		this.diedIdle = this.listener ? undefined : exit;
		const listener = this.listener;
		this.listener = undefined;
		listener?.closed(exit);
	}
}

/**
 * One seed's watch over its lane's child, all its own: memory, heartbeat, time bound, the polls' protocol, the
 * console. It ends when the child, done and collected, is ready for another seed (the seed survived: exit code 0),
 * or when the child ended.
 */
class SeedWatch implements SeedListener {
	readonly watch: ChildWatch = { observed: { peakRssMb: 0, longestSilenceMs: 0, heldMs: 0 }, stdout: '', stderr: '' };
	readonly ended: Promise<ChildWatch>;
	readonly after: number[];
	private lastBeat = Date.now();
	private cpuAtBeat = 0;
	private started = 0;
	private over = false;
	private readonly ready = { message: false, stdout: false, stderr: false };
	private readonly timer = setInterval(() => this.tick(), 50);
	private resolveWatch: (watch: ChildWatch) => void = () => undefined;

	constructor(
		private readonly lane: Lane,
		private readonly scenario: Scenario,
		private readonly service: FuzzService,
	) {
		this.ended = new Promise((resolve) => (this.resolveWatch = resolve));
		this.after = lane.attach(this, scenario.seed);
		this.sampleRss();
	}

	message(message: ChildMessage): void {
		const { observed } = this.watch;
		this.lastBeat = Date.now();
		this.cpuAtBeat = cpuMsOf(this.lane.pid, 0);
		if (message.type === 'ready' && !this.started) {
			this.started = Date.now();
			this.tell({ type: 'run', scenario: this.scenario, url: this.service.url });
		} else if (message.type === 'ready') {
			this.ready.message = true;
			this.endIfReady();
		} else if (message.type === 'poll') {
			this.answerPoll(message.poll);
		} else if (message.type === 'limits') {
			observed.callMs = message.callMs;
		} else if (message.type === 'done') {
			observed.report = message.report;
		} else if (message.type === 'failed') {
			observed.harnessError = message.message;
		}
	}

	output(name: StreamName, text: string): string {
		if (this.ready[name]) return text;
		const held = this.watch[name];
		const all = held + text;
		const at = all.indexOf(SEED_END_MARK, Math.max(0, held.length - SEED_END_MARK.length));
		this.watch[name] = keep(at === -1 ? all : all.slice(0, at));
		if (at === -1) return '';
		this.ready[name] = true;
		this.endIfReady();
		return all.slice(at + SEED_END_MARK.length);
	}

	closed(exit: Exit): void {
		this.end(exit);
	}

	private answerPoll(poll: number): void {
		void this.service.startPoll(poll).then(() => {
			const hold = poll === this.scenario.polls - this.scenario.sanePolls ? retryAfterWaitMs(this.service) : 0;
			this.watch.observed.heldMs += hold;
			setTimeout(() => this.tell({ type: 'go' }), hold);
		});
	}

	/** Samples the child's resident memory (at the seed's start and end too: a reused child's seed may take under 50 ms). */
	private sampleRss(): number {
		const rss = rssMb(this.lane.pid);
		this.watch.observed.peakRssMb = Math.max(this.watch.observed.peakRssMb, rss);
		return rss;
	}

	private tick(): void {
		const { observed } = this.watch;
		const pid = this.lane.pid;
		if (this.sampleRss() > RSS_CAP_MB) this.kill('memory');
		if (!this.started) return;
		const silence = Date.now() - this.lastBeat;
		observed.longestSilenceMs = Math.max(observed.longestSilenceMs, silence);
		if (silence > HEARTBEAT_KILL_MS && cpuMsOf(pid, 0) - this.cpuAtBeat >= HEARTBEAT_KILL_CPU_MS) this.kill('blocked');
		// Until the child is ready again: collecting the run's garbage is part of it (and a child that never says so ends).
		if (Date.now() - this.started > timeBoundMs(this.scenario, observed.heldMs, observed.callMs) + 5000) this.kill('time');
	}

	private kill(reason: 'memory' | 'blocked' | 'time'): void {
		if (this.watch.observed.killed || this.over) return;
		this.watch.observed.killed = reason;
		this.lane.kill();
	}

	private tell(message: ParentMessage): void {
		if (!this.over) this.lane.send(message);
	}

	/** Reported, collected, and the console read up to the child's mark: the seed survived, its child lives on. */
	private endIfReady(): void {
		if (!this.watch.observed.report || !this.ready.message || !this.ready.stdout || !this.ready.stderr) return;
		this.sampleRss();
		this.lane.release();
		this.end({ code: 0, signal: null });
	}

	private end(exit: Exit): void {
		if (this.over) return;
		this.over = true;
		clearInterval(this.timer);
		this.watch.observed.exit = exit;
		this.resolveWatch(this.watch);
	}
}

async function runOnLane(lane: Lane, scenario: Scenario): Promise<SeedResult> {
	const service = await startFuzzService(scenario);
	const started = Date.now();
	try {
		const seedWatch = new SeedWatch(lane, scenario, service);
		const watch = await seedWatch.ended;
		const shown = anySecretShown(service.url);
		const console = `${watch.stdout}\n${watch.stderr}`;
		const exit = watch.observed.exit ?? { code: null, signal: null };
		const observed: Observed = {
			...watch.observed,
			scenario,
			exit,
			requests: service.requests,
			recorderRequests: service.recorder.requests.length,
			secretInConsole: shown(console),
			stderrTail: watch.stderr.slice(-2000),
			world: service.world ? { kinds: service.world.kinds, saneEnded: service.world.saneEnded() } : undefined,
			visible: service.visible,
		};
		const { peakRssMb, heldMs, longestSilenceMs, killed, report } = observed;
		const violations = checkInvariants(observed);
		const watched = { peakRssMb, heldMs, longestSilenceMs, killed, exit };
		return { seed: scenario.seed, scenario, violations, report, elapsedMs: Date.now() - started, requests: service.requests.length, after: seedWatch.after, watched };
	} finally {
		await service.close();
	}
}

/**
 * Runs scenarios on `concurrency` lanes, each a child process serving one scenario after another; results in the
 * scenarios' order. (runSeeds for seeds; the runner's own test passes scenarios with a drill.)
 */
export async function runScenarios(scenarios: Scenario[], concurrency = 2, onResult?: (result: SeedResult) => void): Promise<SeedResult[]> {
	const results: SeedResult[] = new Array(scenarios.length);
	let next = 0;
	const serveLane = async () => {
		const lane = new Lane();
		try {
			while (next < scenarios.length) {
				const index = next++;
				results[index] = await runOnLane(lane, scenarios[index]);
				onResult?.(results[index]);
			}
		} finally {
			await lane.close();
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, scenarios.length) }, serveLane));
	return results;
}

/** Runs seeds on `concurrency` lanes (child processes, each serving seeds in turn), in seed order of results. */
export async function runSeeds(seeds: number[], concurrency = 2, onResult?: (result: SeedResult) => void): Promise<SeedResult[]> {
	return await runScenarios(seeds.map(scenarioFor), concurrency, onResult);
}

/** One seed in a child of its own. */
export async function runSeed(seed: number): Promise<SeedResult> {
	return (await runSeeds([seed], 1))[0];
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
	// State a seed left in the child is a finding too: the same sequence in one lane reruns it.
	if (result.after.length > 0) lines.push(`  ran after seeds ${result.after.join(', ')} in the same child: if it passes alone, FUZZ_SEED=${[...result.after, result.seed].join(',')} FUZZ_LANES=1 npx jest ${testFile}`);
	if (result.report?.error) lines.push(`  the run's error: ${result.report.error.split('\n')[0].slice(0, 300)}`);
	for (const poll of result.report?.polls ?? []) if (poll.error) lines.push(`  poll ${poll.poll} failed: ${poll.error.split('\n')[0].slice(0, 300)}`);
	return lines.join('\n');
}
