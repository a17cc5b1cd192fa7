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

export interface PollStats {
	/** Distinct jobs in the observation. */
	observed: number;
	newJobs: number;
	statusChanges: number;
	/** Events that passed the watch and filters. */
	emitted: number;
	/** Terminal jobs not tracked and ending at or before the horizon. */
	ignoredOld: number;
	/** Open jobs forgotten after 3 consecutive "unknown job" reads. */
	dropped: number;
	/** Terminal ids evicted from the window. */
	evicted: number;
	open: number;
	done: number;
}

export const STATE_VERSION = 1;
/** 800 [UUID, 13-digit endTime] pairs take about 44 KB of JSON and cover 8 history pages. */
export const DEFAULT_TERMINAL_WINDOW = 800;
/** Consecutive "unknown job" reads before an open job is forgotten (one 400 may be a server error). */
export const MAX_MISSES = 3;
export const TERMINAL_STATUSES = ['CANCELLED', 'ERROR', 'COMPLETED'];

const RANK_QUEUED = 0;
const RANK_UNKNOWN_ACTIVE = 1;
const RANK_RUNNING = 2;
const RANK_TERMINAL = 3;
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
	const open: Record<string, OpenEntry> = {};
	for (const [id, entry] of Object.entries(raw.open)) {
		if (!isObject(entry) || typeof entry.status !== 'string' || !isValidId(id)) continue;
		const seen = typeof entry.seen === 'number' && Number.isFinite(entry.seen) ? entry.seen : 0;
		const misses = typeof entry.misses === 'number' && entry.misses > 0 ? Math.floor(entry.misses) : 0;
		open[id] = misses > 0 ? { status: entry.status, seen, misses } : { status: entry.status, seen };
	}
	const done: Array<[string, number | null]> = [];
	for (const entry of raw.done as unknown[]) {
		if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !isValidId(entry[0])) continue;
		const endTime: unknown = entry[1];
		done.push([entry[0], typeof endTime === 'number' && Number.isFinite(endTime) ? endTime : null]);
	}
	done.sort(oldestFirst);
	return {
		version: STATE_VERSION,
		initialized: raw.initialized === true,
		seq: typeof raw.seq === 'number' && Number.isFinite(raw.seq) ? raw.seq : 0,
		open,
		done,
		horizon: typeof raw.horizon === 'number' && Number.isFinite(raw.horizon) ? raw.horizon : null,
	};
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
		const id = jobId(job);
		if (id !== null) listed.add(id);
	}
	return Object.entries(state.open)
		.filter(([id]) => !listed.has(id))
		.sort(([idA, a], [idB, b]) => a.seen - b.seen || compareStrings(idA, idB))
		.slice(0, limit)
		.map(([id]) => id);
}

/**
 * Decides the events of one poll and the state to store after it. Never mutates its inputs: when the
 * poll fails later, the previous state is still intact.
 */
export function computeEvents(
	state: TrackerState,
	observation: Partial<Observation>,
	options: TrackerOptions,
): { events: JobEvent[]; state: TrackerState; stats: PollStats } {
	const matches = emissionFilter(options);
	const window = Math.max(1, Math.floor(options.terminalWindow ?? DEFAULT_TERMINAL_WINDOW) || DEFAULT_TERMINAL_WINDOW);
	const merged = mergeObservation(observation);
	const seq = state.seq + 1;
	// Work on copies held in Maps (cheap to change); the stored objects are rebuilt once at the end.
	const open = new Map<string, OpenEntry>(Object.entries(state.open));
	const finished = new Map<string, number | null>();
	const doneIds = new Set(state.done.map(([id]) => id));
	const stats: PollStats = {
		observed: merged.size,
		newJobs: 0,
		statusChanges: 0,
		emitted: 0,
		ignoredOld: 0,
		dropped: 0,
		evicted: 0,
		open: 0,
		done: 0,
	};
	const events: Array<{ event: JobEvent; key: number }> = [];
	const emit = (seen: SeenJob, event: JobEvent['event'], previousStatus: string | null, skipped: string[]) => {
		if (!matches(seen)) return;
		stats.emitted++;
		events.push({
			event: { job: seen.job, event, status: seen.status, previousStatus, skippedStatuses: skipped },
			key: seen.orderKey,
		});
	};
	const record = (id: string, seen: SeenJob) => {
		if (seen.rank === RANK_TERMINAL) {
			open.delete(id);
			finished.set(id, seen.endTime);
		} else {
			open.set(id, { status: seen.status, seen: seq });
		}
	};

	for (const [id, seen] of merged) {
		if (!state.initialized) {
			record(id, seen);
			if (options.startFrom === 'existing') emit(seen, 'newJob', null, []);
			continue;
		}
		const tracked = open.get(id);
		if (tracked !== undefined) {
			const previousRank = rankOf(tracked.status, null);
			if (seen.rank > previousRank) {
				stats.statusChanges++;
				record(id, seen);
				emit(seen, 'statusChanged', tracked.status, skippedBetween(previousRank, seen.rank));
			} else {
				// Same status or a regression: keep the furthest status, but the job is alive and was seen.
				open.set(id, { status: tracked.status, seen: seq });
			}
			continue;
		}
		if (doneIds.has(id)) continue;
		if (seen.rank === RANK_TERMINAL && state.horizon !== null && seen.endTime !== null && seen.endTime <= state.horizon) {
			stats.ignoredOld++;
			continue;
		}
		stats.newJobs++;
		record(id, seen);
		emit(seen, 'newJob', null, []);
	}

	for (const rawId of observation.notFound ?? []) {
		const id = String(rawId);
		const tracked = open.get(id);
		// A job observed anywhere in this poll exists whatever its individual read said.
		if (tracked === undefined || merged.has(id)) continue;
		const misses = (tracked.misses ?? 0) + 1;
		if (misses >= MAX_MISSES) {
			open.delete(id);
			stats.dropped++;
		} else {
			open.set(id, { status: tracked.status, seen: seq, misses });
		}
	}

	// The window: keep the `window` latest end times. Stored oldest first, so the sort is nearly linear.
	let done = state.done;
	let horizon = state.horizon;
	if (finished.size > 0 || done.length > window) {
		done = done.concat([...finished]).sort(oldestFirst);
		const cut = Math.max(0, done.length - window);
		for (let i = 0; i < cut; i++) {
			const endTime = done[i][1];
			if (endTime !== null && (horizon === null || endTime > horizon)) horizon = endTime;
		}
		stats.evicted = cut;
		done = done.slice(cut);
	}

	stats.open = open.size;
	stats.done = done.length;
	events.sort((a, b) => a.key - b.key || compareStrings(a.event.job.id, b.event.job.id));
	return {
		events: events.map((e) => e.event),
		state: { version: STATE_VERSION, initialized: true, seq, open: Object.fromEntries(open), done, horizon },
		stats,
	};
}

/** Converts a timestamp to ms: numbers (or numeric strings) below 1e12 are taken as seconds. */
export function toMillis(value: unknown): number | null {
	const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
	if (!Number.isFinite(n)) return null;
	return Math.abs(n) < 1e12 ? n * 1000 : n;
}

/** Upper-cased, trimmed status; non-strings become ''. */
export function normalizeStatus(value: unknown): string {
	return typeof value === 'string' ? value.trim().toUpperCase() : '';
}

interface SeenJob {
	job: JobSnapshot;
	status: string;
	rank: number;
	endTime: number | null;
	/** Event order: when the status was reached (endTime if terminal, else startTime), unknown last. */
	orderKey: number;
}

function mergeObservation(observation: Partial<Observation>): Map<string, SeenJob> {
	const merged = new Map<string, SeenJob>();
	// Read order: a later read wins over an earlier one of the same rank, a higher rank always wins.
	for (const list of [observation.active, observation.history, observation.individual]) {
		for (const job of list ?? []) {
			const id = jobId(job);
			if (id === null) continue;
			const status = normalizeStatus(job.executionStatus);
			const endTime = toMillis(job.endTime);
			const rank = rankOf(status, endTime);
			const previous = merged.get(id);
			if (previous !== undefined && previous.rank > rank) continue;
			const startTime = toMillis(job.startTime);
			const reached = rank === RANK_TERMINAL ? (endTime ?? startTime) : startTime;
			merged.set(id, {
				job: job.id === id ? job : { ...job, id },
				status,
				rank,
				endTime,
				orderKey: reached ?? Number.POSITIVE_INFINITY,
			});
		}
	}
	return merged;
}

function rankOf(status: string, endTime: number | null): number {
	const known = own(KNOWN_RANKS, status);
	if (known !== undefined) return known;
	return endTime !== null ? RANK_TERMINAL : RANK_UNKNOWN_ACTIVE;
}

function skippedBetween(fromRank: number, toRank: number): string[] {
	return SKIPPABLE.filter(([rank]) => rank > fromRank && rank < toRank).map(([, status]) => status);
}

function emissionFilter(options: TrackerOptions): (seen: SeenJob) => boolean {
	const watch = options.watch === 'anyChange' ? null : new Set((options.watch ?? []).map(normalizeStatus));
	const flowName = options.flowName ?? '';
	const runProfileName = options.runProfileName ?? '';
	return (seen) =>
		(watch === null || watch.has(seen.status)) &&
		(flowName === '' || seen.job.flowName === flowName) &&
		(runProfileName === '' || seen.job.runProfileName === runProfileName);
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

function jobId(job: unknown): string | null {
	if (!isObject(job)) return null;
	const id = typeof job.id === 'number' && Number.isFinite(job.id) ? String(job.id) : job.id;
	return typeof id === 'string' && isValidId(id) ? id : null;
}

/** Ids are used as keys of plain objects; '__proto__' would not be stored as a key. */
function isValidId(id: string): boolean {
	return id !== '' && id !== '__proto__';
}

/** Own entries only: ids such as 'constructor' must not resolve to Object.prototype members. */
function own<T>(record: Record<string, T>, key: string): T | undefined {
	return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
