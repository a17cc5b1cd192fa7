/**
 * Pure state of the Job Execution trigger: which job status changes to fire, and what to remember.
 *
 * Poll glue (one poll):
 *   const state = loadState(staticData.tracker);
 *   const ids = jobsToReadIndividually(state, active, history, maxReads); // read each; 400 -> notFound
 *   const { events, state: next } = computeEvents(state, { active, history, individual, notFound }, options);
 *   emit events; staticData.tracker = next;   // on any failed HTTP call: throw, store nothing
 *
 * Guarantee: exactly one event per (job, status) that the poller observes, across polls, restarts
 * (state round-tripped through JSON), failed polls and option changes. All jobs are tracked whatever
 * the filters, which only decide what is emitted, so changing them never replays old events.
 * Limits (the server lists at most 100 jobs per call and has no change feed):
 * - A job submitted and finished between two polls while more than 100 newer jobs finished is never on
 *   either capped list, so it cannot be seen. Poll more often than 100 job completions.
 * - A status held only between two polls is not observed; it is reported in `skippedStatuses`.
 * - A job the server reports unknown on 3 consecutive individual reads is forgotten; if it ever comes
 *   back it is handled like a job never seen, so its current status may fire a second time.
 * - Terminal jobs are remembered in a window of the most recent `terminalWindow` end times; a terminal
 *   job first seen with an end time at or before the evicted ones (`horizon`) is taken as already seen.
 *   This is safe while the history list is ordered by end time and the window is well above 100.
 * - Unknown status strings are kept: with an endTime they count as terminal, otherwise as active,
 *   ranked between QUEUED and RUNNING. Status never moves backwards (regressions are ignored).
 */

import { jobFilterMatcher, normalizeStatus, readableJobId, toMillis } from '../shared/jobVocabulary';

/** A job as the server returns it; only `id` and `executionStatus` are relied on. */
export type JobSnapshot = Record<string, unknown> & { id: string; executionStatus: string };

export interface TrackerOptions {
	/** Statuses that fire an event, or every change. An empty list fires nothing. */
	watch: 'anyChange' | string[];
	/** Exact-match emission filters; empty or missing means no filter. */
	flowName?: string;
	runProfileName?: string;
	/** 'now': the first poll only records; 'existing': it also emits every current matching job. */
	startFrom: 'now' | 'existing';
	/** How many recent terminal job ids to remember; keep it well above 100 (default 800, invalid = default). */
	terminalWindow?: number;
}

/** A job not yet terminal. */
export interface OpenEntry {
	/** Last seen status (normalised to upper case). */
	status: string;
	/** Value of `seq` when the job was last observed or read; the oldest are read individually first. */
	seen: number;
	/** Consecutive individual reads that returned "unknown job"; absent when 0. */
	misses?: number;
	/** First seen unfinished with a start older than the horizon: an ending older than the horizon fires nothing. */
	old?: true;
	/** Its status is unknown and came with an end time (ranked past RUNNING, before the known terminal ones). */
	ended?: true;
}

export interface TrackerState {
	version: 1;
	/** False until the first poll (the baseline) has been stored. */
	initialized: boolean;
	/** Number of stored polls; orders individual reads fairly. */
	seq: number;
	open: Record<string, OpenEntry>;
	/**
	 * Recent terminal jobs as [id, endTime in ms or null], oldest first. An array because rebuilding an
	 * object with hundreds of keys on every poll is far slower; the JSON is as small.
	 */
	done: Array<[string, number | null]>;
	/** Highest endTime evicted from `done`: a terminal job ending at or before it is old. */
	horizon: number | null;
}

export interface Observation {
	/** GET /jobs?filter=active (read first). */
	active: JobSnapshot[];
	/** GET /jobs?filter=history (read second). */
	history: JobSnapshot[];
	/** Jobs read one by one (read last). */
	individual: JobSnapshot[];
	/** Ids read one by one that the server answered as unknown (400). */
	notFound: string[];
}

export interface JobEvent {
	/** The job as last read from the server. */
	job: JobSnapshot;
	event: 'newJob' | 'statusChanged';
	/** Current status, normalised to upper case. */
	status: string;
	previousStatus: string | null;
	/** Canonical statuses passed between two polls (QUEUED -> COMPLETED skips RUNNING). */
	skippedStatuses: string[];
}

/** What the node reads after a poll, to log it; `open`, `done`, `evicted` and `ignoredOld` also serve the tests. */
export interface PollStats {
	/** Terminal jobs not tracked and ending at or before the horizon. */
	ignoredOld: number;
	/** Terminal ids evicted from the window. */
	evicted: number;
	open: number;
	done: number;
	/** Listed entries the tracker cannot follow (no usable id, not an object): skipped. */
	unreadable: number;
	/** Listed entries past MAX_LISTED_JOBS of their list: not read. */
	overflow: number;
	/** Unfinished jobs forgotten because more than MAX_OPEN_JOBS were tracked. */
	forgotten: number;
}

export const STATE_VERSION = 1;
/** 800 [UUID, 13-digit endTime] pairs take about 44 KB of JSON and cover 8 history pages. */
export const DEFAULT_TERMINAL_WINDOW = 800;
/** Consecutive "unknown job" reads before an open job is forgotten (one 400 may be a server error). */
export const MAX_MISSES = 3;
/** The service lists at most 100 jobs; a list longer than this is read only this far. */
export const MAX_LISTED_JOBS = 500;
/** Unfinished jobs tracked at most; past it the least recently seen are forgotten (bounded state). */
export const MAX_OPEN_JOBS = 1000;

const RANK_QUEUED = 0;
const RANK_UNKNOWN_ACTIVE = 1;
const RANK_RUNNING = 2;
/** An unknown status with an end time: past RUNNING, yet a known terminal status may still follow and fires. */
const RANK_UNKNOWN_ENDED = 3;
const RANK_TERMINAL = 4;
const KNOWN_RANKS: Record<string, number> = {
	QUEUED: RANK_QUEUED,
	RUNNING: RANK_RUNNING,
	CANCELLED: RANK_TERMINAL,
	ERROR: RANK_TERMINAL,
	COMPLETED: RANK_TERMINAL,
};
/** Canonical statuses that can be skipped, by rank (unknown and terminal statuses never are). */
const SKIPPABLE: Array<[number, string]> = [
	[RANK_QUEUED, 'QUEUED'],
	[RANK_RUNNING, 'RUNNING'],
];

export function emptyState(): TrackerState {
	return { version: STATE_VERSION, initialized: false, seq: 0, open: {}, done: [], horizon: null };
}

/**
 * Reads stored static data back into a state. Anything unrecognised yields an empty state (a new
 * baseline), and malformed entries are dropped rather than failing the poll.
 */
export function loadState(raw: unknown): TrackerState {
	if (!isObject(raw) || raw.version !== STATE_VERSION || !isObject(raw.open) || !Array.isArray(raw.done)) {
		return emptyState();
	}
	return {
		version: STATE_VERSION,
		initialized: raw.initialized === true,
		seq: finiteOr(raw.seq, 0),
		open: loadOpen(raw.open),
		done: loadDone(raw.done as unknown[]),
		horizon: typeof raw.horizon === 'number' && Number.isFinite(raw.horizon) ? raw.horizon : null,
	};
}

function loadOpen(raw: Record<string, unknown>): Record<string, OpenEntry> {
	const open: Record<string, OpenEntry> = {};
	for (const [id, entry] of Object.entries(raw)) {
		if (!isObject(entry) || typeof entry.status !== 'string' || readableJobId({ id }) === null) continue;
		const misses = typeof entry.misses === 'number' && entry.misses > 0 ? Math.floor(entry.misses) : 0;
		open[id] = openEntry(entry.status, finiteOr(entry.seen, 0), { old: entry.old === true, ended: entry.ended === true, misses });
	}
	return open;
}

function loadDone(raw: unknown[]): Array<[string, number | null]> {
	const done: Array<[string, number | null]> = [];
	for (const entry of raw) {
		if (!Array.isArray(entry) || typeof entry[0] !== 'string' || readableJobId({ id: entry[0] }) === null) continue;
		const endTime: unknown = entry[1];
		done.push([entry[0], typeof endTime === 'number' && Number.isFinite(endTime) ? endTime : null]);
	}
	return done.sort(oldestFirst);
}

/** An open entry with only the fields that carry something (the stored JSON stays small). */
function openEntry(status: string, seen: number, flags: { old?: boolean; ended?: boolean; misses?: number } = {}): OpenEntry {
	const entry: OpenEntry = { status, seen };
	if (flags.misses) entry.misses = flags.misses;
	if (flags.old) entry.old = true;
	if (flags.ended) entry.ended = true;
	return entry;
}

/** The rank of what an open entry last recorded. */
function entryRank(entry: OpenEntry): number {
	return entry.ended ? Math.max(RANK_UNKNOWN_ENDED, rankOf(entry.status, null)) : rankOf(entry.status, null);
}

function finiteOr(value: unknown, fallback: number): number {
	return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/**
 * Open jobs on neither list (pushed off by the 100-job caps), least recently observed first, at most
 * `maxReads`. Rotating by `seen` reaches every open job within ceil(open / maxReads) polls.
 */
export function jobsToReadIndividually(
	state: TrackerState,
	active: JobSnapshot[],
	history: JobSnapshot[],
	maxReads: number,
): string[] {
	const limit = Math.floor(maxReads);
	if (!(limit > 0)) return [];
	const listed = new Set<string>();
	for (const job of [...(active ?? []), ...(history ?? [])]) {
		const id = readableJobId(job);
		if (id !== null) listed.add(id);
	}
	return Object.entries(state.open)
		.filter(([id]) => !listed.has(id))
		.sort(([idA, a], [idB, b]) => a.seen - b.seen || compareStrings(idA, idB))
		.slice(0, limit)
		.map(([id]) => id);
}

/** One poll's working copy: Maps are cheap to change; the stored objects are rebuilt once at the end. */
interface PollWork {
	state: TrackerState;
	seq: number;
	open: Map<string, OpenEntry>;
	finished: Map<string, number | null>;
	doneIds: Set<string>;
	events: Array<{ event: JobEvent; key: number }>;
	matches: (seen: SeenJob) => boolean;
	stats: PollStats;
}

/**
 * Decides the events of one poll and the state to store after it, in steps: merge what the poll read, apply each
 * sighting, count misses, then bound the state (the terminal window, the open cap). Never mutates its inputs: when
 * the poll fails later, the previous state is still intact.
 */
export function computeEvents(
	state: TrackerState,
	observation: Partial<Observation>,
	options: TrackerOptions,
): { events: JobEvent[]; state: TrackerState; stats: PollStats } {
	const { merged, unreadable, overflow } = mergeObservation(observation);
	const work: PollWork = {
		state,
		seq: state.seq + 1,
		open: new Map<string, OpenEntry>(Object.entries(state.open)),
		finished: new Map<string, number | null>(),
		doneIds: new Set(state.done.map(([id]) => id)),
		events: [],
		matches: emissionFilter(options),
		stats: { ignoredOld: 0, evicted: 0, open: 0, done: 0, unreadable, overflow, forgotten: 0 },
	};
	for (const [id, seen] of merged) applySighting(work, id, seen, options);
	countMisses(work, observation.notFound ?? [], merged);
	const { done, horizon } = boundWindow(work, options);
	capOpen(work);
	work.stats.open = work.open.size;
	work.stats.done = done.length;
	work.events.sort((a, b) => a.key - b.key || compareStrings(a.event.job.id, b.event.job.id));
	return {
		events: work.events.map((e) => e.event),
		state: { version: STATE_VERSION, initialized: true, seq: work.seq, open: Object.fromEntries(work.open), done, horizon },
		stats: work.stats,
	};
}

function emit(work: PollWork, seen: SeenJob, event: JobEvent['event'], previousStatus: string | null, skipped: string[]): void {
	if (!work.matches(seen)) return;
	work.events.push({ event: { job: seen.job, event, status: seen.status, previousStatus, skippedStatuses: skipped }, key: seen.orderKey });
}

function record(work: PollWork, id: string, seen: SeenJob, old: boolean): void {
	if (seen.rank === RANK_TERMINAL) {
		work.open.delete(id);
		work.finished.set(id, seen.endTime);
	} else {
		work.open.set(id, openEntry(seen.status, work.seq, { old, ended: seen.rank === RANK_UNKNOWN_ENDED }));
	}
}

/** Ended at or before the horizon: older than every finished job the window still remembers. */
function endedBeforeWindow(work: PollWork, seen: SeenJob): boolean {
	const { horizon } = work.state;
	return seen.rank >= RANK_UNKNOWN_ENDED && horizon !== null && seen.endTime !== null && seen.endTime <= horizon;
}

/** An unfinished job first seen with a start older than the horizon may be a finished job come back. */
function startedBeforeWindow(work: PollWork, seen: SeenJob): boolean {
	const { horizon } = work.state;
	return seen.rank < RANK_UNKNOWN_ENDED && horizon !== null && seen.startTime !== null && seen.startTime <= horizon;
}

function applySighting(work: PollWork, id: string, seen: SeenJob, options: TrackerOptions): void {
	if (!work.state.initialized) {
		record(work, id, seen, false);
		if (options.startFrom === 'existing') emit(work, seen, 'newJob', null, []);
		return;
	}
	const tracked = work.open.get(id);
	if (tracked !== undefined) {
		const previousRank = entryRank(tracked);
		if (seen.rank <= previousRank) {
			// Same status or a regression: keep the furthest status, but the job is alive and was seen.
			work.open.set(id, openEntry(tracked.status, work.seq, { old: tracked.old, ended: tracked.ended }));
			return;
		}
		record(work, id, seen, tracked.old === true);
		// A finished job forgotten long ago that came back: its old ending is not news.
		if (tracked.old && endedBeforeWindow(work, seen)) return;
		emit(work, seen, 'statusChanged', tracked.status, skippedBetween(previousRank, seen.rank));
		return;
	}
	if (work.doneIds.has(id)) return;
	if (endedBeforeWindow(work, seen)) {
		work.stats.ignoredOld++;
		return;
	}
	record(work, id, seen, startedBeforeWindow(work, seen));
	emit(work, seen, 'newJob', null, []);
}

function countMisses(work: PollWork, notFound: unknown[], merged: Map<string, SeenJob>): void {
	for (const rawId of notFound) {
		const id = String(rawId);
		const tracked = work.open.get(id);
		// A job observed anywhere in this poll exists whatever its individual read said.
		if (tracked === undefined || merged.has(id)) continue;
		const misses = (tracked.misses ?? 0) + 1;
		if (misses >= MAX_MISSES) work.open.delete(id);
		else work.open.set(id, { ...tracked, seen: work.seq, misses });
	}
}

/** The window: keep the `terminalWindow` latest end times. Stored oldest first, so the sort is nearly linear. */
function boundWindow(work: PollWork, options: TrackerOptions): { done: Array<[string, number | null]>; horizon: number | null } {
	const window = Math.max(1, Math.floor(options.terminalWindow ?? DEFAULT_TERMINAL_WINDOW) || DEFAULT_TERMINAL_WINDOW);
	let { done, horizon } = work.state;
	if (work.finished.size === 0 && done.length <= window) return { done, horizon };
	done = done.concat([...work.finished]).sort(oldestFirst);
	const cut = Math.max(0, done.length - window);
	for (let i = 0; i < cut; i++) {
		const endTime = done[i][1];
		if (endTime !== null && (horizon === null || endTime > horizon)) horizon = endTime;
	}
	work.stats.evicted = cut;
	return { done: done.slice(cut), horizon };
}

/** At most MAX_OPEN_JOBS unfinished jobs: the least recently seen go (one that comes back counts as new). */
function capOpen(work: PollWork): void {
	const excess = work.open.size - MAX_OPEN_JOBS;
	if (excess <= 0) return;
	const oldest = [...work.open].sort(([idA, a], [idB, b]) => a.seen - b.seen || compareStrings(idA, idB)).slice(0, excess);
	for (const [id] of oldest) work.open.delete(id);
	work.stats.forgotten = excess;
}

export { normalizeStatus, toMillis };

interface SeenJob {
	job: JobSnapshot;
	status: string;
	rank: number;
	startTime: number | null;
	endTime: number | null;
	/** Event order: when the status was reached (endTime if ended, else startTime), unknown last. */
	orderKey: number;
}

function mergeObservation(observation: Partial<Observation>): { merged: Map<string, SeenJob>; unreadable: number; overflow: number } {
	const merged = new Map<string, SeenJob>();
	let unreadable = 0;
	let overflow = 0;
	// Read order: a later read wins over an earlier one of the same rank, a higher rank always wins.
	for (const list of [observation.active, observation.history, observation.individual]) {
		const jobs = Array.isArray(list) ? list : [];
		overflow += Math.max(0, jobs.length - MAX_LISTED_JOBS);
		for (const job of jobs.slice(0, MAX_LISTED_JOBS)) {
			const id = readableJobId(job);
			if (id === null) {
				unreadable++;
				continue;
			}
			const seen = sighting(job, id);
			const previous = merged.get(id);
			if (previous === undefined || previous.rank <= seen.rank) merged.set(id, seen);
		}
	}
	return { merged, unreadable, overflow };
}

function sighting(job: JobSnapshot, id: string): SeenJob {
	const status = normalizeStatus(job.executionStatus);
	const endTime = toMillis(job.endTime);
	const startTime = toMillis(job.startTime);
	const rank = rankOf(status, endTime);
	const reached = rank >= RANK_UNKNOWN_ENDED ? (endTime ?? startTime) : startTime;
	return {
		job: job.id === id ? job : { ...job, id },
		status,
		rank,
		startTime,
		endTime,
		orderKey: reached ?? Number.POSITIVE_INFINITY,
	};
}

function rankOf(status: string, endTime: number | null): number {
	const known = own(KNOWN_RANKS, status);
	if (known !== undefined) return known;
	return endTime !== null ? RANK_UNKNOWN_ENDED : RANK_UNKNOWN_ACTIVE;
}

function skippedBetween(fromRank: number, toRank: number): string[] {
	return SKIPPABLE.filter(([rank]) => rank > fromRank && rank < toRank).map(([, status]) => status);
}

/** Which jobs the options want to hear about: watched statuses and the vocabulary's filter match. */
export function emissionFilter(options: TrackerOptions): (seen: { job: Record<string, unknown> }) => boolean {
	const matchesFilter = jobFilterMatcher({ flowName: options.flowName, runProfileName: options.runProfileName });
	const watch = options.watch === 'anyChange' ? null : new Set((options.watch ?? []).map(normalizeStatus));
	return (seen) => (watch === null || watch.has(normalizeStatus(seen.job.executionStatus))) && matchesFilter(seen.job);
}

function oldestFirst([idA, a]: [string, number | null], [idB, b]: [string, number | null]): number {
	return compareEndTimes(a, b) || compareStrings(idA, idB);
}

/** Null end times sort first (evicted first) and never raise the horizon. */
function compareEndTimes(a: number | null, b: number | null): number {
	if (a === b) return 0;
	if (a === null) return -1;
	if (b === null) return 1;
	return a - b;
}

function compareStrings(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}

/** Own entries only: ids such as 'constructor' must not resolve to Object.prototype members. */
function own<T>(record: Record<string, T>, key: string): T | undefined {
	return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
