/**
 * The one job vocabulary of both nodes: statuses and how one read from the wire is understood, job-id rules,
 * timestamps and durations, the flow / run profile / status filter, what counts as an object. Pure (n8n's types only):
 * every operation, the wait and the trigger read a job the same way. No other module exports any of these.
 */
import type { IDataObject } from 'n8n-workflow';

/** An object that is neither null nor a list: a job, a parameter, a JSON answer's record. */
export function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const ACTIVE_STATUSES = ['QUEUED', 'RUNNING'] as const;
export const TERMINAL_STATUSES = ['COMPLETED', 'ERROR', 'CANCELLED'] as const;
/** Every status the spec names, in the order a job passes them. */
export const JOB_STATUSES = [...ACTIVE_STATUSES, ...TERMINAL_STATUSES] as const;

export type JobStatus = (typeof JOB_STATUSES)[number];

const TERMINAL = new Set<string>(TERMINAL_STATUSES);
const ACTIVE = new Set<string>(ACTIVE_STATUSES);
const STATUSES = new Set<string>(JOB_STATUSES);

/** A status as read from the wire: trimmed and upper-cased (`completed ` is COMPLETED); anything not text is ''. */
export function normalizeStatus(value: unknown): string {
	return typeof value === 'string' ? value.trim().toUpperCase() : '';
}

function isJobStatus(status: string): status is JobStatus {
	return STATUSES.has(status);
}

/**
 * Statuses a setting gives (a list, or one bare value), normalised; `unknown` is the first one that is not a status
 * the spec names (then `statuses` is absent).
 */
export function checkStatuses(given: unknown): { statuses: JobStatus[]; unknown?: undefined } | { statuses?: undefined; unknown: unknown } {
	const statuses: JobStatus[] = [];
	for (const value of Array.isArray(given) ? given : [given]) {
		const status = typeof value === 'string' ? normalizeStatus(value) : '';
		if (!isJobStatus(status)) return { unknown: typeof value === 'string' ? status : value };
		statuses.push(status);
	}
	return { statuses };
}

/** COMPLETED, ERROR or CANCELLED, whatever the case and surrounding spaces. Unknown statuses are not terminal. */
export function isTerminalStatus(value: unknown): boolean {
	return TERMINAL.has(normalizeStatus(value));
}

/**
 * What a status says happened to a job, for users to branch on (the trigger's `outcome`): it was queued, it started,
 * it completed, it failed (ERROR) or it was cancelled. A status the spec does not name is `other`.
 */
export const JOB_OUTCOMES = ['queued', 'started', 'completed', 'failed', 'cancelled', 'other'] as const;
export type JobOutcome = (typeof JOB_OUTCOMES)[number];

const OUTCOME_OF: Record<JobStatus, JobOutcome> = {
	QUEUED: 'queued',
	RUNNING: 'started',
	COMPLETED: 'completed',
	ERROR: 'failed',
	CANCELLED: 'cancelled',
};

/** The outcome a status reports, whatever its case and surrounding spaces; `other` for anything else. */
export function statusOutcome(value: unknown): JobOutcome {
	const status = normalizeStatus(value);
	return isJobStatus(status) ? OUTCOME_OF[status] : 'other';
}

/** QUEUED or RUNNING, whatever the case and surrounding spaces. */
export function isActiveStatus(value: unknown): boolean {
	return ACTIVE.has(normalizeStatus(value));
}

export const MAX_JOB_ID_LENGTH = 256;

/** C0, DEL and C1 characters: a CR/LF in a header or path is an injection, never an id or a name. */
export function hasControlCharacter(text: string): boolean {
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
	}
	return false;
}

/**
 * A UTF-16 surrogate without its pair: valid in JSON (`"\ud800"`) and in a JS string, but no URL, header or UTF-8
 * text can carry it (encodeURIComponent throws "URI malformed"). One pass, linear.
 */
export function hasLoneSurrogate(text: string): boolean {
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code < 0xd800 || code > 0xdfff) continue;
		const next = text.charCodeAt(i + 1);
		if (code > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return true;
		i++;
	}
	return false;
}

/** Flow paths, run profiles and names longer than this are refused before sending (no service needs more). */
export const MAX_TEXT_LENGTH = 4096;

/**
 * The one rule for a name the nodes send (Submit's Run Profile, the Flow Name and Run Profile filters) and for what
 * their lists offer: why this (trimmed) text cannot be sent, or null when it can.
 */
export function sendableTextProblem(text: string, maxLength = MAX_TEXT_LENGTH): string | null {
	if (hasControlCharacter(text)) return 'contains control characters (such as a line break)';
	if (hasLoneSurrogate(text)) return 'contains an unpaired UTF-16 surrogate (ill-formed text)';
	if (text.length > maxLength) return `is longer than ${maxLength} characters`;
	return null;
}

/** Why a job id cannot be used, or null when it can. Encoding handles every other character. */
export function jobIdProblem(jobId: string): string | null {
	if (jobId === '') return 'is empty';
	if (jobId === '.' || jobId === '..') return 'cannot be "." or ".."';
	if (hasControlCharacter(jobId)) return 'contains control characters';
	if (hasLoneSurrogate(jobId)) return 'contains an unpaired UTF-16 surrogate (ill-formed text no URL can carry)';
	if (jobId.length > MAX_JOB_ID_LENGTH) return `is longer than ${MAX_JOB_ID_LENGTH} characters`;
	return null;
}

/**
 * The id of a job as the service listed it, when it can name exactly one job: text, or a whole number, passing
 * jobIdProblem. `__proto__` is refused too: ids are keys of plain objects in the trigger's state.
 */
export function readableJobId(job: unknown): string | null {
	if (!isPlainObject(job)) return null;
	const raw = job.id;
	const id = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
	if (typeof id !== 'string' || id === '__proto__') return null;
	return jobIdProblem(id) === null ? id : null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The spec's "UUID form" of job and flow identifiers. */
export function isUuid(text: string): boolean {
	return UUID.test(text);
}

/** A timestamp in ms: numbers (or numeric strings) below 1e12 are taken as seconds; anything else is null. */
export function toMillis(value: unknown): number | null {
	const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
	if (!Number.isFinite(n)) return null;
	return Math.abs(n) < 1e12 ? n * 1000 : n;
}

/*
 * Two readings of a timestamp, on purpose: toMillis orders events and never loses one (any finite number, below
 * 1e12 taken as seconds); toEpochMs is for what users see and accepts only plausible dates (else null).
 */
// Integer part of 10 digits = seconds (2001..2286), 13 digits = milliseconds; a fraction is allowed.
const SECONDS_MIN = 1e9;
const SECONDS_MAX = 1e10;
const MS_MIN = 1e12;
const MS_MAX = 1e13;
const NUMERIC_RE = /^\d+(?:\.\d+)?$/;

/**
 * Epoch milliseconds from a timestamp field: 13-digit milliseconds as is, 10-digit seconds × 1000,
 * numeric strings accepted. Anything else (other magnitudes, 0, negatives, dates, junk) is null.
 */
export function toEpochMs(value: unknown): number | null {
	let n: number;
	if (typeof value === 'number') {
		n = value;
	} else if (typeof value === 'bigint') {
		n = Number(value);
	} else if (typeof value === 'string') {
		const text = value.trim();
		if (!NUMERIC_RE.test(text)) return null;
		n = Number(text);
	} else {
		return null;
	}
	if (!Number.isFinite(n)) return null;
	if (n >= MS_MIN && n < MS_MAX) return Math.round(n);
	if (n >= SECONDS_MIN && n < SECONDS_MAX) return Math.round(n * 1000);
	return null;
}

// Applied to trimmed text only, so no two adjacent blank runs can backtrack against each other.
const NUMBER = '[+-]?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?';
const SECONDS_RE = new RegExp(`^(${NUMBER})[ \\t]*(?:seconds?|secs?|s)?$`, 'i');
const HMS_RE = /^(\d+):(\d{1,2}):(\d{1,2}(?:\.\d+)?)$/;

/** A duration as the service writes it (`0.250 seconds`, `12 s`, `0.25`, `0:00:01`) in seconds; null when not one. */
export function parseRuntimeSeconds(text: string): number | null {
	text = text.trim();
	const m = SECONDS_RE.exec(text);
	if (m) {
		const n = Number(m[1]);
		return Number.isFinite(n) ? n : null;
	}
	const h = HMS_RE.exec(text);
	if (h) {
		const n = Number(h[1]) * 3600 + Number(h[2]) * 60 + Number(h[3]);
		return Number.isFinite(n) ? n : null;
	}
	return null;
}

/** What a filter keeps: exact flow name and run profile (empty = any), statuses (empty = any, case ignored). */
export interface JobFilter {
	flowName?: string;
	runProfileName?: string;
	statuses?: readonly string[];
}

/** The one filter match of Get Many, the trigger's events and its test event. */
export function jobFilterMatcher(filter: JobFilter): (job: Record<string, unknown>) => boolean {
	const statuses = filter.statuses && filter.statuses.length > 0 ? new Set(filter.statuses.map(normalizeStatus)) : null;
	const flowName = filter.flowName ?? '';
	const runProfileName = filter.runProfileName ?? '';
	return (job) =>
		(statuses === null || statuses.has(normalizeStatus(job.executionStatus))) &&
		(flowName === '' || job.flowName === flowName) &&
		(runProfileName === '' || job.runProfileName === runProfileName);
}

/** "an object", "a list", "a boolean", "null": the type of what an expression produced instead of the expected one. */
export function describeType(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	const type = typeof value;
	return type === 'object' ? 'an object' : `a ${type}`;
}

/**
 * The one "…, got X" formatter: text quoted (40 characters at most); numbers and booleans as themselves when the
 * setting is a number (`values`), else their type; anything else its type.
 */
export function describeGiven(value: unknown, options: { values?: boolean } = {}): string {
	if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
	if (options.values && (typeof value === 'number' || typeof value === 'boolean')) return String(value);
	return describeType(value);
}

// `Step <n> (<k> of <m> completed)` while running, `Step <n> (<m>)` once ended (the spec's two forms).
const RUNNING_STEP_RE = /^Step[ \t]+(\d{1,9})[ \t]*\([ \t]*(\d{1,9})[ \t]+of[ \t]+(\d{1,9})[ \t]+completed[ \t]*\)$/i;
const DONE_STEP_RE = /^Step[ \t]+(\d{1,9})[ \t]*\([ \t]*(\d{1,9})[ \t]*\)$/i;

/**
 * A job's progress as numbers from its step description ("Step 2 (1 of 3 completed)" → 1 of 3); null when not one.
 * `failedAt` is the step the description names: the step a job that failed or was cancelled ended in.
 */
export function stepProgress(description: unknown): { completed: number; total: number; failedAt: number | null } | null {
	// Bounded before matching: a description longer than any of the two forms is not one of them.
	if (typeof description !== 'string' || description.length > 80) return null;
	const text = description.trim();
	const running = RUNNING_STEP_RE.exec(text);
	if (running) {
		const [step, completed, total] = [Number(running[1]), Number(running[2]), Number(running[3])];
		return completed <= total ? { completed, total, failedAt: step } : null;
	}
	const done = DONE_STEP_RE.exec(text);
	return done ? { completed: Number(done[2]), total: Number(done[2]), failedAt: Number(done[1]) } : null;
}

const ISO_DATE_RE = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * A job's timestamp in epoch ms for ordering and time filters: what toEpochMs reads, or an ISO date text (some
 * services send them); null otherwise.
 */
export function readTimestamp(value: unknown): number | null {
	const ms = toEpochMs(value);
	if (ms !== null || typeof value !== 'string' || value.length > 40) return ms;
	const text = value.trim();
	if (!ISO_DATE_RE.test(text)) return null;
	const parsed = Date.parse(text);
	return Number.isFinite(parsed) ? parsed : null;
}

/*
 * The one time-zone rule of both nodes (docs/using-the-nodes.md, "Times and time zones"): a time typed without a zone
 * is read in the workflow's time zone, as n8n's own nodes read a dateTime parameter (the Google Calendar node's
 * addTimezoneToDate, packages/nodes-base/nodes/Google/Calendar/GenericFunctions.ts: `moment.tz(date, timezone)` when
 * the text has no `Z` or offset), and from version 2.1 the times a node shows are written in that same zone, with
 * their offset (as `$now.toISO()` writes them): what a user reads in the output is what they type in a filter.
 */

/** The offset of a time zone at an instant, in ms (0 for an unknown zone: the instant is then shown in UTC). */
export function zoneOffsetMs(utcMs: number, timeZone: string): number {
	const format = zoneFormat(timeZone);
	if (format === undefined) return 0;
	const parts: Record<string, number> = {};
	for (const part of format.formatToParts(new Date(utcMs))) if (part.type !== 'literal') parts[part.type] = Number(part.value);
	const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
	return Number.isFinite(wall) ? wall - Math.floor(utcMs / 1000) * 1000 : 0;
}

/** One formatter per zone (building one costs far more than using it); undefined for a zone Intl does not know. */
const zoneFormats = new Map<string, Intl.DateTimeFormat | undefined>();
const MAX_ZONE_FORMATS = 64;

function zoneFormat(timeZone: string): Intl.DateTimeFormat | undefined {
	if (zoneFormats.has(timeZone)) return zoneFormats.get(timeZone);
	let format: Intl.DateTimeFormat | undefined;
	try {
		const numeric = 'numeric' as const;
		format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: numeric, month: numeric, day: numeric, hour: numeric, minute: numeric, second: numeric });
	} catch {
		format = undefined;
	}
	if (zoneFormats.size >= MAX_ZONE_FORMATS) zoneFormats.clear();
	zoneFormats.set(timeZone, format);
	return format;
}

const UTC_ZONES = new Set(['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT', 'Z']);

/** `+05:30`, `-05:00`; `Z` for the UTC zone itself (as Luxon, behind n8n's `$now`, writes it). */
function offsetText(offsetMs: number, timeZone: string): string {
	if (offsetMs === 0 && UTC_ZONES.has(timeZone)) return 'Z';
	const minutes = Math.round(Math.abs(offsetMs) / 60_000);
	const pad = (n: number) => String(n).padStart(2, '0');
	return `${offsetMs < 0 ? '-' : '+'}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/** An instant as ISO text in a time zone, with its offset: `2026-11-26T09:21:00.000-05:00` in America/New_York. */
export function isoInZone(utcMs: number, timeZone: string): string {
	const offset = zoneOffsetMs(utcMs, timeZone);
	return new Date(utcMs + offset).toISOString().slice(0, 23) + offsetText(offset, timeZone);
}

/** An instant for a list label: `2026-11-26 09:21:00 -05:00` (the zone's offset said, never left to guess). */
export function labelInZone(utcMs: number, timeZone: string): string {
	const offset = zoneOffsetMs(utcMs, timeZone);
	return `${new Date(utcMs + offset).toISOString().slice(0, 19).replace('T', ' ')} ${offsetText(offset, timeZone) === 'Z' ? 'UTC' : offsetText(offset, timeZone)}`;
}

const ZONE_RE = /(?:Z|[+-]\d{2}:?\d{2})$/i;
const TIME_NUMBER_RE = /^\d+(?:\.\d+)?$/;
// What n8n's date picker, `$now.toISO()` and the docs write: a date, an optional time (minutes, seconds, a fraction),
// an optional zone. Each part is a fixed run of digits, so the match is linear.
const GIVEN_ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(?: ?(Z|[+-]\d{2}:?\d{2}))?$/i;
const DAY_MS = 86_400_000;

/** Why a time typed in a filter is refused; the filter's error says which, and asks for the offset where it helps. */
export type GivenTimeProblem =
	| { problem: 'notATime' }
	/** A day or a time that no calendar has: 2026-02-30, 24:00, 10:61. */
	| { problem: 'impossible' }
	/** No offset in the text, and the workflow's zone is not one Intl knows. */
	| { problem: 'unknownZone' }
	/** The wall time occurs twice in the zone (the hour a clock goes back): both readings, earlier first. */
	| { problem: 'ambiguous'; instants: [number, number] }
	/** The wall time never occurs in the zone (the hour a clock skips). */
	| { problem: 'skipped' };

/** The wall time of an ISO match as if in UTC, or null when the calendar has no such day or time. */
function wallTimeMs(m: RegExpExecArray): number | null {
	const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0));
	if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
	const date = new Date(0);
	date.setUTCFullYear(year, month - 1, day);
	date.setUTCHours(hour, minute, second, Number(((m[7] ?? '') + '000').slice(0, 3)));
	// Date rolls 30 February over into March: a day that moved is one the month does not have.
	return date.getUTCDate() === day && date.getUTCMonth() === month - 1 ? date.getTime() : null;
}

/** `+05:30`, `-0500`, `Z` as ms east of UTC; null for an offset no zone has (past ±23:59). */
function offsetMs(text: string): number | null {
	if (text.toUpperCase() === 'Z') return 0;
	const digits = text.replace(':', '');
	const [hours, minutes] = [Number(digits.slice(1, 3)), Number(digits.slice(3, 5))];
	if (hours > 23 || minutes > 59) return null;
	return (text[0] === '-' ? -1 : 1) * (hours * 60 + minutes) * 60_000;
}

/**
 * The instants a wall time has in a zone: one, two (the hour a clock goes back) or none (the hour it skips). The
 * offsets a day before and a day after are the only ones a wall time can have (no zone changes twice in a day).
 */
function wallTimeInstants(wallMs: number, timeZone: string): number[] {
	const offsets = new Set([zoneOffsetMs(wallMs - DAY_MS, timeZone), zoneOffsetMs(wallMs + DAY_MS, timeZone)]);
	return [...offsets].map((offset) => wallMs - offset).filter((instant) => zoneOffsetMs(instant, timeZone) === wallMs - instant).sort((a, b) => a - b);
}

/** An ISO text read as the zone says: its own offset, else the workflow's zone (refused where that zone cannot say). */
function readIsoTime(m: RegExpExecArray, timeZone: string): { ms: number } | GivenTimeProblem {
	const wall = wallTimeMs(m);
	const offset = m[8] === undefined ? undefined : offsetMs(m[8]);
	if (wall === null || offset === null) return { problem: 'impossible' };
	if (offset !== undefined) return { ms: wall - offset };
	if (zoneFormat(timeZone) === undefined) return { problem: 'unknownZone' };
	const instants = wallTimeInstants(wall, timeZone);
	if (instants.length === 0) return { problem: 'skipped' };
	return instants.length === 1 ? { ms: instants[0] } : { problem: 'ambiguous', instants: [instants[0], instants[instants.length - 1]] };
}

/**
 * A time a user gives (a filter) in epoch ms, or why it is refused: ISO text with a zone as written; without one (what
 * n8n's date picker writes) in `timeZone`, refused when that wall time occurs twice or never there, or the zone is
 * unknown; a day or time no calendar has is refused, never rolled over. A number, or a text of digits, is read by the
 * jobs' own rule (toEpochMs: 10 integer digits are epoch seconds, 13 are epoch milliseconds, each covering 2001-2286);
 * any other number is refused: no realistic date has another length, and guessing would keep or drop every job
 * without a word. Other text with a zone at its end (`$now.toRFC2822()`) is read by Date.parse.
 */
export function readGivenTimeIn(given: unknown, timeZone: string): { ms: number } | GivenTimeProblem {
	const known = (ms: number | null): { ms: number } | GivenTimeProblem => (ms === null ? { problem: 'notATime' } : { ms });
	if (typeof given === 'number' || typeof given === 'bigint') return known(toEpochMs(given));
	if (typeof given !== 'string' || given.length > 64) return { problem: 'notATime' };
	const text = given.trim();
	if (TIME_NUMBER_RE.test(text)) return known(toEpochMs(text));
	const iso = GIVEN_ISO_RE.exec(text);
	if (iso) return readIsoTime(iso, timeZone);
	const parsed = ZONE_RE.test(text) ? Date.parse(text) : NaN;
	return known(Number.isFinite(parsed) ? parsed : null);
}

/** readGivenTimeIn's instant, or null when it refuses the time (whatever the reason). */
export function readGivenTime(given: unknown, timeZone: string): number | null {
	const read = readGivenTimeIn(given, timeZone);
	return 'ms' in read ? read.ms : null;
}

/** Whether Intl knows the zone: an unknown one shows times in UTC, and the node says so. */
export function isKnownZone(timeZone: string): boolean {
	return zoneFormat(timeZone) !== undefined;
}
