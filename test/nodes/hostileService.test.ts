/**
 * Every operation and the trigger, native (Bearer, Basic, custom header) and relay, through n8n's engine against a
 * service that misbehaves on purpose (testkit/hostileServer.ts): redirects of every 3xx code to another host
 * that records what reaches it (nothing may), answers that drip, never come or stop after the headers (each run
 * ends within a stated bound), echoes of every request header in every error status (no secret in any form in any
 * message, item or trigger error), lists with bad ids and 100,000 jobs, status flips and unknown statuses.
 */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { jobsToReadIndividually, loadState } from '../../nodes/JobExecutionTrigger/jobStatusTracker';
import { MAX_PARSED_LOG_CHARS } from '../../nodes/shared/logParser';
import { cutMarker, LIST_KEPT_WHOLE_BYTES, MAX_JOBS_PER_LIST, MAX_STRING_CHARS, transportTiming, wallCeiling } from '../../nodes/shared/transport';
import { freePort } from '../../host/n8n';
import { slowOnlyClock } from '../../testkit/deadline';
import { NODE_NAME, runActionNode } from '../../testkit/engine';
import { searchList } from '../../testkit/listSearch';
import type { CredentialsMap } from '../../testkit/engine';
import {
	brotliZeros,
	ECHO_FORMS,
	gzipDeepJob,
	gzipJobList,
	gzipJobWithLog,
	headerLines,
	jobStatus,
	startHostileServer,
	startRecorder,
	transform,
} from '../../testkit/hostileServer';
import type { Answer, EchoForm, HostileRequest, Listener, Script } from '../../testkit/hostileServer';
import { createPoller } from '../../testkit/poller';
import { expectNoSecrets, secretSearch } from '../../testkit/secrets';

const JOB = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const FLOW_ID = '3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10';

type Variant = 'bearer' | 'basic' | 'header' | 'relay';
const VARIANTS: Variant[] = ['bearer', 'basic', 'header', 'relay'];
type Target = 'submit' | 'submitAndWait' | 'get' | 'getStatus' | 'getMany' | 'wait' | 'trigger';
const TARGETS: Target[] = ['submit', 'submitAndWait', 'get', 'getStatus', 'getMany', 'wait', 'trigger'];

/**
 * Every credential of every variant, so that a check for secrets covers them all. The keys hold every character an
 * escape changes, and `>>>???` puts a `+` and a `/` into their base64 at every alignment.
 */
function credentialsFor(url: string): Record<Variant, CredentialsMap> {
	const native = (extra: IDataObject) => ({ jobExecutionApi: { baseUrl: url, ...extra } }) as CredentialsMap;
	const symbols = `>>>???&<"'+/%`;
	return {
		bearer: native({ authType: 'bearerToken', token: `hostile-token${symbols}7e1d9a` }),
		basic: native({ authType: 'basicAuth', user: 'alice', password: `hostile-pass${symbols}3c5b8f` }),
		header: native({ authType: 'headerAuth', headerName: 'X-Api-Secret', headerSecret: `hostile-header${symbols}9f2e4c` }),
		relay: { jobExecutionRelayApi: { relayUrl: url, apiKey: `hostile-relay${symbols}5a7c1e`, userApiKey: `hostile-user${symbols}2b8d6f` } },
	};
}

/** Submit with wait sleeps one Poll Interval (1 s) before its first read: its Timeout is 2 s so that it reads. */
function parameters(target: Target, variant: Variant, waitSeconds = target === 'submitAndWait' ? 2 : 1): INodeParameters {
	const authentication = variant === 'relay' ? 'jobExecutionRelayApi' : 'jobExecutionApi';
	const flow = variant === 'relay' ? { flowId: FLOW_ID } : { flowFileName: '/Shared/Flows/sales.flow' };
	const waitSettings = { pollInterval: 1, timeout: waitSeconds };
	const byTarget: Record<Target, INodeParameters> = {
		submit: { resource: 'job', operation: 'submit', ...flow, runProfileName: 'default' },
		submitAndWait: { resource: 'job', operation: 'submit', ...flow, runProfileName: 'default', waitForCompletion: true, waitSettings },
		get: { resource: 'job', operation: 'get', jobId: JOB },
		getStatus: { resource: 'job', operation: 'get', jobId: JOB, options: { statusOnly: true } },
		getMany: { resource: 'job', operation: 'getMany', returnAll: true },
		wait: { resource: 'job', operation: 'waitForCompletion', jobId: JOB, waitSettings },
		trigger: {},
	};
	return { authentication, ...byTarget[target] };
}

/** Submit and wait: the submit is answered honestly, so that the hostile answers reach its wait. */
function scriptFor(target: Target, hostile: Script): Script {
	if (target !== 'submitAndWait') return hostile;
	return (request) => (request.method === 'POST' ? { kind: 'json', body: { jobId: JOB } } : hostile(request));
}

/** Runs one target once against `url`; the outcome is its error (thrown, or the continue-on-fail item). */
async function runTarget(target: Target, variant: Variant, url: string, options: { continueOnFail?: boolean; waitSeconds?: number } = {}) {
	const all = credentialsFor(url);
	const credentials = all[variant];
	const started = Date.now();
	const loop = slowOnlyClock();
	if (target === 'trigger') {
		const poller = createPoller(parameters(target, variant), credentials);
		const error = (await poller.poll().then(
			() => undefined,
			(thrown: unknown) => thrown,
		)) as (Error & { description?: string }) | undefined;
		const elapsedMs = Date.now() - started;
		const loopMs = loop.stop();
		const serialized = error ? JSON.stringify(error, Object.getOwnPropertyNames(error)) + String(error.stack) : '';
		expect(secretSearch({ ...all.bearer, ...all.basic, ...all.header, ...all.relay })(serialized)).toBeUndefined();
		return { message: error?.message ?? '', description: error?.description ?? '', elapsedMs, loopMs };
	}
	const result = await runActionNode({ credentials, continueOnFail: options.continueOnFail, parameters: parameters(target, variant, options.waitSeconds) });
	const elapsedMs = Date.now() - started;
	const loopMs = loop.stop();
	expectNoSecrets(result, { ...all.bearer, ...all.basic, ...all.header, ...all.relay });
	const item = options.continueOnFail ? result.json[0] : undefined;
	return {
		message: String(item?.error ?? result.error?.message ?? ''),
		description: String(item?.description ?? result.error?.description ?? ''),
		elapsedMs,
		loopMs,
	};
}

const figures = { runs: 0, keysAtOtherHost: 0, longestSlowRunMs: 0, slowRuns: 0, stateAt100k: '' };
const savedTiming = { ...transportTiming, retryDelaysMs: [...transportTiming.retryDelaysMs] };

/** Short wall-clock limits for the slow-answer cases: the bounds are the same code with other figures. */
const SHORT_LIMITS = { attemptMs: 1000, callMs: 2000 };
/** What a run may take past its ceiling by the loop's clock: building the workflow, the timer's own turn. */
const LOOP_SLACK_MS = 500;

beforeAll(() => {
	// Retries without real backoff; the default wall-clock limits, except where a test sets SHORT_LIMITS.
	transportTiming.retryDelaysMs = [1, 1, 1];
});

afterAll(() => {
	Object.assign(transportTiming, savedTiming);
	process.stdout.write(
		`hostile service: ${figures.runs} runs; requests reaching the redirect target: ${figures.keysAtOtherHost}; ` +
			`slow answers: ${figures.slowRuns} runs, longest ${figures.longestSlowRunMs} ms (call limit 2 s; Wait Timeout 2 s, 3 s for submit and wait); ` +
			`${figures.stateAt100k}\n`,
	);
});

let servers: Listener[] = [];
afterEach(async () => {
	await Promise.all(servers.map((server) => server.close()));
	servers = [];
});

async function hostile(script: Script): Promise<Listener> {
	const server = await startHostileServer(script);
	servers.push(server);
	return server;
}

const REDIRECTS = [301, 302, 303, 307, 308];
const ERROR_STATUSES = [400, 401, 403, 404, 409, 413, 422, 429, 500, 502, 503];
const SLOW: Array<'drip' | 'silent' | 'headersOnly'> = ['drip', 'silent', 'headersOnly'];

/** What each target says when its answers never finish. */
const WAITED_FOR: Record<Target, string> = {
	submit: 'for the submission within',
	submitAndWait: `Timed out after 3 s waiting for job ${JOB}: last status not read yet; the last read failed: the service did not answer in time`,
	get: `for job ${JOB} within`,
	getStatus: `for job ${JOB} within`,
	getMany: 'for the job list within',
	wait: `Timed out after 2 s waiting for job ${JOB}: last status not read yet; the last read failed: the service did not answer in time`,
	trigger: 'for the active job list within',
};

// Each table runs its cases side by side: a wait cannot take less than its 1 s Poll Interval or Timeout.
describe('a service that misbehaves on purpose, every target, native and relay', () => {
	test('HTTP 301/302/303/307/308 to another host: an error naming the status and host, nothing reaches that host', async () => {
		const recorder = await startRecorder();
		servers.push(recorder);
		const cases = REDIRECTS.flatMap((status) => VARIANTS.flatMap((variant) => TARGETS.map((target) => ({ status, variant, target }))));
		await Promise.all(
			cases.map(async ({ status, variant, target }, n) => {
				const server = await hostile(scriptFor(target, (request) => ({ kind: 'redirect', status, location: `${recorder.url}${request.raw.url}` })));
				// A redirect ends the run at once: the long Wait Timeout only keeps a loaded machine from turning it into a time-out.
				const outcome = await runTarget(target, variant, server.url, { continueOnFail: n % 2 === 0, waitSeconds: 30 });
				figures.runs++;
				expect(outcome.message).toContain(`redirect (HTTP ${status}) to ${recorder.host}: not followed, the keys were not sent there`);
				if (target === 'submit') expect(outcome.description).toContain('may have accepted the job');
				if (target === 'submitAndWait') expect(outcome.description).toContain(`Job ${JOB} was submitted`);
			}),
		);
		figures.keysAtOtherHost += recorder.requests.length;
		expect(recorder.requests).toEqual([]);
	});

	test('drip, silence, headers only: each run ends by its configured limit (call limit, or Wait Timeout), reads nothing past it, and says what it waited for', async () => {
		Object.assign(transportTiming, SHORT_LIMITS);
		try {
			const cases = SLOW.flatMap((kind) => (['bearer', 'relay'] as Variant[]).flatMap((variant) => TARGETS.map((target) => ({ kind, variant, target }))));
			await Promise.all(
				cases.map(async ({ kind, variant, target }) => {
					const server = await hostile(scriptFor(target, () => ({ kind }) as Answer));
					const outcome = await runTarget(target, variant, server.url, { waitSeconds: target === 'submitAndWait' ? 3 : 2 });
					figures.runs++;
					figures.slowRuns++;
					figures.longestSlowRunMs = Math.max(figures.longestSlowRunMs, outcome.elapsedMs);
					// Against the configured limit: the call limit (2 s) or the Wait Timeout (2 s; 3 s for submit and wait),
					// which a busy n8n stretches to its wall ceiling at most; without it these runs never end. Timed by a
					// clock that a loaded machine only slows. No read or list is tried past it: at most call / attempt limit.
					const deadlineMs = target === 'submitAndWait' ? 3000 : SHORT_LIMITS.callMs;
					expect(outcome.loopMs).toBeLessThan(deadlineMs * wallCeiling.factor + LOOP_SLACK_MS);
					const reads = server.requests.filter((request) => request.method !== 'POST').length;
					expect(reads).toBeLessThanOrEqual(target === 'submit' ? 0 : SHORT_LIMITS.callMs / SHORT_LIMITS.attemptMs);
					expect(outcome.message).toContain(WAITED_FOR[target]);
					if (target === 'submit') expect(outcome.description).toContain('may have accepted the job');
				}),
			);
		} finally {
			Object.assign(transportTiming, { attemptMs: savedTiming.attemptMs, callMs: savedTiming.callMs });
		}
	});

	test('with the default 60 s call limit, a Wait Timeout of 2 s against a drip ends by that Timeout, after one read; a refused port times out in words n8n keeps', async () => {
		// A port below the ephemeral range: one closed after use could be taken by a drip server here (a CI run once was).
		const refused = { url: `http://127.0.0.1:${await freePort()}` };
		const drips = (['bearer', 'relay'] as Variant[]).flatMap((variant) =>
			(['wait', 'submitAndWait'] as Target[]).map(async (target) => {
				const server = await hostile(scriptFor(target, () => ({ kind: 'drip' })));
				const outcome = await runTarget(target, variant, server.url, { waitSeconds: 2 });
				figures.runs++;
				// Against the Timeout (at most its wall ceiling on a busy n8n): a read not bounded by it would run to the
				// 20 s attempt limit. Timed by a clock that a loaded machine only slows.
				expect(outcome.loopMs).toBeLessThan(2000 * wallCeiling.factor + LOOP_SLACK_MS);
				expect(transportTiming.attemptMs).toBeGreaterThan(2 * (2000 * wallCeiling.factor + LOOP_SLACK_MS));
				expect(server.requests.filter((request) => request.method === 'GET')).toHaveLength(1);
				expect(outcome.message).toMatch(/^Timed out after 2 s waiting for job .*: last status not read yet; the last read failed: the service did not answer in time$/);
			}),
		);
		const refusedRun = runTarget('wait', 'bearer', refused.url, { waitSeconds: 5 }).then((outcome) => {
			figures.runs++;
			expect(outcome.message).toBe(`Timed out after 5 s waiting for job ${JOB}: last status not read yet; the last read failed: the service could not be reached`);
		});
		await Promise.all([...drips, refusedRun]);
	});

	test('every error status echoing every request header, in every form: no secret in any form in messages, items or trigger errors', async () => {
		const echoed: Array<{ variant: Variant; body: string }> = [];
		// Every form with every credential; the targets take turns, so each credential meets every target too.
		const cases = VARIANTS.flatMap((variant, v) =>
			ECHO_FORMS.map((form, f) => {
				const t = (v + f) % TARGETS.length;
				return { variant, target: TARGETS[t], form, f, status: ERROR_STATUSES[(t * ECHO_FORMS.length + f) % ERROR_STATUSES.length] };
			}),
		);
		await Promise.all(
			cases.map(async ({ variant, target, form, status, f }) => {
				const server = await hostile(scriptFor(target, () => ({ kind: 'echo', status, form, json: f % 2 === 0 })));
				// A Wait Timeout of 5 s, so that a loaded machine still sends the read whose answer echoes the keys.
				const outcome = await runTarget(target, variant, server.url, { continueOnFail: f % 3 !== 0, waitSeconds: 5 });
				figures.runs++;
				expect(outcome.message).not.toBe('');
				const last = server.requests[server.requests.length - 1] as HostileRequest;
				const lines = Object.entries(last.raw.headers).map(([name, value]) => `${name}: ${String(value)}`);
				echoed.push({ variant, body: transform(lines.join('; '), form) });
			}),
		);
		// The checks above can fail: what the server echoed did hold the secrets, in every case.
		const holdsSecret = ({ variant, body }: { variant: Variant; body: string }) => secretSearch(credentialsFor('http://x')[variant])(body) !== undefined;
		expect(echoed.filter(holdsSecret)).toHaveLength(cases.length);
	});
});

/** A trigger whose lists come from `lists()`, and n8n's logger watched for its one line per poll. */
async function triggerAgainst(variant: Variant, lists: () => { active: unknown; history: unknown }, parametersExtra: IDataObject = {}) {
	const server = await hostile((request) => {
		const current = lists();
		if (request.target.endsWith('filter=active')) return { kind: 'json', body: current.active } as Answer;
		if (request.target.endsWith('filter=history')) return { kind: 'json', body: current.history } as Answer;
		return { kind: 'json', status: 400, body: { message: 'unknown job' } } as Answer;
	});
	const credentials = credentialsFor(server.url)[variant];
	const poller = createPoller({ ...parameters('trigger', variant), ...parametersExtra } as INodeParameters, credentials);
	const warn = jest.spyOn(Container.get(Logger), 'warn');
	return { server, poller, warn };
}

const ids = (items: Array<{ json: IDataObject }> | null) => (items ?? []).map((item) => `${String(item.json.id)}:${normalize(item.json.executionStatus)}`);
const normalize = (status: unknown) => String(status).trim().toUpperCase();

describe.each(['bearer', 'relay'] as Variant[])('the trigger against lying lists (%s)', (variant) => {
	afterEach(() => jest.restoreAllMocks());

	test('jobs it cannot read are skipped, counted once per poll in the log, and never block later polls', async () => {
		const bad = [{ id: '..' }, { id: '.' }, { id: '' }, { id: 'a\r\nb' }, { id: 'x'.repeat(300) }, { id: {} }, { id: '__proto__' }, 'text', null, 42, { executionStatus: 'RUNNING' }];
		let good: unknown[] = [jobStatus('good-1', 'RUNNING', { start: 1_700_000_000_000 })];
		let history: unknown[] = [];
		const { server, poller, warn } = await triggerAgainst(variant, () => ({ active: [...bad, ...good], history: [...bad, ...history] }));
		expect(await poller.poll()).toBeNull();
		good = [];
		history = [jobStatus('good-1', 'COMPLETED', { start: 1_700_000_000_000, end: 1_700_000_060_000 })];
		expect(ids(await poller.poll())).toEqual(['good-1:COMPLETED']);
		expect(await poller.poll()).toBeNull();
		figures.runs += 3;
		const lines = warn.mock.calls.map(([line]) => String(line)).filter((line) => line.startsWith('Job Execution Trigger'));
		expect(lines).toHaveLength(3);
		// 11 per list and poll: the 3 that are not objects, and 8 objects without a usable id.
		expect(lines.every((line) => line.includes('skipped 22 listed job(s) without a usable ID'))).toBe(true);
		expect(server.requests.every((request) => /filter=(active|history)$/.test(request.target))).toBe(true);
	});

	test('RUNNING, then an unknown status with an end time, then COMPLETED: COMPLETED fires once', async () => {
		let job = jobStatus('flip-1', 'RUNNING', { start: 1_700_000_000_000 });
		const { poller } = await triggerAgainst(variant, () => ({ active: [job], history: [] }));
		expect(await poller.poll()).toBeNull();
		job = { ...job, executionStatus: 'ARCHIVED', endTime: 1_700_000_050_000 };
		expect(await poller.poll()).toBeNull();
		job = { ...job, executionStatus: ' completed ' };
		expect(ids(await poller.poll())).toEqual(['flip-1:COMPLETED']);
		expect(await poller.poll()).toBeNull();
		figures.runs += 4;
	});

	test('a finished job that reappears as RUNNING, then COMPLETED, after 900 newer jobs finished, does not fire again', async () => {
		const T = 1_700_000_000_000;
		const revenant = { start: T, end: T + 1000 };
		let active: unknown[] = [jobStatus('old-1', 'RUNNING', { start: T })];
		let history: unknown[] = [];
		const { poller } = await triggerAgainst(variant, () => ({ active, history }));
		expect(await poller.poll()).toBeNull();
		active = [];
		history = [jobStatus('old-1', 'COMPLETED', revenant)];
		expect(ids(await poller.poll())).toEqual(['old-1:COMPLETED']);
		for (let page = 0; page < 9; page++) {
			history = Array.from({ length: 100 }, (_, n) => jobStatus(`new-${page}-${n}`, 'COMPLETED', { start: T + 2000, end: T + 10_000 + page * 100 + n }));
			expect(await poller.poll()).toHaveLength(100);
		}
		active = [jobStatus('old-1', 'RUNNING', { start: T })];
		history = [];
		expect(await poller.poll()).toBeNull();
		active = [];
		history = [jobStatus('old-1', 'COMPLETED', revenant)];
		expect(await poller.poll()).toBeNull();
		figures.runs += 13;
	});
});

test('a state stored before the id rule, holding "..", loads without it: no poll reads it', () => {
	const stored = { version: 1, initialized: true, seq: 4, open: { '..': { status: 'RUNNING', seen: 1 }, ok: { status: 'RUNNING', seen: 2 } }, done: [['.', 5], ['done-1', 6]], horizon: null };
	const state = loadState(stored);
	expect(Object.keys(state.open)).toEqual(['ok']);
	expect(state.done).toEqual([['done-1', 0]]);
	expect(jobsToReadIndividually(state, [], [], 25)).toEqual(['ok']);
});

// Native only (the relay shares the tracker and the list reading).
describe('the trigger against lists far over the 100 the service promises', () => {
	afterEach(() => jest.restoreAllMocks());
	const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
	const listOf = (count: number) => JSON.stringify(Array.from({ length: count }, (_, n) => jobStatus(uuid(n), 'RUNNING', { start: 1_700_000_000_000 + n })));

	test('5,000 jobs: the state stays bounded (under 100 KiB), the log says what was left, and nothing fires twice', async () => {
		const variant: Variant = 'bearer';
		const active = listOf(5_000);
		const server = await hostile((request) => ({ kind: 'raw', text: request.target.endsWith('filter=active') ? active : '[]' }));
		const poller = createPoller({ ...parameters('trigger', variant), triggerOn: 'anyChange' }, credentialsFor(server.url)[variant]);
		const warn = jest.spyOn(Container.get(Logger), 'warn');
		const started = Date.now();
		expect(await poller.poll()).toBeNull();
		const firstPollMs = Date.now() - started;
		expect(await poller.poll()).toBeNull();
		figures.runs += 2;
		const size = JSON.stringify(poller.storedState()).length;
		expect(size).toBeLessThan(100 * 1024);
		expect(String(warn.mock.calls.at(-1)?.[0])).toContain('read only the first 500 jobs of a list, leaving 4500');
		figures.stateAt100k = `state at 5,000 listed jobs: ${(size / 1024).toFixed(1)} KiB, first poll ${firstPollMs} ms`;
	});

	test('100,000 jobs (18 MB): the poll fails at once saying the answer holds too many values, one request per poll, state unchanged', async () => {
		const variant: Variant = 'bearer';
		const active = listOf(100_000);
		expect(active.length).toBeGreaterThan(LIST_KEPT_WHOLE_BYTES);
		const server = await hostile((request) => ({ kind: 'raw', text: request.target.endsWith('filter=active') ? active : '[]' }));
		const poller = createPoller(parameters('trigger', variant), credentialsFor(server.url)[variant]);
		const before = JSON.stringify(poller.storedState());
		await expect(poller.poll()).rejects.toThrow(`The service's answer holds more than 100,000 values (HTTP 200)`);
		expect(server.requests).toHaveLength(1);
		expect(JSON.stringify(poller.storedState())).toBe(before);
		figures.runs++;
	});
});

describe.each(['bearer', 'relay'] as Variant[])('one reading of statuses in the operations (%s)', (variant) => {
	test('the wait ends on " completed " and returns the job; Get Many matches a status filter whatever its case', async () => {
		const server = await hostile((request) =>
			request.target.startsWith('/api/v1/jobs/')
				? { kind: 'json', body: jobStatus(JOB, ' completed ', { start: 1, end: 2 }) }
				: { kind: 'json', body: [jobStatus('a', 'completed'), jobStatus('b', 'Running'), jobStatus('c', ' ERROR')] },
		);
		const credentials = credentialsFor(server.url)[variant];
		const waited = await runActionNode({ credentials, parameters: parameters('wait', variant) });
		expect(waited.error).toBeUndefined();
		expect(waited.json[0].id).toBe(JOB);
		const listed = await runActionNode({
			credentials,
			parameters: { ...parameters('getMany', variant), filters: { executionStatus: ['COMPLETED', 'ERROR'] } } as INodeParameters,
		});
		expect(listed.json.map((job) => job.id)).toEqual(['a', 'c']);
		figures.runs += 2;
	});
});

/** Every answer is bounded before it is believed (nodes/shared/transport/answer.ts), on every path to the service. */
describe('answers beyond the bounds: bytes, values, nesting, items, log size', () => {
	const credentials = (url: string) => credentialsFor(url).bearer;
	/** What a job list says of each bomb: it is streamed (not kept) up to 256 MiB, and its values are counted as they come. */
	const listRefusal: Record<string, string> = {
		'br, 1 KB → 142,606,336 zeros': 'holds more than 100,000 values',
		'multi-member gzip, 0.3 MB → a 288 MiB log': 'is larger than 256 MiB',
		'gzip, 2.7 MB → 1,000,000 listed jobs': 'holds more than 100,000 values',
	};
	const bombs: Record<string, () => Promise<Answer>> = {
		'br, 1 KB → 142,606,336 zeros': async () => ({ kind: 'encoded', encoding: 'br', bytes: await brotliZeros(136) }),
		'multi-member gzip, 0.3 MB → a 288 MiB log': async () => ({ kind: 'encoded', encoding: 'gzip', bytes: gzipJobWithLog(JOB, 288) }),
		'gzip, 2.7 MB → 1,000,000 listed jobs': async () => ({ kind: 'encoded', encoding: 'gzip', bytes: gzipJobList(1_000_000) }),
	};

	// The same bombs in a child with a 256 MiB heap (it survives, in little memory, one request) are in the soak tier
	// (test/soak/answerBombs.soak.test.ts): a child that loads n8n-core takes longer than jest's 30 s on a busy machine.
	test.each(Object.keys(bombs))('%s: Get, Get Many, Wait (and the trigger and the list search, on bombs refused within 4 MiB or 100,000 values) fail at once, one request each, never "cannot be reached"', async (name) => {
		const answer = await bombs[name]();
		const runs: Array<[string, (url: string) => Promise<{ message: string; description: string }>]> = [
			['get', async (url) => await runTarget('get', 'bearer', url)],
			['getMany', async (url) => await runTarget('getMany', 'bearer', url)],
			['wait', async (url) => await runTarget('wait', 'bearer', url, { waitSeconds: 30 })],
			['trigger', async (url) => await runTarget('trigger', 'bearer', url)],
			[
				'listSearch',
				async (url) => {
					const error = (await searchList('searchJobs', { authentication: 'jobExecutionApi' }, credentials(url)).then(() => undefined, (thrown: unknown) => thrown)) as Error & { description?: string };
					return { message: error?.message ?? '', description: error?.description ?? '' };
				},
			],
		];
		// A 256 MiB list read to its bound costs seconds of CPU per target: the trigger and the Job ID list read lists
		// through Get Many's reader, and run on the multi-member bomb in the soak tier (answerBombs.soak.test.ts).
		const readToTheListBound = listRefusal[name] === 'is larger than 256 MiB';
		const targets = readToTheListBound ? runs.filter(([target]) => !['trigger', 'listSearch'].includes(target)) : runs;
		await Promise.all(
			targets.map(async ([target, run]) => {
				const server = await hostile(() => answer);
				const outcome = await run(server.url);
				figures.runs++;
				const problem = ['getMany', 'trigger', 'listSearch'].includes(target) ? listRefusal[name] : 'is larger than 4 MiB';
				expect({ target, message: outcome.message }).toEqual({ target, message: `The service's answer ${problem} (HTTP 200): not read further` });
				expect(outcome.description).toContain('It was not retried');
				expect(server.requests).toHaveLength(1);
			}),
		);
	});

	test('a job nested 200,000 levels deep is refused before it is parsed; a submit answered too large says the job may exist', async () => {
		const deep = await hostile(() => ({ kind: 'encoded', encoding: 'gzip', bytes: gzipDeepJob(JOB, 200_000) }));
		const get = await runTarget('get', 'bearer', deep.url);
		expect(get.message).toBe("The service's answer is nested deeper than 32 levels (HTTP 200): not read further");
		expect(deep.requests).toHaveLength(1);
		const big = await hostile(() => ({ kind: 'raw', text: JSON.stringify({ jobId: JOB, note: 'x'.repeat(5 * 1024 * 1024) }) }));
		const submit = await runTarget('submit', 'bearer', big.url);
		expect(submit.message).toBe("The service's answer is larger than 4 MiB (HTTP 200): not read further");
		expect(submit.description).toContain('may have accepted the job');
		figures.runs += 2;
	});

	test('5,000 listed jobs: Get Many returns the first 500 and says it left 4,500; every item serialises', async () => {
		const many = Array.from({ length: 5_000 }, (_, n) => jobStatus(`j${n}`, 'RUNNING'));
		const server = await hostile(() => ({ kind: 'json', body: many }));
		const result = await runActionNode({ credentials: credentials(server.url), parameters: parameters('getMany', 'bearer') });
		expect(result.json).toHaveLength(MAX_JOBS_PER_LIST);
		const hints = result.run.data.resultData.runData[NODE_NAME]?.[0]?.hints ?? [];
		expect(hints.map((hint) => hint.message)).toEqual(['The service listed 5000 jobs (it promises at most 100): Get Many read the first 500 and left 4500.']);
		for (const item of result.json) expect(() => JSON.stringify(item)).not.toThrow();
		figures.runs++;
	});

	test('a string over 2 Mi characters is cut with a marker; a log over 1 Mi characters is kept raw, not parsed, and says so', async () => {
		const log = `2026-01-05 09:00:00 [m] INFO Job a finished with status COMPLETED in 1 seconds\n${'x'.repeat(MAX_PARSED_LOG_CHARS)}`;
		const server = await hostile(() => ({ kind: 'json', body: { ...jobStatus(JOB, 'COMPLETED'), log, note: 'n'.repeat(MAX_STRING_CHARS + 10) } }));
		const result = await runActionNode({ credentials: credentials(server.url), parameters: { ...parameters('get', 'bearer'), options: { parseLog: true } } as INodeParameters });
		const [item] = result.json;
		expect(item.note).toBe('n'.repeat(MAX_STRING_CHARS) + cutMarker(10));
		expect(item.log).toBe(log);
		expect(item.logParsed).toBeNull();
		expect(item.logNotParsed).toBe(`The log has ${log.length} characters, more than the ${MAX_PARSED_LOG_CHARS} the node parses: it is kept raw in "log".`);
		figures.runs++;
	});
});

/** Issue 21, item 4: a service that writes the request's headers into a finished job's log, in every echo form. */
describe('keys echoed in successful answers: redacted like errors, on every output path', () => {
	const echoedJob = (request: HostileRequest, form: EchoForm, status = 'COMPLETED') => ({
		...jobStatus(JOB, status, { start: 1_700_000_000_000, end: 1_700_000_060_000 }),
		log: `2026-01-05 09:00:00 [m] INFO request headers: ${transform(headerLines(request.raw.headers), form)}`,
		[`echo ${transform(headerLines(request.raw.headers), form).slice(0, 300)}`]: 'a key holding the echo',
	});

	test.each(VARIANTS)('%s: Get (with Parse Log), Get Many, Wait, a trigger event and the list search carry no form of any key', async (variant) => {
		const all = credentialsFor('http://x');
		const everySecret = { ...all.bearer, ...all.basic, ...all.header, ...all.relay };
		const checkForm = async (form: EchoForm) => {
				let polls = 0;
				const server = await hostile((request) => {
					if (request.target.startsWith('/api/v1/jobs/')) return { kind: 'json', body: echoedJob(request, form) };
					const active = request.target.endsWith('filter=active');
					// The trigger: the job runs at the first poll and has finished with its echoing log at the second.
					if (active) polls++;
					if (polls === 1) return { kind: 'json', body: active ? [jobStatus(JOB, 'RUNNING', { start: 1_700_000_000_000 })] : [] };
					return { kind: 'json', body: active ? [] : [echoedJob(request, form)] };
				});
				const credentials = credentialsFor(server.url)[variant];
				for (const target of ['get', 'getMany', 'wait'] as Target[]) {
					const extra = target === 'get' ? { options: { parseLog: true } } : {};
					// A Wait Timeout of 5 s, so that a loaded machine still reads the job.
					const result = await runActionNode({ credentials, parameters: { ...parameters(target, variant, 5), ...extra } as INodeParameters });
					expect(result.error).toBeUndefined();
					expect(result.json.length).toBeGreaterThan(0);
					expectNoSecrets(result, everySecret);
				}
				const poller = createPoller(parameters('trigger', variant), credentials);
				expect(await poller.poll()).toBeNull();
				const events = await poller.poll();
				expect(events).toHaveLength(1);
				const found = await searchList('searchJobs', { authentication: parameters('trigger', variant).authentication }, credentials);
				expect(found.results.length).toBeGreaterThan(0);
				expect(secretSearch(everySecret)(JSON.stringify({ events, state: poller.storedState(), found }))).toBeUndefined();
				figures.runs += 6;
		};
		// A few forms at a time, each with its own server: all of them at once would starve a loaded machine's waits.
		for (let from = 0; from < ECHO_FORMS.length; from += 6) await Promise.all(ECHO_FORMS.slice(from, from + 6).map(checkForm));
		// The check can fail: what the service wrote into the log did hold the keys.
		for (const form of ECHO_FORMS) expect(secretSearch(all.bearer)(transform(headerLines({ authorization: `Bearer ${String(all.bearer.jobExecutionApi.token)}` }), form))).toBeDefined();
	});
});
