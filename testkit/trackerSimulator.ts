/**
 * A simulated service for the trigger's pure tracker: jobs submitted, run and finished poll by poll, lists capped at
 * 100 (by end or start time), individual reads, transient failures, and the poll glue with restarts (the state only
 * exists as stored JSON between polls). An unbounded reference tracker is fed the same observations, so a test can
 * check that the bounded, restartable tracker emits exactly what the reference emits and that both agree with the
 * service's ground truth (`test/unit/jobStatusTracker.test.ts`, "randomized property test").
 */
import { computeEvents, jobsToReadIndividually, loadState, MAX_MISSES } from '../nodes/JobExecutionTrigger/jobStatusTracker';
import type { JobEvent, JobSnapshot, Observation, TrackerOptions } from '../nodes/JobExecutionTrigger/jobStatusTracker';
import { mulberry32 } from '../server/random';

const T0 = 1_763_700_000_000;
const TERMINAL = new Set(['COMPLETED', 'ERROR', 'CANCELLED']);

function uuid(n: number): string {
	return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** One line per event: id, kind, previous > current [skipped]. */
export function brief(events: JobEvent[]): string[] {
	return events.map(
		(e) => `${e.job.id}:${e.event}:${e.previousStatus ?? '-'}>${e.status}${e.skippedStatuses.length ? `[${e.skippedStatuses.join(',')}]` : ''}`,
	);
}

interface SimJob {
	id: string;
	status: string;
	flowName: string;
	runProfileName: string;
	created: number;
	startTime: number | null;
	endTime: number | null;
	path: string[];
	deleted: boolean;
}

export interface Scenario {
	name: string;
	seed: number;
	polls: number;
	/** Max submissions per server step, by poll index. */
	load: (poll: number) => number;
	seconds: boolean;
	historyBy: 'endTime' | 'startTime';
	terminalWindow?: number;
	maxReads: number;
	startFrom: 'now' | 'existing';
	/** Fixed options (ground-truth completeness is checked) or null (options change at random). */
	fixedWatch: TrackerOptions['watch'] | null;
	transient400: number;
}

const FAIL = new Error('simulated HTTP failure');
const STATUS_RANK: Record<string, number> = { QUEUED: 0, RUNNING: 2, COMPLETED: 3, ERROR: 3, CANCELLED: 3 };

class SimServer {
	now = T0;
	private nextId = 0;
	readonly jobs = new Map<string, SimJob>();
	private readonly live = new Set<SimJob>();
	private readonly finished: SimJob[] = [];

	constructor(
		private readonly rng: () => number,
		private readonly seconds: boolean,
		private readonly historyBy: 'endTime' | 'startTime',
	) {}

	advance(maxSubmit: number): void {
		this.now += 1 + Math.floor(this.rng() * 3000);
		for (const j of [...this.live]) {
			const r = this.rng();
			if (r < 0.002) {
				j.deleted = true;
				this.live.delete(j);
			} else if (j.status === 'QUEUED') {
				if (r < 0.35) this.move(j, 'RUNNING');
				else if (r < 0.38) this.move(j, 'CANCELLED');
			} else if (r < 0.25) this.move(j, 'COMPLETED');
			else if (r < 0.3) this.move(j, 'ERROR');
			else if (r < 0.32) this.move(j, 'CANCELLED');
		}
		const submissions = Math.floor(this.rng() * (maxSubmit + 1));
		for (let i = 0; i < submissions; i++) {
			const j: SimJob = {
				id: uuid(this.nextId++),
				status: 'QUEUED',
				flowName: this.rng() < 0.5 ? 'flowA' : 'flowB',
				runProfileName: this.rng() < 0.5 ? 'p1' : 'p2',
				created: this.nextId,
				startTime: null,
				endTime: null,
				path: ['QUEUED'],
				deleted: false,
			};
			this.jobs.set(j.id, j);
			this.live.add(j);
		}
	}

	private move(j: SimJob, status: string): void {
		j.status = status;
		j.path.push(status);
		if (status === 'RUNNING') j.startTime = this.now;
		if (TERMINAL.has(status)) {
			j.endTime = this.now;
			this.live.delete(j);
			this.finished.push(j);
		}
	}

	get liveCount(): number {
		return this.live.size;
	}

	active(): JobSnapshot[] {
		return [...this.live]
			.sort((a, b) => b.created - a.created)
			.slice(0, 100)
			.map((j) => this.snapshot(j));
	}

	history(): JobSnapshot[] {
		const recent = this.finished.slice(-1000).reverse();
		if (this.historyBy === 'startTime') {
			recent.sort((a, b) => (b.startTime ?? b.endTime ?? 0) - (a.startTime ?? a.endTime ?? 0) || b.created - a.created);
		}
		return recent.slice(0, 100).map((j) => this.snapshot(j));
	}

	read(id: string): JobSnapshot | null {
		const j = this.jobs.get(id);
		return j === undefined || j.deleted ? null : this.snapshot(j);
	}

	private snapshot(j: SimJob): JobSnapshot {
		const time = (t: number | null) => (t === null ? null : this.seconds ? Math.floor(t / 1000) : t);
		return {
			id: j.id,
			executionStatus: j.status,
			jobType: 'RUNPROFILE',
			flowName: j.flowName,
			runProfileName: j.runProfileName,
			startTime: time(j.startTime),
			endTime: time(j.endTime),
		};
	}
}

/** Obviously-correct tracker with unbounded memory, never restarted. */
class ReferenceTracker {
	private initialized = false;
	private readonly known = new Map<string, { rank: number; status: string; misses: number }>();
	readonly dropped = new Set<string>();
	readonly terminalAtBaseline = new Set<string>();

	apply(o: Observation, options: TrackerOptions): string[] {
		const merged = new Map<string, JobSnapshot>();
		for (const j of [...o.active, ...o.history, ...o.individual]) {
			const previous = merged.get(String(j.id));
			if (previous === undefined || STATUS_RANK[String(j.executionStatus)] >= STATUS_RANK[String(previous.executionStatus)]) merged.set(String(j.id), j);
		}
		const matches = (j: JobSnapshot) =>
			(options.watch === 'anyChange' || options.watch.includes(String(j.executionStatus))) &&
			(!options.flowName || j.flowName === options.flowName) &&
			(!options.runProfileName || j.runProfileName === options.runProfileName);
		const out: string[] = [];
		for (const [id, j] of merged) {
			const status = String(j.executionStatus);
			const rank = STATUS_RANK[status];
			const prev = this.known.get(id);
			if (!this.initialized) {
				this.known.set(id, { rank, status, misses: 0 });
				if (rank === 3) this.terminalAtBaseline.add(id);
				if (options.startFrom === 'existing' && matches(j)) out.push(`${id}:newJob:->${status}`);
			} else if (prev === undefined) {
				this.known.set(id, { rank, status, misses: 0 });
				if (matches(j)) out.push(`${id}:newJob:->${status}`);
			} else if (prev.rank < 3) {
				if (rank > prev.rank) {
					const skipped = prev.rank === 0 && rank === 3 ? '[RUNNING]' : '';
					if (matches(j)) out.push(`${id}:statusChanged:${prev.status}>${status}${skipped}`);
					this.known.set(id, { rank, status, misses: 0 });
				} else {
					prev.misses = 0;
				}
			}
		}
		for (const id of o.notFound) {
			const prev = this.known.get(id);
			if (prev === undefined || prev.rank === 3 || merged.has(id)) continue;
			if (++prev.misses >= MAX_MISSES) {
				this.known.delete(id);
				this.dropped.add(id);
			}
		}
		this.initialized = true;
		return out.sort();
	}
}

function randomOptions(rng: () => number, startFrom: TrackerOptions['startFrom'], terminalWindow?: number): TrackerOptions {
	const watches: Array<TrackerOptions['watch']> = ['anyChange', ['COMPLETED', 'ERROR', 'CANCELLED'], ['RUNNING'], ['QUEUED', 'COMPLETED'], ['ERROR']];
	const pick = <T>(items: T[]): T => items[Math.floor(rng() * items.length)];
	return { watch: pick(watches), flowName: pick(['', '', 'flowA']), runProfileName: pick(['', '', 'p2']), startFrom, terminalWindow };
}

export function runScenario(s: Scenario) {
	const rng = mulberry32(s.seed);
	const server = new SimServer(rng, s.seconds, s.historyBy);
	const reference = new ReferenceTracker();
	const fixed = s.fixedWatch !== null;
	let options: TrackerOptions = fixed
		? { watch: s.fixedWatch as TrackerOptions['watch'], startFrom: s.startFrom, terminalWindow: s.terminalWindow }
		: randomOptions(rng, s.startFrom, s.terminalWindow);
	let stored: unknown = undefined;
	const got: string[] = [];
	const want: string[] = [];
	const events: JobEvent[] = [];
	const observed = new Set<string>();
	let committed = 0;
	let failed = 0;
	let individualReads = 0;
	let maxSize = 0;
	let maxOpen = 0;
	for (let i = 0; i < 20; i++) server.advance(s.load(0));

	const poll = (index: number, mayFail: boolean) => {
		const fail = (p: number) => {
			if (mayFail && rng() < p) throw FAIL;
		};
		// A restart or re-activation: the state only exists as stored JSON.
		const state = loadState(stored === undefined ? undefined : JSON.parse(JSON.stringify(stored)));
		try {
			fail(0.04);
			const active = server.active();
			// The server moves on between the two list calls.
			if (rng() < 0.3) server.advance(s.load(index));
			fail(0.03);
			const history = server.history();
			const ids = jobsToReadIndividually(state, active, history, s.maxReads);
			const individual: JobSnapshot[] = [];
			const notFound: string[] = [];
			for (const id of ids) {
				fail(0.01);
				const read = rng() < s.transient400 ? null : server.read(id);
				if (read === null) notFound.push(id);
				else individual.push(read);
			}
			individualReads += ids.length;
			const observation = { active, history, individual, notFound };
			const result = computeEvents(state, observation, options);
			stored = JSON.parse(JSON.stringify(result.state));
			// Open jobs are as many as the server has unfinished; the rest of the state is bounded.
			maxSize = Math.max(maxSize, JSON.stringify({ ...result.state, open: {} }).length);
			maxOpen = Math.max(maxOpen, result.stats.open);
			committed++;
			events.push(...result.events);
			got.push(`#${committed}`, ...brief(result.events).sort());
			want.push(`#${committed}`, ...reference.apply(observation, options));
			for (const j of [...active, ...history, ...individual]) observed.add(String(j.id));
		} catch (error) {
			if (error !== FAIL) throw error;
			failed++;
		}
	};

	for (let p = 0; p < s.polls; p++) {
		const steps = Math.floor(rng() * 3);
		for (let i = 0; i < steps; i++) server.advance(s.load(p));
		if (!fixed && rng() < 0.08) options = randomOptions(rng, rng() < 0.5 ? 'now' : 'existing', s.terminalWindow);
		poll(p, true);
	}
	// Drain: no more submissions, every job finishes, polls stop failing.
	for (let p = 0; p < 400 && (server.liveCount > 0 || Object.keys(loadState(stored).open).length > 0); p++) {
		server.advance(0);
		poll(s.polls, false);
	}
	return { server, reference, got, want, events, observed, committed, failed, individualReads, maxSize, maxOpen, final: loadState(stored) };
}

