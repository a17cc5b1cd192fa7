/**
 * The one job vocabulary of both nodes: statuses and how one read from the wire is understood, job-id rules,
 * timestamps and the flow / run profile / status filter. Pure, no n8n imports: every operation, the wait and the
 * trigger read a job the same way.
 */

export const ACTIVE_STATUSES = ['QUEUED', 'RUNNING'] as const;
export const TERMINAL_STATUSES = ['COMPLETED', 'ERROR', 'CANCELLED'] as const;
/** Every status the spec names, in the order a job passes them. */
export const JOB_STATUSES = [...ACTIVE_STATUSES, ...TERMINAL_STATUSES] as const;

export type JobStatus = (typeof JOB_STATUSES)[number];

const TERMINAL = new Set<string>(TERMINAL_STATUSES);
const ACTIVE = new Set<string>(ACTIVE_STATUSES);

/** A status as read from the wire: trimmed and upper-cased (`completed ` is COMPLETED); anything not text is ''. */
export function normalizeStatus(value: unknown): string {
	return typeof value === 'string' ? value.trim().toUpperCase() : '';
}

/** COMPLETED, ERROR or CANCELLED, whatever the case and surrounding spaces. Unknown statuses are not terminal. */
export function isTerminalStatus(value: unknown): boolean {
	return TERMINAL.has(normalizeStatus(value));
}

/** QUEUED or RUNNING, whatever the case and surrounding spaces. */
export function isActiveStatus(value: unknown): boolean {
	return ACTIVE.has(normalizeStatus(value));
}

/** One of the five statuses of the spec (after normalisation). */
export function isKnownStatus(value: unknown): value is JobStatus {
	return TERMINAL.has(normalizeStatus(value)) || ACTIVE.has(normalizeStatus(value));
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

/** Why a job id cannot be used, or null when it can. Encoding handles every other character. */
export function jobIdProblem(jobId: string): string | null {
	if (jobId === '') return 'is empty';
	if (jobId === '.' || jobId === '..') return 'cannot be "." or ".."';
	if (hasControlCharacter(jobId)) return 'contains control characters';
	if (jobId.length > MAX_JOB_ID_LENGTH) return `is longer than ${MAX_JOB_ID_LENGTH} characters`;
	return null;
}

/**
 * The id of a job as the service listed it, when it can name exactly one job: text, or a whole number, passing
 * jobIdProblem. `__proto__` is refused too: ids are keys of plain objects in the trigger's state.
 */
export function readableJobId(job: unknown): string | null {
	if (typeof job !== 'object' || job === null || Array.isArray(job)) return null;
	const raw = (job as Record<string, unknown>).id;
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

/** How a value the user or the service gave is shown in a message: short, quoted text or its type. */
export function describeValue(value: unknown): string {
	if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	if (value === null) return 'null';
	if (value === undefined) return 'nothing';
	return Array.isArray(value) ? 'a list' : 'an object';
}
