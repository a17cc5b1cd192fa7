/**
 * What must hold on every fuzz run, whatever the service did. Each check names its bound; a violation says what was
 * measured against it.
 */
import * as tracker from '../../nodes/JobExecutionTrigger/jobStatusTracker';
import { wallCeiling } from '../../nodes/shared/transport/deadlineClock';
import type { ChildReport } from './protocol';
import {
	blockBoundMs,
	DEFAULT_STATE_BOUND_BYTES,
	EVENT_LOOP_BLOCK_MS,
	HEARTBEAT_KILL_MS,
	limitsFor,
	OUTPUT_BYTES_BOUND,
	outputItemsBound,
	RSS_CAP_MB,
	SLACK_MS,
} from './protocol';
import type { Scenario } from './scenario';
import type { ServedRequest } from './service';
import type { JobKind } from './world';

export const INVARIANTS = [
	'survives',
	'memory',
	'eventLoop',
	'timeBound',
	'keysStayHome',
	'outputBounded',
	'noEventLostOrDoubled',
	'triggerKeepsFiring',
	'stateBound',
	'pacing',
	'answerNotRetried',
	'submitOnce',
	'lateSaidLate',
	'harness',
] as const;
export type Invariant = (typeof INVARIANTS)[number];

export interface Violation {
	invariant: Invariant;
	detail: string;
}

/** The trigger's own bound when it exports one, else the README's 100 KiB. */
export const STATE_BOUND_BYTES: number =
	typeof (tracker as Record<string, unknown>).MAX_STATE_BYTES === 'number' ? ((tracker as Record<string, unknown>).MAX_STATE_BYTES as number) : DEFAULT_STATE_BOUND_BYTES;

/** Everything the runner saw of one run. */
export interface Observed {
	scenario: Scenario;
	report?: ChildReport;
	/** Why the runner ended the child, if it did. */
	killed?: 'memory' | 'blocked' | 'time';
	/** How the child ended during the run, or code 0 and no signal when it lived on, ready for the next seed. */
	exit: { code: number | null; signal: string | null };
	harnessError?: string;
	peakRssMb: number;
	/** Longest silence of the child's heartbeat. */
	longestSilenceMs: number;
	requests: ServedRequest[];
	recorderRequests: number;
	/** Secrets seen in the child's stdout or stderr. */
	secretInConsole: boolean;
	stderrTail: string;
	world?: { kinds: Map<string, JobKind>; saneEnded: Array<{ id: string; poll: number }> };
	visible: Map<number, { active: boolean; history: boolean; ids: string[] }>;
	/** Time the runner held the trigger back for a Retry-After, counted out of its bound. */
	heldMs: number;
	/** The call limit in effect in the child (its transport's test knob, or the transport's default). */
	callMs?: number;
}

/** How far a limit stretches in wall time: on a loop other work keeps busy, to its wall ceiling (three times it). */
function stretch(scenario: Scenario): number {
	return scenario.busyLoop ? wallCeiling.factor : 1;
}

/** The wall-clock bound of a run: its calls' limits, the Wait Timeout, and spare time. */
export function timeBoundMs(scenario: Scenario, heldMs = 0, limitMs = limitsFor(scenario).callMs): number {
	const callMs = limitMs * stretch(scenario);
	const wait = scenario.wait ? scenario.wait.timeout * 1000 * stretch(scenario) : 0;
	switch (scenario.target) {
		case 'navigationUrl':
			return SLACK_MS;
		case 'listSearch':
			return 2 * callMs + SLACK_MS;
		case 'trigger':
			return scenario.polls * (callMs + 500) + SLACK_MS + heldMs;
		default:
			// As a tool under Retry On Fail, n8n runs the node up to maxTries times (makeHandleToolInvocation).
			return (callMs + wait) * (scenario.tool?.maxTries ?? 1) + SLACK_MS;
	}
}

function survival(observed: Observed): Violation[] {
	const { killed, report, exit } = observed;
	if (observed.harnessError) return [{ invariant: 'harness', detail: observed.harnessError }];
	if (killed === 'memory') return [{ invariant: 'memory', detail: `resident memory passed ${RSS_CAP_MB} MiB (peak seen ${observed.peakRssMb} MiB): killed` }];
	if (killed === 'blocked') return [{ invariant: 'eventLoop', detail: `no heartbeat for ${observed.longestSilenceMs} ms (killed after ${HEARTBEAT_KILL_MS} ms; bound ${EVENT_LOOP_BLOCK_MS} ms)` }];
	if (killed === 'time') return [{ invariant: 'timeBound', detail: `still running after ${timeBoundMs(observed.scenario, observed.heldMs, observed.callMs)} ms + grace: killed` }];
	// A child serving further seeds records exit code 0 once it is ready for the next; one that died records how.
	if (!report || exit.code !== 0 || exit.signal) {
		const fatal = observed.stderrTail.split('\n').find((line) => /fatal|error|abort|heap/i.test(line)) ?? '';
		const when = report ? 'after reporting, before it was ready for another seed' : 'before reporting';
		return [{ invariant: 'survives', detail: `process ended with code ${exit.code} signal ${exit.signal} ${when}${fatal ? `: ${fatal.trim().slice(0, 200)}` : ''}` }];
	}
	return [];
}

function resources(observed: Observed, report: ChildReport): Violation[] {
	const violations: Violation[] = [];
	const peak = Math.max(observed.peakRssMb, report.peakRssMb);
	if (peak > RSS_CAP_MB) violations.push({ invariant: 'memory', detail: `peak resident memory ${peak} MiB (bound ${RSS_CAP_MB} MiB)` });
	const blockBound = blockBoundMs(observed.scenario);
	if (report.maxLagMs > blockBound) violations.push({ invariant: 'eventLoop', detail: `event loop blocked ${report.maxLagMs} ms of CPU (bound ${blockBound} ms)` });
	const bound = timeBoundMs(observed.scenario, observed.heldMs, observed.callMs);
	if (report.elapsedMs > bound) violations.push({ invariant: 'timeBound', detail: `ran ${report.elapsedMs} ms (bound ${bound} ms)` });
	const pollBound = (observed.callMs ?? limitsFor(observed.scenario).callMs) * stretch(observed.scenario) + SLACK_MS;
	for (const poll of report.polls ?? []) {
		if (poll.ms > pollBound) violations.push({ invariant: 'timeBound', detail: `poll ${poll.poll} took ${poll.ms} ms (bound ${pollBound} ms)` });
	}
	return violations;
}

function keysAndOutput(observed: Observed, report: ChildReport): Violation[] {
	const violations: Violation[] = [];
	if (observed.recorderRequests > 0) violations.push({ invariant: 'keysStayHome', detail: `${observed.recorderRequests} request(s) reached another origin` });
	if (report.secretsFound.length > 0) violations.push({ invariant: 'keysStayHome', detail: `a key showed in: ${report.secretsFound.join(', ')}` });
	if (observed.secretInConsole) violations.push({ invariant: 'keysStayHome', detail: 'a key showed on the process console' });
	const { output } = report;
	const problems = [
		output.items > outputItemsBound(observed.scenario.target) ? `${output.items} items (bound ${outputItemsBound(observed.scenario.target)})` : '',
		output.bytes > OUTPUT_BYTES_BOUND || !output.scanned ? `${(output.bytes / 2 ** 20).toFixed(1)} MiB of text (bound ${OUTPUT_BYTES_BOUND / 2 ** 20} MiB)` : '',
		output.serialisable ? '' : `not serialisable as JSON (nested ${output.maxDepth} deep)`,
	].filter(Boolean);
	if (problems.length > 0) violations.push({ invariant: 'outputBounded', detail: `output ${problems.join('; ')}` });
	return violations;
}

/** Sane jobs: exactly one event once a readable list showed them ended; lying but stable jobs: at most one. */
function events(observed: Observed, report: ChildReport): Violation[] {
	const { world, scenario } = observed;
	if (scenario.target !== 'trigger' || !world || !report.polls) return [];
	const counts = new Map<string, number>();
	for (const poll of report.polls) for (const [id] of poll.events) counts.set(id, (counts.get(id) ?? 0) + 1);
	const shown = (id: string, from: number) =>
		[...observed.visible].some(([poll, seen]) => poll >= from && seen.active && seen.history && seen.ids.includes(id));
	const lost = world.saneEnded.filter(({ id, poll }) => poll >= 1 && shown(id, poll) && !counts.has(id));
	const doubled = [...counts].filter(([id, count]) => count > 1 && world.kinds.get(id) !== 'chaotic');
	const violations: Violation[] = [];
	if (lost.length > 0) {
		violations.push({ invariant: 'noEventLostOrDoubled', detail: `${lost.length} sane job(s) never fired although a readable list showed them ended (first ${lost[0].id}, ended at poll ${lost[0].poll})` });
	}
	if (doubled.length > 0) {
		const total = doubled.reduce((sum, [, count]) => sum + count - 1, 0);
		violations.push({ invariant: 'noEventLostOrDoubled', detail: `${total} duplicate event(s) for ${doubled.length} job(s) (first ${doubled[0][0].slice(0, 60)}: ${doubled[0][1]} events)` });
	}
	const saneStart = scenario.polls - scenario.sanePolls;
	const dueLate = world.saneEnded.some(({ id, poll }) => poll >= saneStart && shown(id, poll));
	const firedLate = report.polls.slice(saneStart).some((poll) => poll.events.length > 0);
	if (dueLate && !firedLate) {
		const errors = report.polls.slice(saneStart).map((poll) => poll.error ?? 'no event').join(' | ');
		violations.push({ invariant: 'triggerKeepsFiring', detail: `no event in the last ${scenario.sanePolls} polls of a service that behaves again: ${errors.slice(0, 300)}` });
	}
	const biggest = Math.max(0, ...report.polls.map((poll) => poll.stateBytes));
	if (biggest > STATE_BOUND_BYTES) violations.push({ invariant: 'stateBound', detail: `stored state ${(biggest / 1024).toFixed(1)} KiB (bound ${(STATE_BOUND_BYTES / 1024).toFixed(0)} KiB)` });
	return violations;
}

/** A Retry-After is waited out on its route; a wait reads its job at most once per Poll Interval. */
function pacing(observed: Observed): Violation[] {
	const violations: Violation[] = [];
	const { requests, scenario } = observed;
	for (const [n, asked] of requests.entries()) {
		if (asked.retryAfterMs === undefined) continue;
		const until = asked.at + Math.min(asked.retryAfterMs, 86_400_000) - (asked.retryAfterDate ? 1000 : 100);
		const early = requests.slice(n + 1).find((later) => later.route === asked.route && later.at < until);
		if (early) {
			violations.push({ invariant: 'pacing', detail: `Retry-After of ${Math.round(asked.retryAfterMs / 1000)} s on ${asked.route} ignored: asked again after ${early.at - asked.at} ms` });
			break;
		}
	}
	if (scenario.wait) {
		const reads = requests.filter((request) => request.route === 'read');
		const intervalMs = scenario.wait.pollInterval * 1000;
		const gaps = reads.slice(1).map((read, n) => read.at - reads[n].at);
		const short = gaps.filter((gap) => gap < intervalMs - 100);
		if (short.length > 0) {
			violations.push({ invariant: 'pacing', detail: `the job was read again sooner than its Poll Interval (${scenario.wait.pollInterval} s) ${short.length} time(s): ${short.slice(0, 6).join(', ')} ms after the read before` });
		}
	}
	return violations;
}

/**
 * A complete 200 is an answer, however absurd (a bomb, a huge list): it is never asked for again within the same
 * call or poll (issue 20: "its own error, never retried"). Drips, silence and headers only are not complete answers,
 * nor is one the client stopped reading at its deadline (never delivered whole). Waits read their job again by design
 * and are left out.
 */
function answersNotRetried(observed: Observed): Violation[] {
	const { scenario, requests } = observed;
	const callOf = (request: ServedRequest) => `${request.route}@${scenario.target === 'trigger' ? request.poll : 0}`;
	for (const [n, request] of requests.entries()) {
		const answered = request.status === 200 && request.delivered === true && request.fault?.fault.kind !== 'slow';
		if (!answered || request.route === 'read' || (scenario.target !== 'trigger' && scenario.target !== 'listSearch' && scenario.target !== 'getMany' && scenario.target !== 'credentialTest')) continue;
		const again = requests.slice(n + 1).find((later) => callOf(later) === callOf(request));
		if (again) {
			const what = request.fault ? `${request.fault.className} answer` : 'answer';
			return [{ invariant: 'answerNotRetried', detail: `a complete HTTP 200 ${what} on ${request.route} was asked for again ${again.at - request.at} ms later` }];
		}
	}
	return [];
}

/**
 * One job per invocation: once a submission may have created the job (an answer of 2xx or 5xx, or none in time),
 * nothing submits again in the run, whoever retries (n8n's Retry On Fail for nodes or for tools). A 3xx or 4xx
 * answer may have refused it, and a retry may send it again.
 */
function submitsOnce({ requests }: Observed): Violation[] {
	const submissions = requests.filter((request) => request.route === 'submit');
	const first = submissions.findIndex((request) => request.status < 300 || request.status >= 500);
	if (first === -1 || first === submissions.length - 1) return [];
	const again = submissions.length - 1 - first;
	return [{ invariant: 'submitOnce', detail: `submitted ${again} more time(s) after a submission answered HTTP ${submissions[first].status} (the job may exist)` }];
}

/**
 * A service that only ever held its answers (drip, silence, headers only) is late, not unreachable: the run's error
 * says it did not answer in time. Found when a helper timer of the same instant as the deadline won the race and
 * the failure read as a network one.
 */
function lateSaidLate({ requests }: Observed, report: ChildReport): Violation[] {
	if (requests.length === 0 || !requests.every((request) => request.fault?.fault.kind === 'slow')) return [];
	const errors = [report.error, ...(report.polls ?? []).map((poll) => poll.error)].filter((error): error is string => typeof error === 'string');
	const wrong = errors.find((error) => /(cannot|could not) be reached/.test(error));
	return wrong ? [{ invariant: 'lateSaidLate', detail: `every request met a slow answer, yet the run said: ${wrong.split('\n')[0].slice(0, 300)}` }] : [];
}

/** The fuzzer's own guard: against a service that behaves, every run succeeds (else its checks prove nothing). */
function saneRunSucceeds({ scenario }: Observed, report: ChildReport): Violation[] {
	if (scenario.classes.length !== 1 || scenario.classes[0] !== 'sane') return [];
	const failed = report.error ? `failed: ${report.error.split('\n')[0]}` : report.resultStatus !== undefined && report.resultStatus !== 'OK' ? `credential test said ${report.resultStatus}` : '';
	const pollFailed = report.polls?.find((poll) => poll.error);
	const problem = failed || (pollFailed ? `poll ${pollFailed.poll} failed: ${pollFailed.error}` : '');
	return problem ? [{ invariant: 'harness', detail: `a run against a service that behaves ${problem}` }] : [];
}

export function checkInvariants(observed: Observed): Violation[] {
	const fatal = survival(observed);
	const { report } = observed;
	const pace = [...pacing(observed), ...answersNotRetried(observed), ...submitsOnce(observed)];
	const home = observed.recorderRequests > 0 ? [{ invariant: 'keysStayHome' as const, detail: `${observed.recorderRequests} request(s) reached another origin` }] : [];
	if (fatal.length > 0 || !report) return [...fatal, ...pace, ...home];
	return [...resources(observed, report), ...keysAndOutput(observed, report), ...events(observed, report), ...pace, ...lateSaidLate(observed, report), ...saneRunSucceeds(observed, report)];
}
