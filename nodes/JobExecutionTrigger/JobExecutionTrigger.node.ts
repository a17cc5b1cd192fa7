import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';

import {
	authenticationField,
	credentialsDescription,
	JOB_STATUS_OPTIONS,
	parseLogField,
	simplifyField,
	TRIGGER_DOCS_URL,
} from '../shared/descriptions';
import { fromVersion2 } from '../shared/versionDisplay';
import { readJobList } from '../shared/jobList';
import { nodeVersion } from '../shared/nodeVersion';
import { settle } from '../shared/settle';
import type { CredentialType, ResolvedConnection } from '../shared/transport';
import { apiRequest, failureInWords, getConnection, isRetryableError, readJobCall, retryAfterMs, transportTiming } from '../shared/transport';
import {
	describeGiven,
	isPlainObject,
	JOB_STATUSES,
	jobIdProblem,
	normalizeStatus,
	readableJobId,
	TERMINAL_STATUSES,
	toMillis,
} from '../shared/jobVocabulary';
import {
	computeEvents,
	emissionFilter,
	jobsToReadIndividually,
	loadState,
	MAX_LISTED_JOBS,
	MAX_MISSES,
	MAX_OPEN_JOBS,
	MAX_STATE_BYTES,
	SERVICE_PAGE,
} from './jobStatusTracker';
import type { JobSnapshot, PollStats, PossibleGap, TrackedJob, TrackerOptions, TrackerState } from './jobStatusTracker';
import { eventJson } from './eventOutput';
import type { EventOutput } from './eventOutput';
import { filterCollections, filterSearch, filterValue } from './filterPickers';

/** Individual reads of tracked jobs that fell off both capped lists, per poll; the rest wait for the next poll. */
const DEFAULT_MAX_INDIVIDUAL_READS = 25;
/** Stop individual reads when this share of the engine's poll budget is spent. */
const BUDGET_SHARE = 0.5;
/** n8n 1.x gives polls no budget: this bound keeps a poll well inside its minute there. */
const BUDGET_WITHOUT_ENGINE_MS = 60_000;

export class JobExecutionTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Job Execution Trigger',
		name: 'jobExecutionTrigger',
		icon: { light: 'file:../JobExecution/jobExecution.svg', dark: 'file:../JobExecution/jobExecution.dark.svg' },
		group: ['trigger'],
		version: [1, 2],
		defaultVersion: 2,
		subtitle: '={{ $parameter["triggerOn"] === "anyChange" ? "Any status change" : "Job status changes" }}',
		description: 'Starts the workflow when a job on the Job Execution Service is submitted, starts, completes, fails or is cancelled',
		defaults: { name: 'Job Execution Trigger' },
		// Used by n8n's editor as it is (see the action node): a #fragment in the codex URL would never match.
		documentationUrl: TRIGGER_DOCS_URL,
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: credentialsDescription,
		properties: [
			authenticationField,
			{
				displayName: 'Trigger On',
				name: 'triggerOn',
				type: 'options',
				default: 'statuses',
				options: [
					{ name: 'Jobs Reaching a Status', value: 'statuses', description: 'Fire when a job reaches one of the statuses below' },
					{ name: 'Any Status Change', value: 'anyChange', description: 'Fire on every new job and every status change' },
				],
			},
			{
				displayName: 'Statuses to Watch',
				name: 'statuses',
				type: 'multiOptions',
				default: [...TERMINAL_STATUSES],
				options: JOB_STATUS_OPTIONS,
				displayOptions: { show: { triggerOn: ['statuses'] } },
			},
			{
				displayName: 'Start From',
				name: 'startFrom',
				type: 'options',
				default: 'now',
				options: [
					{
						name: 'Changes From Now On',
						value: 'now',
						description: 'The first poll after activation only records the jobs that exist',
					},
					{
						name: 'Include Existing Jobs',
						value: 'existing',
						description: 'The first poll also fires for the jobs already listed (up to 100 active and 100 finished)',
					},
				],
			},
			...filterCollections,
			...fromVersion2([simplifyField]),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					parseLogField,
					{
						displayName: 'Max Individual Reads per Poll',
						name: 'maxIndividualReads',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 500 },
						default: DEFAULT_MAX_INDIVIDUAL_READS,
						description:
							'Tracked jobs that no longer appear in the service’s lists (capped at 100) are read one by one, at most this many per poll',
					},
					{
						displayName: 'On Possible Gap',
						name: 'onPossibleGap',
						type: 'options',
						default: 'logOnly',
						options: [
							{
								name: 'Emit a Possible Gap Item',
								value: 'emitItem',
								description: 'Also emit one item with event "possibleGap", the time window and an estimate of how many jobs may be hidden',
							},
							{ name: 'Log Only', value: 'logOnly', description: 'Write a warning to n8n’s log' },
						],
						description:
							'The service lists at most 100 jobs: when a full list holds no job the trigger saw before, jobs may have ended unseen',
					},
				],
			},
		],
	};

	methods = { listSearch: filterSearch };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const connection = await getConnection.call(this, this.getNodeParameter('authentication') as CredentialType);
		const tracker = trackerOptions(this);
		const options = (this.getNodeParameter('options', {}) as IDataObject) ?? {};
		const output = outputOf(this, options);
		const maxReads = readMaxReads(this, options);
		const onGap = readOnGap(this, options);
		// Whatever the service does, a poll ends by this deadline (every request of it included).
		const startedAt = Date.now();
		const deadline = startedAt + transportTiming.callMs;
		if (this.getMode() === 'manual') {
			const active = await listJobs(this, connection, 'active', { deadline, startedAt });
			const history = await listJobs(this, connection, 'history', { deadline, startedAt });
			return [testEvent(this, tracker, active.jobs, history.jobs, output)];
		}
		const staticData = this.getWorkflowStaticData('node');
		const key = memoryKey(this, connection);
		if (waitingForService(this, staticData, key, startedAt)) return null;
		const { active, history } = await readLists(this, connection, staticData, key, { deadline, startedAt });

		const state = resumeState(key, staticData);
		const budgetMs = typeof this.getPollBudgetMs === 'function' ? this.getPollBudgetMs() : BUDGET_WITHOUT_ENGINE_MS;
		const readsEnd = Math.min(deadline, Date.now() + budgetMs * BUDGET_SHARE);
		const ids = jobsToReadIndividually(state, active.jobs, history.jobs, maxReads);
		const reads = await readIndividually(this, connection, ids, readsEnd);

		const observation = { active: active.jobs, history: history.jobs, ...reads, now: Date.now() };
		const { events, state: next, stats } = computeEvents(state, observation, tracker);
		// Stored only now: a poll that failed above leaves the previous state, so nothing is lost or repeated.
		const items = events.map((event) => ({ json: eventJson(event, output) }));
		if (stats.gap !== null && onGap === 'emitItem') items.unshift({ json: gapJson(stats.gap) });
		staticData.tracker = next;
		staticData.stamp = remember(key, next, items.length > 0);
		logPoll(this, { ...stats, unreadable: active.dropped + history.dropped + stats.unreadable }, reads.reasons);
		return items.length === 0 ? null : [items];
	}
}

/**
 * Both lists. A 429/503 with Retry-After pauses the trigger until then: stored (and kept in this process, as a poll
 * that fails commits nothing with durable cursors), logged, and told where users look: this poll fails with an error
 * saying until when no request is sent, so the pause shows in the executions list and reaches an error workflow.
 */
async function readLists(
	context: IPollFunctions,
	connection: ResolvedConnection,
	staticData: IDataObject,
	key: string,
	bound: { deadline: number; startedAt: number },
): Promise<{ active: Listed; history: Listed }> {
	// Active first, history second: a job ending in between shows up twice (never zero times).
	const active = await settle(listJobs(context, connection, 'active', bound));
	const history = active.ok ? await settle(listJobs(context, connection, 'history', bound)) : active;
	if (active.ok && history.ok) {
		if (staticData.pausedUntil !== undefined) delete staticData.pausedUntil;
		pauses.delete(key);
		return { active: active.value, history: history.value };
	}
	const error = active.ok ? (history.ok ? undefined : history.error) : active.error;
	const waitMs = retryAfterMs(error);
	if (waitMs === undefined) throw error;
	const until = Date.now() + waitMs;
	staticData.pausedUntil = until;
	pauses.set(key, until);
	if (pauses.size > MAX_REMEMBERED_TRIGGERS) pauses.delete(pauses.keys().next().value as string);
	const seconds = Math.ceil(waitMs / 1000);
	context.logger.warn(`Job Execution Trigger: ${failureInWords(error)} and asked to wait ${seconds} s (Retry-After): no poll until ${new Date(until).toISOString()}`);
	throw pausedError(context, error, seconds, until);
}

/** The error of the poll that learnt of a pause: what happened, until when, and that nothing is lost. */
function pausedError(context: IPollFunctions, cause: unknown, seconds: number, until: number): NodeOperationError {
	const message = `The service asked the trigger to wait ${seconds} s (Retry-After): no poll until ${new Date(until).toISOString()}`;
	const error = new NodeOperationError(context.getNode(), message, {
		description:
			`${failureInWords(cause)[0].toUpperCase()}${failureInWords(cause).slice(1)}. The trigger sends no request until then and resumes by itself; ` +
			'jobs that change meanwhile fire on the first poll after. To poll less often, raise the trigger\'s poll interval.',
	});
	// n8n replaces messages that hold a code with its own words; this one says when polling resumes.
	error.message = message;
	return error;
}

/** The end of a pause per trigger in this process: a poll that fails commits nothing with durable cursors. */
const pauses = new Map<string, number>();

/** Polls due before the service's Retry-After ends send nothing, with one log line each. */
function waitingForService(context: IPollFunctions, staticData: IDataObject, key: string, now: number): boolean {
	const stored = staticData.pausedUntil;
	const until = Math.max(typeof stored === 'number' && Number.isFinite(stored) ? stored : 0, pauses.get(key) ?? 0);
	if (until <= now) return false;
	context.logger.warn(`Job Execution Trigger: skipping this poll, the service asked to wait until ${new Date(until).toISOString()} (Retry-After)`);
	return true;
}

/**
 * This process's latest state per trigger (workflow, node, service), so that a re-activation, which reloads the
 * static data n8n last saved (in its default mode only when a poll emitted), goes on from the newer state. It is
 * used only when every poll since the stored state fired nothing (so no event depends on a save that may have
 * failed), and when the stored state carries a stamp this process wrote or has no baseline yet (a durable cursor
 * whose activation poll fired nothing is not committed). It does not survive a restart.
 */
const recentStates = new Map<string, { state: TrackerState; polls: Array<{ stamp: string; emitted: boolean }>; at: number }>();
const PROCESS_MARK = Math.random().toString(36).slice(2, 10);
/** An unsaved baseline older than this is not used: the user expects "from now on" to mean now. */
const MEMORY_FRESH_MS = 15 * 60_000;
const MAX_REMEMBERED_TRIGGERS = 500;
const MAX_REMEMBERED_POLLS = 64;

function memoryKey(context: IPollFunctions, connection: ResolvedConnection): string {
	return JSON.stringify([context.getWorkflow().id, context.getNode().id, connection.credentialType, connection.baseUrl]);
}

function resumeState(key: string, staticData: IDataObject): TrackerState {
	const stored = loadState(staticData.tracker);
	const memory = recentStates.get(key);
	if (memory === undefined || memory.state.seq <= stored.seq) return stored;
	const index = memory.polls.findIndex((poll) => poll.stamp === staticData.stamp);
	const fresh = Date.now() - memory.at < MEMORY_FRESH_MS;
	if (index < 0 && (stored.initialized || !fresh)) return stored;
	return memory.polls.slice(index + 1).some((poll) => poll.emitted) ? stored : memory.state;
}

function remember(key: string, state: TrackerState, emitted: boolean): string {
	const stamp = `${PROCESS_MARK}:${state.seq}`;
	const polls = [...(recentStates.get(key)?.polls ?? []), { stamp, emitted }].slice(-MAX_REMEMBERED_POLLS);
	recentStates.delete(key);
	recentStates.set(key, { state, polls, at: Date.now() });
	if (recentStates.size > MAX_REMEMBERED_TRIGGERS) recentStates.delete(recentStates.keys().next().value as string);
	return stamp;
}

interface Reads {
	individual: JobSnapshot[];
	notFound: string[];
	failed: string[];
	/** Why reads failed, in words, for the log line. */
	reasons: string[];
}

/**
 * Tracked jobs on neither list, one by one, until `readsEnd`; the rest wait for the next poll. A failed read never
 * fails the poll: the tracker reads that job again with backoff and gives it up after a stated number of reads.
 */
async function readIndividually(context: IPollFunctions, connection: ResolvedConnection, ids: string[], readsEnd: number): Promise<Reads> {
	const reads: Reads = { individual: [], notFound: [], failed: [], reasons: [] };
	for (const id of ids) {
		if (Date.now() >= readsEnd) break;
		// The tracker keeps only readable ids; a state stored before that rule may still hold others: no read can
		// name them, so they count as that job's trouble (given up), never the poll's.
		if (jobIdProblem(id) !== null) {
			reads.notFound.push(id);
			continue;
		}
		const read = await settle(Promise.resolve().then(() => apiRequest.call(context, connection, readJobCall(id), { deadline: readsEnd })));
		if (read.ok && isPlainObject(read.value.body)) {
			reads.individual.push(read.value.body as JobSnapshot);
			continue;
		}
		const reason = read.ok ? 'the answer was not a job' : failureInWords(read.error);
		if (!reads.reasons.includes(reason)) reads.reasons.push(reason);
		// The transport's classifier: a failure no retry can fix (unknown job, refused) or a passing one.
		(read.ok || isRetryableError(read.error) ? reads.failed : reads.notFound).push(id);
		// The service asked to wait: the other reads wait for the next poll.
		if (!read.ok && retryAfterMs(read.error) !== undefined) break;
	}
	return reads;
}

/** One line per poll in n8n's log for what the trigger had to leave aside or may have missed; nothing when all is well. */
function logPoll(context: IPollFunctions, stats: PollStats, reasons: string[]): void {
	const parts: string[] = [];
	if (stats.unreadable > 0) parts.push(`skipped ${stats.unreadable} listed job(s) without a usable ID`);
	if (stats.overflow > 0) parts.push(`read only the first ${MAX_LISTED_JOBS} jobs of a list, leaving ${stats.overflow}`);
	if (stats.forgotten > 0) parts.push(`forgot ${stats.forgotten} unfinished job(s) to stay within its bounds (${MAX_OPEN_JOBS} jobs, ${MAX_STATE_BYTES} bytes)`);
	if (stats.retrying.length > 0) {
		parts.push(
			`could not read ${stats.retrying.length} tracked job(s) (${reasons.join(', ') || 'failed'}: ${idList(stats.retrying)}); ` +
				`each is read again in a later poll, with backoff, up to ${MAX_MISSES} reads`,
		);
	}
	if (stats.givenUp.length > 0) parts.push(`gave up ${stats.givenUp.length} tracked job(s) after ${MAX_MISSES} failed reads: ${idList(stats.givenUp)}`);
	if (stats.gap !== null) parts.push(gapText(stats.gap));
	if (parts.length > 0) context.logger.warn(`Job Execution Trigger: ${parts.join('; ')}`);
}

/** A few ids, each cut short: a log line stays readable whatever the service's ids are. */
function idList(ids: string[]): string {
	const shown = ids.slice(0, 3).map((id) => (id.length > 40 ? `${id.slice(0, 40)}…` : id));
	return shown.join(', ') + (ids.length > 3 ? ` and ${ids.length - 3} more` : '');
}

function gapText(gap: PossibleGap): string {
	const from = gap.from === null ? 'the previous poll' : new Date(gap.from).toISOString();
	const what = gap.list === 'history' ? 'finished' : 'were submitted';
	const count = gap.mayBeHidden === null ? 'an unknown number of' : `about ${gap.mayBeHidden}`;
	return (
		`possible gap: the ${gap.list} list was full (${SERVICE_PAGE} jobs) and held no job seen before, so ${count} jobs that ` +
		`${what} between ${from} and ${new Date(gap.to).toISOString()} may never have been listed; poll more often`
	);
}

function gapJson(gap: PossibleGap): IDataObject {
	return {
		event: 'possibleGap',
		list: gap.list,
		from: gap.from === null ? null : new Date(gap.from).toISOString(),
		to: new Date(gap.to).toISOString(),
		mayBeHidden: gap.mayBeHidden,
		message: gapText(gap),
	};
}

const STATUSES: readonly string[] = JOB_STATUSES;

/** The trigger's settings, checked: a wrong value would silently watch nothing, so it stops the poll instead. */
function trackerOptions(context: IPollFunctions): TrackerOptions {
	const filters = (context.getNodeParameter('filters', {}) as IDataObject) ?? {};
	const triggerOn = context.getNodeParameter('triggerOn', 'statuses');
	if (triggerOn !== 'statuses' && triggerOn !== 'anyChange') throw badSetting(context, 'Trigger On must be "statuses" or "anyChange"');
	let watch: TrackerOptions['watch'] = 'anyChange';
	if (triggerOn === 'statuses') {
		const statuses = context.getNodeParameter('statuses', []);
		if (!Array.isArray(statuses) || statuses.some((status) => !STATUSES.includes(String(status).toUpperCase()))) {
			throw badSetting(context, `Statuses to Watch must be a list among ${STATUSES.join(', ')}`);
		}
		watch = statuses.map((status) => String(status).toUpperCase());
	}
	const text = (value: unknown, label: string): string | undefined => {
		if (value === undefined || value === null) return undefined;
		if (typeof value !== 'string' && typeof value !== 'number') throw badSetting(context, `${label} filter must be text`);
		return String(value).trim() || undefined;
	};
	return {
		watch,
		flowName: text(filterValue(filters.flowName), 'Flow Name'),
		runProfileName: text(filterValue(filters.runProfileName), 'Run Profile'),
		startFrom: context.getNodeParameter('startFrom', 'now') === 'existing' ? 'existing' : 'now',
	};
}

/** 0 or a non-number would stop reading jobs that fell off the capped lists, and they would never fire. */
function readMaxReads(context: IPollFunctions, options: IDataObject): number {
	const raw = options.maxIndividualReads ?? DEFAULT_MAX_INDIVIDUAL_READS;
	if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > 500) {
		throw badSetting(context, `Max Individual Reads per Poll must be a whole number from 1 to 500, got ${describeGiven(raw, { values: true })}`);
	}
	return raw;
}

function readOnGap(context: IPollFunctions, options: IDataObject): 'logOnly' | 'emitItem' {
	const raw = options.onPossibleGap ?? 'logOnly';
	if (raw !== 'logOnly' && raw !== 'emitItem') throw badSetting(context, 'On Possible Gap must be "logOnly" or "emitItem"');
	return raw;
}

function badSetting(context: IPollFunctions, message: string): NodeOperationError {
	return new NodeOperationError(context.getNode(), message, { description: 'Fix the trigger setting; the trigger stores nothing until then.' });
}

interface Listed {
	jobs: JobSnapshot[];
	dropped: number;
}

async function listJobs(
	context: IPollFunctions,
	connection: ResolvedConnection,
	filter: 'active' | 'history',
	bound: { deadline: number; startedAt: number },
): Promise<Listed> {
	const { jobs, listed } = await readJobList.call(context, connection, filter, bound);
	// Entries that are not objects are dropped by readJobList; the tracker counts and skips the other unreadable ones.
	return { jobs: jobs as JobSnapshot[], dropped: listed - jobs.length };
}

/** How events become items: version 1's shape, or version 2's (Simplify on by default). */
function outputOf(context: IPollFunctions, options: IDataObject): EventOutput {
	const version = nodeVersion(context);
	const simplify = version >= 2 ? context.getNodeParameter('simplify', true) : false;
	if (typeof simplify !== 'boolean') throw badSetting(context, `Simplify must be true or false, got ${describeGiven(simplify)}`);
	return { version, parseLog: options.parseLog === true, simplify };
}

/** "Fetch test event": the most recent matching job, with the same filters, and no state written. */
function testEvent(
	context: IPollFunctions,
	tracker: TrackerOptions,
	active: JobSnapshot[],
	history: JobSnapshot[],
	output: EventOutput,
): INodeExecutionData[] {
	const watch = tracker.watch;
	const matches = emissionFilter(tracker);
	const matching = [...active, ...history].flatMap((job): TrackedJob[] => {
		const id = readableJobId(job);
		return id !== null && matches({ job }) ? [{ ...job, id }] : [];
	});
	const latest = matching.sort((a, b) => recency(b) - recency(a))[0];
	if (!latest) {
		const statuses = watch === 'anyChange' ? 'any status' : watch.join(', ') || 'no status';
		const filters = [tracker.flowName && `flow "${tracker.flowName}"`, tracker.runProfileName && `run profile "${tracker.runProfileName}"`]
			.filter(Boolean)
			.join(' and ');
		throw new NodeOperationError(context.getNode(), 'No job matches the trigger settings yet', {
			description: `Checked ${active.length} active and ${history.length} finished jobs: none is in ${statuses}${filters ? ` with ${filters}` : ''}. Submit a job, or widen Statuses to Watch and Filters.`,
		});
	}
	return [
		{
			json: eventJson(
				{ job: latest, event: 'newJob', status: normalizeStatus(latest.executionStatus), previousStatus: null, skippedStatuses: [] },
				output,
			),
		},
	];
}

function recency(job: JobSnapshot): number {
	return toMillis(job.endTime) ?? toMillis(job.startTime) ?? toMillis(job.currentStepStartTime) ?? 0;
}
