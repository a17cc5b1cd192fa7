/**
 * Pure state of the Job Execution trigger: which job status changes to fire, and what to remember.
 *
 * Poll glue (one poll):
 *   const state = loadState(staticData.tracker);
 *   const ids = jobsToReadIndividually(state, active, history, maxReads); // read each: ok, notFound or failed
 *   const { events, state: next, stats } = computeEvents(state, { active, history, individual, notFound, failed, now }, options);
 *   emit events; staticData.tracker = next;   // a failed list call throws and stores nothing
 *
 * Guarantee: exactly one event per (job, status) that the poller observes, across polls, restarts
 * (state round-tripped through JSON), failed polls and option changes. All jobs are tracked whatever
 * the filters, which only decide what is emitted, so changing them never replays old events.
 * Nothing the service sends decides for other jobs: finished jobs are remembered in the order the trigger
 * saw them finish (its poll sequence), never by the service's end times; statuses are clamped and long ids
 * hashed in what is stored, and the stored state stays under MAX_STATE_BYTES whatever the lists hold.
 * Limits (the server lists at most 100 jobs per call and has no change feed):
 * - A job submitted and finished between two polls while more than 100 newer jobs finished is never on
 *   either capped list, so it cannot be seen; `stats.gap` says when that may have happened.
 * - A status held only between two polls is not observed; it is reported in `skippedStatuses`.
 * - A tracked job whose individual read fails (unknown, refused, any error) is read again with backoff and
 *   given up after MAX_MISSES failed reads; if it ever comes back it is handled like a job never seen.
 * - Finished jobs are remembered in a window of the `terminalWindow` most recently seen; one that is still
 *   listed is seen again every poll, so only a job off both lists for that long is forgotten.
 * - Unknown status strings are kept: with an endTime they count as terminal, otherwise as active,
 *   ranked between QUEUED and RUNNING. Status never moves backwards (regressions are ignored).
 */

import { jobFilterMatcher, normalizeStatus, readableJobId, toMillis } from '../shared/jobVocabulary';

/** A job entry as the service sent it: nothing in it is promised; `readableJobId` and `normalizeStatus` read its id and status. */
export type JobSnapshot = Record<string, unknown>;

/** A listed job whose id the trigger read (`readableJobId`): that id is the one field it promises. */
export type TrackedJob = JobSnapshot & { id: string };

export interface TrackerOptions {
	/** Statuses that fire an event, or every change. An empty list fires nothing. */
	watch: 'anyChange' | string[];
	/** Exact-match emission filters; empty or missing means no filter. */
	flowName?: string;
	runProfileName?: string;
	/** 'now': the first poll only records; 'existing': it also emits every current matching job. */
	startFrom: 'now' | 'existing';
	/** How many finished jobs to remember; keep it well above 100 (default 800, invalid = default). */
	terminalWindow?: number;
}

/** A job not yet terminal. A type, not an interface, so that the state is n8n static data (IDataObject) as it is. */
export type OpenEntry = {
	/** Last seen status (normalised to upper case, at most MAX_STATUS_LENGTH characters). */
	status: string;
	/** Value of `seq` when the job was last observed or read; the oldest are read individually first. */
	seen: number;
	/** Consecutive individual reads that failed (unknown job, refused, any error); absent when 0. */
	misses?: number;
	/** After a failed read: not read again before the poll of this `seq` (backoff). */
	retryAt?: number;
	/** Its status is unknown and came with an end time (ranked past RUNNING, before the known terminal ones). */
	ended?: true;
};

/** The stored state: plain JSON data, so it goes into n8n's static data with no cast. */
export type TrackerState = {
	version: 2;
	/** False until the first poll (the baseline) has been stored. */
	initialized: boolean;
	/** Number of stored polls: the trigger's own clock, which orders everything it remembers. */
	seq: number;
	open: Record<string, OpenEntry>;
	/**
	 * Finished jobs as [key, seq of the poll that last saw them finished], in that order (oldest first). The key is
	 * the id, or a hash of it for long or unusual ids (`doneKey`). An array: the JSON is small and cheap to rebuild.
	 */
	done: Array<[string, number]>;
	/** The trigger's clock (epoch ms) at the last stored poll: the start of a possible gap's window. */
	polledAt: number | null;
	/**
	 * Finished jobs evicted from `done`, as 12-hex-digit hashes of their keys, newest last (at most MAX_GONE): one the
	 * service lists again, even as running, is not news. Absent when empty.
	 */
	gone?: string;
};

export interface Observation {
	/** GET /jobs?filter=active (read first). */
	active: JobSnapshot[];
	/** GET /jobs?filter=history (read second). */
	history: JobSnapshot[];
	/** Jobs read one by one (read last). */
	individual: JobSnapshot[];
	/** Ids read one by one that the service answered as unknown or refused (a 4xx): a miss. */
	notFound: string[];
	/** Ids read one by one whose read failed otherwise (5xx, 429, timeout, unreadable answer): a miss too. */
	failed?: string[];
	/** The trigger's clock at this poll (epoch ms), for the gap window. */
	now?: number;
}

export interface JobEvent {
	/** The job as last read from the server, with its readable id. */
	job: TrackedJob;
	event: 'newJob' | 'statusChanged';
	/** Current status, normalised to upper case. */
	status: string;
	previousStatus: string | null;
	/** Canonical statuses passed between two polls (QUEUED -> COMPLETED skips RUNNING). */
	skippedStatuses: string[];
}

/** A full list none of whose jobs the trigger knew: jobs past the list's end may never have been listed. */
export interface PossibleGap {
	/** Which list was full. */
	list: 'active' | 'history';
	/** The trigger's clock at the previous stored poll and at this one (epoch ms); `from` is null if unknown. */
	from: number | null;
	to: number;
	/** Estimated jobs hidden (from the listed jobs' rate), null when the service's times cannot tell. */
	mayBeHidden: number | null;
}

/** What the node reads after a poll, to log it; the counts also serve the tests. */
export interface PollStats {
	/** Finished ids evicted from the window (oldest seen first). */
	evicted: number;
	open: number;
	done: number;
	/** Listed entries the tracker cannot follow (no usable id, not an object): skipped. */
	unreadable: number;
	/** Listed entries past MAX_LISTED_JOBS of their list: not read. */
	overflow: number;
	/** Unfinished jobs forgotten because more than MAX_OPEN_JOBS were tracked or the state reached its bound. */
	forgotten: number;
	/** Tracked jobs whose individual read failed in this poll and will be read again later. */
	retrying: string[];
	/** Tracked jobs given up in this poll after MAX_MISSES failed reads. */
	givenUp: string[];
	/** Set when the service's capped lists may have hidden jobs since the previous poll. */
	gap: PossibleGap | null;
	/** Bytes of the stored state's JSON (UTF-8). */
	bytes: number;
}

export const STATE_VERSION = 2;
/** 800 [UUID, seq] pairs take about 38 KB of JSON and cover 8 history pages. */
export const DEFAULT_TERMINAL_WINDOW = 800;
/** Failed individual reads of one job before it is given up (one may be a passing error). */
export const MAX_MISSES = 6;
/** Polls skipped after the n-th failed read: 0, 1, 3, 7, 15 (doubling, at most MAX_BACKOFF_POLLS - 1). */
export const MAX_BACKOFF_POLLS = 16;
/** The service lists at most 100 jobs; a list longer than this is read only this far. */
export const MAX_LISTED_JOBS = 500;
/** A list this long is full: the service may have left jobs out. */
export const SERVICE_PAGE = 100;
/** Unfinished jobs tracked at most; past it the least recently seen are forgotten (bounded state). */
export const MAX_OPEN_JOBS = 1000;
/** Characters of a status kept in the state (an unknown status of 20,000 characters is stored cut). */
export const MAX_STATUS_LENGTH = 64;
/** The stored state's JSON (UTF-8 bytes) never exceeds this, whatever the service lists. */
export const MAX_STATE_BYTES = 96 * 1024;
/**
 * The tracker's own share: the node's static data also holds the poll's stamp and a Retry-After pause, inside
 * n8n's `node:<name>` key, and the whole of it stays under MAX_STATE_BYTES (the fuzzer measures it so).
 */
const TRACKER_BYTES = MAX_STATE_BYTES - 512;
/**
 * Evicted finished jobs remembered by a 48-bit hash in 12 hex digits (12 KB): a job listed again after that is new.
 * 48 bits keep a false match (a new job taken for an evicted one) near 1 in 3 * 10^11 per new job.
 */
export const MAX_GONE = 1000;
const GONE_WIDTH = 12;
/** Ids stored as they are in `done` up to this length (plain ASCII); longer or unusual ids are hashed. */
const MAX_PLAIN_KEY = 64;
/** Hashed keys start with a control character, which no readable job id contains: they never equal an id. */
const HASH_PREFIX = '\u0001';

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
	return { version: STATE_VERSION, initialized: false, seq: 0, open: {}, done: [], polledAt: null };
}

/**
 * Reads stored static data back into a state: today's version 2, and version 1 (finished jobs were kept by end
 * time: their order is kept, the horizon is dropped). Anything unrecognised yields an empty state (a new
 * baseline); malformed entries are dropped rather than failing the poll; what is loaded is clamped again.
 */
export function loadState(raw: unknown): TrackerState {
	if (!isObject(raw) || (raw.version !== 1 && raw.version !== STATE_VERSION) || !isObject(raw.open) || !Array.isArray(raw.done)) {
		return emptyState();
	}
	return {
		version: STATE_VERSION,
		initialized: raw.initialized === true,
		seq: finiteOr(raw.seq, 0),
		open: loadOpen(raw.open),
		done: loadDone(raw.done as unknown[], raw.version === 1),
		polledAt: typeof raw.polledAt === 'number' && Number.isFinite(raw.polledAt) ? raw.polledAt : null,
		...loadGone(raw.gone),
	};
}

function loadGone(raw: unknown): { gone?: string } {
	if (typeof raw !== 'string' || !/^[0-9a-f]*$/.test(raw)) return {};
	const whole = raw.slice(0, raw.length - (raw.length % GONE_WIDTH)).slice(-MAX_GONE * GONE_WIDTH);
	return whole === '' ? {} : { gone: whole };
}

function loadOpen(raw: Record<string, unknown>): Record<string, OpenEntry> {
	const open: Record<string, OpenEntry> = {};
	for (const [id, entry] of Object.entries(raw)) {
		if (!isObject(entry) || typeof entry.status !== 'string' || readableJobId({ id }) === null) continue;
		const misses = typeof entry.misses === 'number' && entry.misses > 0 ? Math.floor(entry.misses) : 0;
		const retryAt = finiteOr(entry.retryAt, 0);
		open[id] = openEntry(entry.status, finiteOr(entry.seen, 0), { ended: entry.ended === true, misses, retryAt });
	}
	return open;
}

function loadDone(raw: unknown[], version1: boolean): Array<[string, number]> {
	const done: Array<[string, number]> = [];
	const keys = new Set<string>();
	for (const entry of raw) {
		if (!Array.isArray(entry) || typeof entry[0] !== 'string') continue;
		const key = entry[0].startsWith(HASH_PREFIX) ? entry[0] : readableJobId({ id: entry[0] }) === null ? null : doneKey(entry[0]);
		if (key === null || key.length > MAX_PLAIN_KEY + 1 || keys.has(key)) continue;
		keys.add(key);
		// Version 1 kept [id, endTime], oldest end first: that order is kept, as seen before any new poll.
		done.push([key, version1 ? 0 : finiteOr(entry[1], 0)]);
	}
	return version1 ? done : done.sort((a, b) => a[1] - b[1]);
}

/** An open entry with only the fields that carry something (the stored JSON stays small). */
function openEntry(status: string, seen: number, flags: { ended?: boolean; misses?: number; retryAt?: number } = {}): OpenEntry {
	const entry: OpenEntry = { status: clampStatus(status), seen };
	if (flags.misses) entry.misses = flags.misses;
	if (flags.misses && flags.retryAt) entry.retryAt = flags.retryAt;
	if (flags.ended) entry.ended = true;
	return entry;
}

function clampStatus(status: string): string {
	return status.length > MAX_STATUS_LENGTH ? status.slice(0, MAX_STATUS_LENGTH) : status;
}

/**
 * How a finished job is remembered: its id when short plain ASCII (what the service's UUIDs are), else a 53-bit
 * hash of it, so 256 characters of 3-byte text cost 15 bytes. A collision could only hide one job's ending.
 */
export function doneKey(id: string): string {
	if (id.length <= MAX_PLAIN_KEY && /^[\x20-\x7e]*$/.test(id) && !/["\\]/.test(id)) return id;
	const [h1, h2] = hash53(id);
	return `${HASH_PREFIX}${(4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)}:${id.length}`;
}

/** The 12 hex digits (48 bits) a finished key is remembered by once evicted. */
function goneHash(key: string): string {
	const [h1, h2] = hash53(key);
	return (h2 & 0xffff).toString(16).padStart(4, '0') + (h1 >>> 0).toString(16).padStart(8, '0');
}

function hash53(id: string): [number, number] {
	let h1 = 0xdeadbeef;
	let h2 = 0x41c6ce57;
	for (let i = 0; i < id.length; i++) {
		const code = id.charCodeAt(i);
		h1 = Math.imul(h1 ^ code, 2654435761);
		h2 = Math.imul(h2 ^ code, 1597334677);
	}
	h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
	h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
	return [h1, h2];
}

/** The rank of what an open entry last recorded. */
function entryRank(entry: OpenEntry): number {
	return entry.ended ? Math.max(RANK_UNKNOWN_ENDED, rankOf(entry.status, null)) : rankOf(entry.status, null);
}

function finiteOr(value: unknown, fallback: number): number {
	return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/**
 * Open jobs on neither list (pushed off by the 100-job caps), least recently observed first, at most `maxReads`,
 * leaving out those backing off after a failed read. Rotating by `seen` reaches every open job in turn.
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
	const nextSeq = state.seq + 1;
	return Object.entries(state.open)
		.filter(([id, entry]) => !listed.has(id) && (entry.retryAt ?? 0) <= nextSeq)
		.sort(([idA, a], [idB, b]) => a.seen - b.seen || compareStrings(idA, idB))
		.slice(0, limit)
		.map(([id]) => id);
}

/** One poll's working copy: Maps are cheap to change; the stored objects are rebuilt once at the end. */
interface PollWork {
	state: TrackerState;
	seq: number;
	open: Map<string, OpenEntry>;
	/** Keys of finished jobs seen in this poll (new or seen again), in the order seen. */
	finished: Map<string, number>;
	doneKeys: Set<string>;
	/** Hashes of evicted finished jobs (built only when needed). */
	gone: Set<string> | null;
	events: Array<{ event: JobEvent; key: number }>;
	matches: (seen: SeenJob) => boolean;
	stats: PollStats;
}

/**
 * Decides the events of one poll and the state to store after it, in steps: merge what the poll read, apply each
 * sighting, count failed reads, then bound the state (the window, the open cap, the byte bound). Never mutates its
 * inputs: when the poll fails later, the previous state is still intact.
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
		finished: new Map<string, number>(),
		doneKeys: new Set(state.done.map(([key]) => key)),
		gone: null,
		events: [],
		matches: emissionFilter(options),
		stats: { evicted: 0, open: 0, done: 0, unreadable, overflow, forgotten: 0, retrying: [], givenUp: [], gap: null, bytes: 0 },
	};
	const now = typeof observation.now === 'number' && Number.isFinite(observation.now) ? observation.now : null;
	if (state.initialized && now !== null) work.stats.gap = possibleGap(work, observation, now);
	for (const [id, seen] of merged) applySighting(work, id, seen, options);
	countMisses(work, observation, merged);
	const { done, gone } = boundWindow(work, options);
	capOpen(work);
	const next: TrackerState = { version: STATE_VERSION, initialized: true, seq: work.seq, open: {}, done, polledAt: now ?? state.polledAt };
	if (gone !== undefined) next.gone = gone;
	boundBytes(work, next);
	work.stats.open = work.open.size;
	work.stats.done = next.done.length;
	work.events.sort((a, b) => a.key - b.key || compareStrings(a.event.job.id, b.event.job.id));
	return { events: work.events.map((e) => e.event), state: next, stats: work.stats };
}

function emit(work: PollWork, seen: SeenJob, event: JobEvent['event'], previousStatus: string | null, skipped: string[]): void {
	if (!work.matches(seen)) return;
	work.events.push({ event: { job: seen.job, event, status: seen.status, previousStatus, skippedStatuses: skipped }, key: seen.orderKey });
}

function record(work: PollWork, id: string, seen: SeenJob): void {
	if (seen.rank === RANK_TERMINAL) {
		work.open.delete(id);
		work.finished.set(doneKey(id), work.seq);
	} else {
		work.open.set(id, openEntry(seen.status, work.seq, { ended: seen.rank === RANK_UNKNOWN_ENDED }));
	}
}

function applySighting(work: PollWork, id: string, seen: SeenJob, options: TrackerOptions): void {
	if (!work.state.initialized) {
		record(work, id, seen);
		if (options.startFrom === 'existing') emit(work, seen, 'newJob', null, []);
		return;
	}
	const tracked = work.open.get(id);
	if (tracked !== undefined) {
		const previousRank = entryRank(tracked);
		if (seen.rank <= previousRank) {
			// Same status or a regression: keep the furthest status, but the job is alive and was seen.
			work.open.set(id, openEntry(tracked.status, work.seq, { ended: tracked.ended }));
			return;
		}
		record(work, id, seen);
		emit(work, seen, 'statusChanged', tracked.status, skippedBetween(previousRank, seen.rank));
		return;
	}
	const key = doneKey(id);
	if (work.doneKeys.has(key)) {
		// Still listed: seen again now, so it stays remembered for as long as the service lists it.
		if (seen.rank === RANK_TERMINAL) work.finished.set(key, work.seq);
		return;
	}
	// A job seen finished long ago, listed again (even as running): not news, and not tracked again.
	if (work.state.gone !== undefined && goneSet(work).has(goneHash(key))) return;
	record(work, id, seen);
	emit(work, seen, 'newJob', null, []);
}

function goneSet(work: PollWork): Set<string> {
	if (work.gone === null) {
		const gone = work.state.gone ?? '';
		work.gone = new Set<string>();
		for (let i = 0; i < gone.length; i += GONE_WIDTH) work.gone.add(gone.slice(i, i + GONE_WIDTH));
	}
	return work.gone;
}

/** Failed individual reads: read again after a backoff of doubling polls, given up after MAX_MISSES. */
function countMisses(work: PollWork, observation: Partial<Observation>, merged: Map<string, SeenJob>): void {
	const failures = [...(observation.notFound ?? []), ...(observation.failed ?? [])];
	for (const rawId of failures) {
		const id = String(rawId);
		const tracked = work.open.get(id);
		// A job observed anywhere in this poll exists whatever its individual read said.
		if (tracked === undefined || merged.has(id) || tracked.seen === work.seq) continue;
		const misses = (tracked.misses ?? 0) + 1;
		if (misses >= MAX_MISSES) {
			work.open.delete(id);
			work.stats.givenUp.push(id);
			continue;
		}
		const retryAt = work.seq + Math.min(2 ** (misses - 1), MAX_BACKOFF_POLLS);
		work.open.set(id, openEntry(tracked.status, work.seq, { ended: tracked.ended, misses, retryAt }));
		work.stats.retrying.push(id);
	}
}

/**
 * A full list none of whose jobs the trigger knew: when the history list is full and none of its jobs was seen
 * finished before, jobs that finished since the previous poll may lie past its end (the same for the active list
 * and jobs known at all). Decided from what the trigger saw, not from the service's clock.
 */
function possibleGap(work: PollWork, observation: Partial<Observation>, now: number): PossibleGap | null {
	const from = work.state.polledAt;
	const history = Array.isArray(observation.history) ? observation.history : [];
	const active = Array.isArray(observation.active) ? observation.active : [];
	const ids = (jobs: JobSnapshot[]) => jobs.map((job) => readableJobId(job)).filter((id): id is string => id !== null);
	if (history.length >= SERVICE_PAGE && !ids(history).some((id) => work.doneKeys.has(doneKey(id)))) {
		return { list: 'history', from, to: now, mayBeHidden: hiddenEstimate(history, from, now) };
	}
	const known = (id: string) => work.open.has(id) || work.doneKeys.has(doneKey(id));
	if (active.length >= SERVICE_PAGE && !ids(active).some(known)) return { list: 'active', from, to: now, mayBeHidden: null };
	return null;
}

/** The listed jobs ended at some rate since the oldest of them; as many again per that time may be hidden. */
function hiddenEstimate(history: JobSnapshot[], from: number | null, now: number): number | null {
	if (from === null) return null;
	const ends = history.map((job) => toMillis(job.endTime));
	if (ends.some((end) => end === null || end < from || end > now)) return null;
	const oldest = Math.min(...(ends as number[]));
	if (!(now > oldest)) return null;
	return Math.ceil((history.length * (oldest - from)) / (now - oldest));
}

/** The window: the `terminalWindow` finished jobs seen most recently. Stored oldest first; seen-again ones move last. */
function boundWindow(work: PollWork, options: TrackerOptions): { done: Array<[string, number]>; gone?: string } {
	const window = Math.max(1, Math.floor(options.terminalWindow ?? DEFAULT_TERMINAL_WINDOW) || DEFAULT_TERMINAL_WINDOW);
	let done = work.state.done;
	const gone = work.state.gone;
	if (work.finished.size === 0 && done.length <= window) return gone === undefined ? { done } : { done, gone };
	done = done.filter(([key]) => !work.finished.has(key)).concat([...work.finished]);
	const cut = Math.max(0, done.length - window);
	work.stats.evicted = cut;
	return { done: done.slice(cut), ...withGone(gone, done.slice(0, cut)) };
}

/** Evicted finished jobs join the ring of hashes; the oldest hashes leave it past MAX_GONE. */
function withGone(gone: string | undefined, evicted: Array<[string, number]>): { gone?: string } {
	const next = ((gone ?? '') + evicted.map(([key]) => goneHash(key)).join('')).slice(-MAX_GONE * GONE_WIDTH);
	return next === '' ? {} : { gone: next };
}

/** At most MAX_OPEN_JOBS unfinished jobs: the least recently seen go (one that comes back counts as new). */
function capOpen(work: PollWork): void {
	const excess = work.open.size - MAX_OPEN_JOBS;
	if (excess <= 0) return;
	for (const [id] of leastRecentlySeen(work.open).slice(0, excess)) work.open.delete(id);
	work.stats.forgotten += excess;
}

function leastRecentlySeen(open: Map<string, OpenEntry>): Array<[string, OpenEntry]> {
	return [...open].sort(([idA, a], [idB, b]) => a.seen - b.seen || compareStrings(idA, idB));
}

/**
 * The byte bound: past TRACKER_BYTES, finished jobs not seen in this poll go first (oldest seen first), then
 * unfinished jobs (least recently seen first). Sizes are counted per entry as JSON.stringify writes them.
 */
function boundBytes(work: PollWork, next: TrackerState): void {
	next.open = Object.fromEntries(work.open);
	let bytes = utf8Bytes(JSON.stringify(next));
	if (bytes > TRACKER_BYTES && next.gone !== undefined) {
		// The oldest evicted hashes go first: they guard only against a service listing long-finished jobs again.
		const keep = Math.max(0, next.gone.length - (Math.ceil((bytes - TRACKER_BYTES) / GONE_WIDTH) * GONE_WIDTH));
		bytes -= next.gone.length - keep;
		next.gone = next.gone.slice(next.gone.length - keep);
		if (next.gone === '') {
			delete next.gone;
			bytes = utf8Bytes(JSON.stringify(next));
		}
	}
	if (bytes > TRACKER_BYTES) {
		let cut = 0;
		while (bytes > TRACKER_BYTES && cut < next.done.length && next.done[cut][1] < work.seq) {
			bytes -= utf8Bytes(JSON.stringify(next.done[cut])) + 1;
			cut++;
		}
		next.done = next.done.slice(cut);
		work.stats.evicted += cut;
		for (const [id, entry] of bytes > TRACKER_BYTES ? leastRecentlySeen(work.open) : []) {
			if (bytes <= TRACKER_BYTES) break;
			bytes -= utf8Bytes(JSON.stringify({ [id]: entry })) - 1;
			work.open.delete(id);
			work.stats.forgotten++;
		}
		next.open = Object.fromEntries(work.open);
		bytes = utf8Bytes(JSON.stringify(next));
	}
	work.stats.bytes = bytes;
}

/** UTF-8 length of a string (what a database stores), without Buffer. */
export function utf8Bytes(text: string): number {
	let bytes = 0;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code < 0x80) bytes += 1;
		else if (code < 0x800) bytes += 2;
		else if (code >= 0xd800 && code < 0xdc00 && i + 1 < text.length) {
			bytes += 4;
			i++;
		} else bytes += 3;
	}
	return bytes;
}


interface SeenJob {
	job: TrackedJob;
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
		job: { ...job, id },
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
