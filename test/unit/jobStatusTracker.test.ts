// The trigger's pure tracker: which status changes fire, what it stores, and its bounds, rule by rule and against a simulated service (testkit/trackerSimulator.ts).
import {
	computeEvents,
	DEFAULT_TERMINAL_WINDOW,
	doneKey,
	emptyState,
	jobsToReadIndividually,
	loadState,
	MAX_LISTED_JOBS,
	MAX_MISSES,
	MAX_STATE_BYTES,
	MAX_STATUS_LENGTH,
	SERVICE_PAGE,
	utf8Bytes,
} from '../../nodes/JobExecutionTrigger/jobStatusTracker';
import { toMillis } from '../../nodes/shared/jobVocabulary';
import type {
	JobSnapshot,
	Observation,
	TrackerOptions,
	TrackerState,
} from '../../nodes/JobExecutionTrigger/jobStatusTracker';
import { brief, runScenario } from '../../testkit/trackerSimulator';
import type { Scenario } from '../../testkit/trackerSimulator';

const T0 = 1_763_700_000_000;
const TERMINAL = new Set(['COMPLETED', 'ERROR', 'CANCELLED']);

const anyChange: TrackerOptions = { watch: 'anyChange', startFrom: 'now' };

/** A well-formed job as the tests list it: its id and status are strings. */
type ListedJob = JobSnapshot & { id: string; executionStatus: string };

function job(id: string, executionStatus: string, extra: Record<string, unknown> = {}): ListedJob {
	return {
		id,
		executionStatus,
		flowName: 'flowA',
		runProfileName: 'p1',
		startTime: executionStatus === 'QUEUED' ? null : T0,
		endTime: TERMINAL.has(executionStatus) ? T0 + 1000 : null,
		...extra,
	};
}

function obs(partial: Partial<Observation>): Observation {
	return { active: [], history: [], individual: [], notFound: [], ...partial };
}

/** A state after a 'now' baseline of the given jobs. */
function baseline(jobs: ListedJob[], options: Partial<TrackerOptions> = {}): TrackerState {
	const active = jobs.filter((j) => !TERMINAL.has(j.executionStatus));
	const history = jobs.filter((j) => TERMINAL.has(j.executionStatus));
	return computeEvents(emptyState(), obs({ active, history }), { ...anyChange, ...options }).state;
}

function doneIds(state: TrackerState): string[] {
	return state.done.map(([id]) => id);
}

function deepFreeze<T>(value: T): T {
	if (typeof value === 'object' && value !== null) {
		for (const inner of Object.values(value)) deepFreeze(inner);
		Object.freeze(value);
	}
	return value;
}


function uuid(n: number): string {
	return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

describe('merging the three sources', () => {
	const cases: Array<{ name: string; tracked: ListedJob[]; observation: Observation; expected: string[] }> = [
		{
			name: 'job on active then history (finished in between): the furthest status wins',
			tracked: [job('a', 'QUEUED')],
			observation: obs({ active: [job('a', 'RUNNING')], history: [job('a', 'COMPLETED')] }),
			expected: ['a:statusChanged:QUEUED>COMPLETED[RUNNING]'],
		},
		{
			name: 'an individual read behind the lists does not win',
			tracked: [job('a', 'QUEUED')],
			observation: obs({ history: [job('a', 'ERROR')], individual: [job('a', 'RUNNING')] }),
			expected: ['a:statusChanged:QUEUED>ERROR[RUNNING]'],
		},
		{
			name: 'an individual read ahead of the lists wins',
			tracked: [job('a', 'QUEUED')],
			observation: obs({ active: [job('a', 'QUEUED')], individual: [job('a', 'RUNNING')] }),
			expected: ['a:statusChanged:QUEUED>RUNNING'],
		},
		{
			name: 'regression on a tracked job is ignored',
			tracked: [job('a', 'RUNNING')],
			observation: obs({ active: [job('a', 'QUEUED')] }),
			expected: [],
		},
		{
			name: 'a finished job seen running again is ignored',
			tracked: [job('a', 'COMPLETED')],
			observation: obs({ active: [job('a', 'RUNNING')] }),
			expected: [],
		},
		{
			name: 'a terminal status never changes to another terminal status',
			tracked: [job('a', 'COMPLETED')],
			observation: obs({ history: [job('a', 'ERROR')] }),
			expected: [],
		},
		{
			name: 'a new job listed twice fires once, with its furthest status',
			tracked: [],
			observation: obs({ active: [job('n', 'RUNNING')], history: [job('n', 'CANCELLED')] }),
			expected: ['n:newJob:->CANCELLED'],
		},
		{
			name: 'lower-case and padded statuses are normalised',
			tracked: [job('a', 'QUEUED')],
			observation: obs({ active: [job('a', ' running ')] }),
			expected: ['a:statusChanged:QUEUED>RUNNING'],
		},
		{
			name: 'items without a usable id are skipped, numeric ids are used as strings',
			tracked: [],
			observation: obs({
				active: [
					{ executionStatus: 'RUNNING' },
					null as unknown as JobSnapshot,
					{ id: '', executionStatus: 'RUNNING' },
					{ id: 7, executionStatus: 'RUNNING' },
				],
			}),
			expected: ['7:newJob:->RUNNING'],
		},
	];
	it.each(cases)('$name → $expected', ({ tracked, observation, expected }) => {
		const { events } = computeEvents(baseline(tracked), observation, anyChange);
		expect(brief(events)).toEqual(expected);
	});
});

describe('baseline (first poll)', () => {
	const server = obs({
		active: [job('q', 'QUEUED'), job('r', 'RUNNING', { flowName: 'flowB' })],
		history: [job('c', 'COMPLETED'), job('e', 'ERROR')],
	});
	const cases: Array<{ name: string; options: TrackerOptions; expected: string[] }> = [
		{ name: "'now' emits nothing", options: { watch: 'anyChange', startFrom: 'now' }, expected: [] },
		{
			name: "'existing' emits every job as newJob",
			options: { watch: 'anyChange', startFrom: 'existing' },
			expected: ['q:newJob:->QUEUED', 'r:newJob:->RUNNING', 'c:newJob:->COMPLETED', 'e:newJob:->ERROR'],
		},
		{
			name: "'existing' emits only matching jobs",
			options: { watch: ['RUNNING', 'COMPLETED'], flowName: 'flowA', startFrom: 'existing' },
			expected: ['c:newJob:->COMPLETED'],
		},
	];
	it.each(cases)('$name → $expected, records every job either way', ({ options, expected }) => {
		const result = computeEvents(emptyState(), server, options);
		expect(brief(result.events).sort()).toEqual([...expected].sort());
		expect(result.state.initialized).toBe(true);
		expect(Object.keys(result.state.open).sort()).toEqual(['q', 'r']);
		expect(doneIds(result.state).sort()).toEqual(['c', 'e']);
		// The same server seen again: nothing new.
		expect(computeEvents(result.state, server, options).events).toEqual([]);
	});

	it('a failed baseline (state not stored) is simply taken again', () => {
		const state = emptyState();
		computeEvents(state, server, anyChange);
		expect(state).toEqual(emptyState());
		expect(computeEvents(state, server, { ...anyChange, startFrom: 'existing' }).events).toHaveLength(4);
	});
});

describe('status changes of tracked jobs', () => {
	const cases: Array<[from: string, to: string, expected: string[]]> = [
		['QUEUED', 'RUNNING', ['a:statusChanged:QUEUED>RUNNING']],
		['QUEUED', 'COMPLETED', ['a:statusChanged:QUEUED>COMPLETED[RUNNING]']],
		['QUEUED', 'CANCELLED', ['a:statusChanged:QUEUED>CANCELLED[RUNNING]']],
		['RUNNING', 'ERROR', ['a:statusChanged:RUNNING>ERROR']],
		['RUNNING', 'RUNNING', []],
		['RUNNING', 'QUEUED', []],
		// Unknown statuses: active ones rank between QUEUED and RUNNING, with an endTime they are terminal.
		['QUEUED', 'PAUSED', ['a:statusChanged:QUEUED>PAUSED']],
		['PAUSED', 'RUNNING', ['a:statusChanged:PAUSED>RUNNING']],
		['PAUSED', 'COMPLETED', ['a:statusChanged:PAUSED>COMPLETED[RUNNING]']],
		['RUNNING', 'PAUSED', []],
		['RUNNING', 'STOPPED', ['a:statusChanged:RUNNING>STOPPED']],
	];
	it.each(cases)('%s then %s → %j', (from, to, expected) => {
		const state = baseline([job('a', from)]);
		const seen = job('a', to, to === 'STOPPED' ? { endTime: T0 + 5 } : {});
		const result = computeEvents(state, obs({ active: [seen] }), anyChange);
		expect(brief(result.events)).toEqual(expected);
		// An unknown status with an end time (STOPPED) stays tracked: a known terminal status may still follow.
		const terminal = TERMINAL.has(to);
		expect(Object.keys(result.state.open)).toEqual(terminal ? [] : ['a']);
		expect(doneIds(result.state)).toEqual(terminal ? ['a'] : []);
		// Seen once more: never fires again.
		expect(computeEvents(result.state, obs({ active: [seen] }), anyChange).events).toEqual([]);
	});

	it('the stored status is the furthest one, so a later regression and recovery do not re-fire', () => {
		let state = baseline([job('a', 'QUEUED')]);
		const fired: string[] = [];
		for (const status of ['RUNNING', 'QUEUED', 'RUNNING', 'COMPLETED', 'RUNNING', 'COMPLETED']) {
			const result = computeEvents(state, obs({ active: [job('a', status)] }), anyChange);
			fired.push(...brief(result.events));
			state = result.state;
		}
		expect(fired).toEqual(['a:statusChanged:QUEUED>RUNNING', 'a:statusChanged:RUNNING>COMPLETED']);
	});
});

describe('jobs not tracked', () => {
	// Finished jobs are remembered by when the trigger saw them finish, never by the service's end times.
	const cases: Array<{ name: string; seen: JobSnapshot; expected: string[] }> = [
		{ name: 'terminal, never seen: new', seen: job('n', 'ERROR', { endTime: 1e12 + 101 }), expected: ['n:newJob:->ERROR'] },
		{ name: 'terminal, ending long ago: new all the same', seen: job('n', 'COMPLETED', { endTime: 1e12 }), expected: ['n:newJob:->COMPLETED'] },
		{ name: 'terminal without endTime: new', seen: job('n', 'COMPLETED', { endTime: null }), expected: ['n:newJob:->COMPLETED'] },
		{ name: 'terminal with ISO text as endTime: new', seen: job('n', 'COMPLETED', { endTime: '2026-11-21T10:00:00Z' }), expected: ['n:newJob:->COMPLETED'] },
		{ name: 'a remembered finished job: nothing', seen: job('old2', 'COMPLETED', { endTime: 1e12 + 300 }), expected: [] },
		{ name: 'active', seen: job('n', 'RUNNING', { startTime: 5 }), expected: ['n:newJob:->RUNNING'] },
		{ name: 'queued', seen: job('n', 'QUEUED'), expected: ['n:newJob:->QUEUED'] },
	];
	it.each(cases)('$name → $expected', ({ seen, expected }) => {
		const history = [100, 200, 300].map((t, i) => job(`old${i}`, 'COMPLETED', { endTime: 1e12 + t }));
		const state = computeEvents(emptyState(), obs({ history }), { ...anyChange, terminalWindow: 2 }).state;
		const result = computeEvents(state, obs({ history: [seen] }), { ...anyChange, terminalWindow: 2 });
		expect(brief(result.events)).toEqual(expected);
	});
});

describe('values from the service that must not decide for other jobs (issue 20)', () => {
	const DAY = 86_400_000;
	it('900 jobs ending a day ahead, then 20 ordinary jobs: 20 of 20 fire', () => {
		// The lists as the service sorts them: by end time, so the future jobs stay on top of the history list.
		const future = Array.from({ length: 900 }, (_, i) => job(uuid(i), 'COMPLETED', { endTime: T0 + DAY + i }));
		const ordinary = Array.from({ length: 20 }, (_, i) => uuid(1000 + i));
		let state = baseline([]);
		const top = (jobs: JobSnapshot[]) => [...jobs].sort((x, y) => (y.endTime as number) - (x.endTime as number)).slice(0, 100);
		for (let k = 0; k < 9; k++) state = computeEvents(state, obs({ history: top(future.slice(0, (k + 1) * 100)) }), anyChange).state;
		state = computeEvents(state, obs({ active: ordinary.map((id) => job(id, 'RUNNING')), history: top(future) }), anyChange).state;
		const fired = new Set<string>();
		for (let poll = 0; poll < 3; poll++) {
			const finished = ordinary.map((id) => job(id, 'COMPLETED', { endTime: T0 + 5000 }));
			const ids = jobsToReadIndividually(state, [], top(future), 25);
			const result = computeEvents(state, obs({ history: top([...future, ...finished]), individual: finished.filter((j) => ids.includes(j.id)) }), {
				watch: ['COMPLETED'],
				startFrom: 'now',
			});
			for (const event of result.events) fired.add(event.job.id);
			state = result.state;
		}
		expect([...fired].sort()).toEqual(ordinary);
	});

	it('ISO-text end times: 100 polls of a moving history list fire each job once (0 duplicates)', () => {
		let state = baseline([]);
		let events = 0;
		const fired = new Set<string>();
		for (let poll = 0; poll < 100; poll++) {
			// 12 new finished jobs a poll, the newest 100 listed, end times as text the tracker cannot order.
			const history = Array.from({ length: 100 }, (_, i) => {
				const n = poll * 12 + 99 - i;
				return job(uuid(n), 'COMPLETED', { endTime: new Date(T0 + n * 1000).toISOString() });
			}).filter((j) => parseInt(j.id.slice(24), 16) >= 0);
			const result = computeEvents(state, obs({ history }), anyChange);
			for (const event of result.events) {
				expect(fired.has(event.job.id)).toBe(false);
				fired.add(event.job.id);
				events++;
			}
			state = result.state;
		}
		expect(events).toBe(100 + 99 * 12);
	});

	it('a job still listed stays remembered however many others finish (seen again each poll)', () => {
		let state = computeEvents(emptyState(), obs({ history: [job('stuck', 'COMPLETED')] }), anyChange).state;
		for (let poll = 0; poll < 20; poll++) {
			const others = Array.from({ length: 50 }, (_, i) => job(uuid(poll * 50 + i), 'COMPLETED'));
			const result = computeEvents(state, obs({ history: [job('stuck', 'COMPLETED'), ...others] }), { ...anyChange, terminalWindow: 100 });
			expect(result.events.find((e) => e.job.id === 'stuck')).toBeUndefined();
			state = result.state;
		}
		expect(doneIds(state)).toContain('stuck');
		expect(state.done).toHaveLength(100);
	});

	it('a finished job listed again (as running, then finished) after it left the window is not news', () => {
		let state = computeEvents(baseline([]), obs({ history: [job('old', 'COMPLETED')] }), anyChange).state;
		for (let poll = 0; poll < 3; poll++) {
			const history = Array.from({ length: 10 }, (_, i) => job(uuid(poll * 10 + i), 'COMPLETED'));
			state = computeEvents(state, obs({ history }), { ...anyChange, terminalWindow: 5 }).state;
		}
		expect(doneIds(state)).not.toContain('old');
		expect(state.gone).toHaveLength(26 * 12);
		const again = computeEvents(loadState(JSON.parse(JSON.stringify(state))), obs({ active: [job('old', 'RUNNING')] }), anyChange);
		expect(again.events).toEqual([]);
		expect(computeEvents(again.state, obs({ history: [job('old', 'COMPLETED')] }), anyChange).events).toEqual([]);
		// A job never seen is news all the same.
		expect(brief(computeEvents(again.state, obs({ active: [job('new', 'RUNNING')] }), anyChange).events)).toEqual(['new:newJob:->RUNNING']);
	});

	it('a 20,008-character status is stored cut to MAX_STATUS_LENGTH', () => {
		const status = `X${'Y'.repeat(20_007)}`;
		const state = computeEvents(baseline([]), obs({ active: [job('a', status)] }), anyChange).state;
		expect(state.open.a.status).toBe(status.slice(0, MAX_STATUS_LENGTH).toUpperCase());
		// The cut status is still ranked as an unknown active one: the job's end fires from it.
		const result = computeEvents(state, obs({ history: [job('a', 'COMPLETED')] }), anyChange);
		expect(brief(result.events)).toEqual([`a:statusChanged:${status.slice(0, MAX_STATUS_LENGTH).toUpperCase()}>COMPLETED[RUNNING]`]);
	});

	it('long or unusual ids are remembered by a hash; short plain ids as they are', () => {
		expect(doneKey(uuid(7))).toBe(uuid(7));
		const long = '\u20ac'.repeat(256);
		expect(doneKey(long)).not.toBe(long);
		expect(utf8Bytes(JSON.stringify(doneKey(long)))).toBeLessThan(30);
		expect(doneKey(long)).toBe(doneKey(String(long)));
		expect(doneKey(long)).not.toBe(doneKey(`${'\u20ac'.repeat(255)}a`));
		const state = computeEvents(emptyState(), obs({ history: [job(long, 'COMPLETED')] }), anyChange).state;
		expect(computeEvents(state, obs({ history: [job(long, 'COMPLETED')] }), anyChange).events).toEqual([]);
		expect(loadState(JSON.parse(JSON.stringify(state)))).toEqual(state);
	});

	it(`worst case: whatever the lists hold, the stored state stays under MAX_STATE_BYTES (${MAX_STATE_BYTES} B)`, () => {
		// 500 active jobs with 20,008-character statuses and 256-character ids of 3-byte characters, 500 finished
		// ones likewise, a new set every poll (lists past the service's 100, up to the tracker's MAX_LISTED_JOBS).
		const longId = (n: number) => `${n}`.padStart(8, '0') + '\u4e2d'.repeat(248);
		const status = 'Z'.repeat(20_008);
		let state = baseline([]);
		let max = 0;
		for (let poll = 0; poll < 6; poll++) {
			const active = Array.from({ length: MAX_LISTED_JOBS }, (_, i) => job(longId(poll * 2000 + i), status, { endTime: null }));
			const history = Array.from({ length: MAX_LISTED_JOBS }, (_, i) => job(longId(poll * 2000 + 1000 + i), 'COMPLETED'));
			const result = computeEvents(state, obs({ active, history }), anyChange);
			const bytes = utf8Bytes(JSON.stringify(result.state));
			expect(result.stats.bytes).toBe(bytes);
			max = Math.max(max, bytes);
			state = loadState(JSON.parse(JSON.stringify(result.state)));
		}
		expect(max).toBeLessThanOrEqual(MAX_STATE_BYTES);
		expect(max).toBeGreaterThan(MAX_STATE_BYTES * 0.9);
		process.stdout.write(`jobStatusTracker worst-case state: ${max} B (bound ${MAX_STATE_BYTES} B)\n`);
	});
});

describe('possible gaps (the lists stop at 100)', () => {
	const full = (from: number, status = 'COMPLETED', ends?: (i: number) => number) =>
		Array.from({ length: SERVICE_PAGE }, (_, i) => job(uuid(from + i), status, ends ? { endTime: ends(i) } : {}));
	it('a full history list none of whose jobs was seen finished before: a gap with its window', () => {
		const first = computeEvents(emptyState(), obs({ history: full(0), now: T0 }), anyChange);
		expect(first.stats.gap).toBeNull(); // the baseline: nothing before it
		const result = computeEvents(first.state, obs({ history: full(1000, 'COMPLETED', (i) => T0 + 50_000 + i * 500), now: T0 + 100_000 }), anyChange);
		// 100 jobs ended in the last 50 s; the 50 s before may hold as many.
		expect(result.stats.gap).toEqual({ list: 'history', from: T0, to: T0 + 100_000, mayBeHidden: 100 });
		expect(result.state.polledAt).toBe(T0 + 100_000);
	});
	it('a full history list with a job seen before: no gap', () => {
		const first = computeEvents(emptyState(), obs({ history: full(0), now: T0 }), anyChange);
		const result = computeEvents(first.state, obs({ history: [...full(1000).slice(1), job(uuid(0), 'COMPLETED')], now: T0 + 1 }), anyChange);
		expect(result.stats.gap).toBeNull();
	});
	it('a history list that is not full: no gap', () => {
		const first = computeEvents(emptyState(), obs({ history: full(0), now: T0 }), anyChange);
		expect(computeEvents(first.state, obs({ history: full(1000).slice(1), now: T0 + 1 }), anyChange).stats.gap).toBeNull();
	});
	it('end times the trigger cannot use give no estimate', () => {
		const first = computeEvents(emptyState(), obs({ history: full(0), now: T0 }), anyChange);
		const result = computeEvents(first.state, obs({ history: full(1000, 'COMPLETED', () => T0 + 86_400_000), now: T0 + 1000 }), anyChange);
		expect(result.stats.gap).toMatchObject({ list: 'history', mayBeHidden: null });
	});
	it('a full active list of jobs never seen: a gap on the active list', () => {
		const first = computeEvents(emptyState(), obs({ active: full(0, 'RUNNING'), now: T0 }), anyChange);
		const result = computeEvents(first.state, obs({ active: full(1000, 'QUEUED'), history: [], now: T0 + 1000 }), anyChange);
		expect(result.stats.gap).toEqual({ list: 'active', from: T0, to: T0 + 1000, mayBeHidden: null });
		const known = computeEvents(first.state, obs({ active: [...full(1000, 'QUEUED').slice(1), job(uuid(5), 'RUNNING')], now: T0 + 1000 }), anyChange);
		expect(known.stats.gap).toBeNull();
	});
});

describe('tracked jobs that are not seen', () => {
	it('a tracked job neither listed nor read stays as it is', () => {
		const state = baseline([job('a', 'RUNNING'), job('b', 'QUEUED')]);
		const result = computeEvents(state, obs({}), anyChange);
		expect(result.events).toEqual([]);
		expect(result.state.open.a.status).toBe('RUNNING');
		expect(result.state.open.b.status).toBe('QUEUED');
		expect(result.state.open.a.seen).toBe(state.open.a.seen);
	});

	const missCases: Array<{ name: string; polls: Array<'miss' | 'fail' | 'seen' | 'listedAndMiss' | 'nothing'>; kept: boolean; misses?: number }> = [
		{ name: 'one miss: kept', polls: ['miss'], kept: true, misses: 1 },
		{ name: 'two misses: kept', polls: ['miss', 'fail'], kept: true, misses: 2 },
		{ name: 'MAX_MISSES consecutive failed reads of any kind: given up', polls: ['miss', 'fail', 'miss', 'fail', 'fail', 'miss'], kept: false },
		{ name: 'polls without a read do not reset the count', polls: ['miss', 'nothing', 'fail', 'nothing', 'miss', 'fail', 'fail', 'miss'], kept: false },
		{ name: 'being observed resets the count', polls: ['miss', 'miss', 'seen', 'fail', 'miss'], kept: true, misses: 2 },
		{ name: 'a miss while listed in the same poll does not count', polls: ['miss', 'miss', 'listedAndMiss'], kept: true },
	];
	it.each(missCases)('$name', ({ polls, kept, misses }) => {
		let state = baseline([job('a', 'RUNNING')]);
		for (const poll of polls) {
			const observation =
				poll === 'miss'
					? obs({ notFound: ['a'] })
					: poll === 'fail'
						? obs({ failed: ['a'] })
					: poll === 'seen'
						? obs({ individual: [job('a', 'RUNNING')] })
						: poll === 'listedAndMiss'
							? obs({ active: [job('a', 'RUNNING')], notFound: ['a'] })
							: obs({});
			state = computeEvents(state, observation, anyChange).state;
		}
		expect('a' in state.open).toBe(kept);
		if (kept) expect(state.open.a.misses).toBe(misses);
		expect(MAX_MISSES).toBe(6);
	});

	it('a job whose read keeps failing is read again with doubling backoff, then given up; the others keep firing', () => {
		let state = baseline([job('bad', 'RUNNING'), job('ok', 'RUNNING')]);
		const readAt: number[] = [];
		let givenUpAt = -1;
		for (let poll = 1; poll <= 40 && givenUpAt < 0; poll++) {
			const ids = jobsToReadIndividually(state, [], [], 25);
			if (ids.includes('bad')) readAt.push(poll);
			const result = computeEvents(state, obs({ failed: ids.filter((id) => id === 'bad'), individual: ids.includes('ok') ? [job('ok', 'RUNNING')] : [] }), anyChange);
			if (result.stats.givenUp.includes('bad')) givenUpAt = poll;
			if (ids.includes('bad') && givenUpAt < 0) expect(result.stats.retrying).toEqual(['bad']);
			state = result.state;
		}
		expect(readAt).toEqual([1, 2, 4, 8, 16, 32]);
		expect(givenUpAt).toBe(32);
		expect('bad' in state.open).toBe(false);
		const done = computeEvents(state, obs({ individual: [job('ok', 'COMPLETED')] }), anyChange);
		expect(brief(done.events)).toEqual(['ok:statusChanged:RUNNING>COMPLETED']);
	});

	it('notFound for ids that are not open is ignored', () => {
		const state = baseline([job('c', 'COMPLETED')]);
		const result = computeEvents(state, obs({ notFound: ['c', 'zzz', 'constructor'] }), anyChange);
		expect(result.state.done).toEqual(state.done);
		expect(result.state.open).toEqual({});
	});
});

describe('emission filter (recording is independent)', () => {
	const cases: Array<{ name: string; options: Partial<TrackerOptions>; fires: boolean }> = [
		{ name: 'anyChange', options: { watch: 'anyChange' }, fires: true },
		{ name: 'watched status', options: { watch: ['COMPLETED'] }, fires: true },
		{ name: 'watched status in lower case', options: { watch: ['completed'] }, fires: true },
		{ name: 'status not watched', options: { watch: ['ERROR', 'CANCELLED'] }, fires: false },
		{ name: 'empty watch list', options: { watch: [] }, fires: false },
		{ name: 'skipped status is not the current one', options: { watch: ['RUNNING'] }, fires: false },
		{ name: 'flow matches', options: { flowName: 'flowA' }, fires: true },
		{ name: 'flow differs', options: { flowName: 'flowB' }, fires: false },
		{ name: 'flow is exact-match', options: { flowName: 'flowa' }, fires: false },
		{ name: 'empty flow filter', options: { flowName: '' }, fires: true },
		{ name: 'run profile matches', options: { runProfileName: 'p1' }, fires: true },
		{ name: 'run profile differs', options: { runProfileName: 'p2' }, fires: false },
		{ name: 'both match', options: { flowName: 'flowA', runProfileName: 'p1', watch: ['COMPLETED'] }, fires: true },
	];
	it.each(cases)('$name → fires: $fires', ({ options, fires }) => {
		const state = baseline([job('a', 'QUEUED')]);
		const result = computeEvents(state, obs({ history: [job('a', 'COMPLETED')] }), { ...anyChange, ...options });
		expect(result.events).toHaveLength(fires ? 1 : 0);
		expect(doneIds(result.state)).toEqual(['a']);
		expect(result.state.open).toEqual({});
	});

	it('changing the options never replays old events', () => {
		const jobs = [job('a', 'RUNNING', { flowName: 'flowB' }), job('c', 'COMPLETED'), job('e', 'ERROR', { flowName: 'flowB' })];
		let state = computeEvents(emptyState(), obs({ active: [jobs[0]], history: jobs.slice(1) }), {
			watch: ['COMPLETED'],
			flowName: 'flowA',
			startFrom: 'existing',
		}).state;
		const optionSets: TrackerOptions[] = [
			{ watch: 'anyChange', startFrom: 'existing' },
			{ watch: ['ERROR', 'RUNNING'], flowName: 'flowB', startFrom: 'existing' },
			{ watch: ['COMPLETED', 'ERROR', 'CANCELLED', 'RUNNING', 'QUEUED'], startFrom: 'now', terminalWindow: 1 },
		];
		for (const options of optionSets) {
			const result = computeEvents(state, obs({ active: [jobs[0]], history: jobs.slice(1) }), options);
			expect(result.events).toEqual([]);
			state = result.state;
		}
	});
});

describe('the window of terminal ids', () => {
	it('keeps the most recently seen finished jobs, whatever their end times', () => {
		const endTimes = [3e12, 1e12, null, '2026-01-01T00:00:00Z', 9e15];
		const history = endTimes.map((endTime, i) => job(`j${i}`, 'COMPLETED', { endTime }));
		let state = computeEvents(emptyState(), obs({ history: history.slice(0, 3) }), { ...anyChange, terminalWindow: 3 }).state;
		const result = computeEvents(state, obs({ history: history.slice(3) }), { ...anyChange, terminalWindow: 3 });
		// The two seen last poll stay; of the three seen before, the first seen (in list order) go.
		expect(doneIds(result.state)).toEqual(['j2', 'j3', 'j4']);
		expect(result.stats.evicted).toBe(2);
		state = result.state;
		expect(state.done.map(([, seq]) => seq)).toEqual([1, 2, 2]);
	});

	const millis: Array<[unknown, number | null]> = [
		[1_763_700_000_123, 1_763_700_000_123],
		[1_763_700_000, 1_763_700_000_000],
		['1763700000123', 1_763_700_000_123],
		['1763700000', 1_763_700_000_000],
		[null, null],
		[undefined, null],
		['', null],
		['soon', null],
		[Number.NaN, null],
	];
	it.each(millis)('toMillis(%p) = %p', (input, expected) => {
		expect(toMillis(input)).toBe(expected);
	});
});

describe('event order', () => {
	it('by endTime (terminal) or startTime (active), then id; unknown times last', () => {
		const state = baseline([]);
		const result = computeEvents(
			state,
			obs({
				active: [job('q2', 'QUEUED'), job('q1', 'QUEUED'), job('r', 'RUNNING', { startTime: T0 + 50 })],
				history: [job('c2', 'COMPLETED', { endTime: T0 + 100 }), job('c1', 'COMPLETED', { endTime: T0 + 100 }), job('e', 'ERROR', { endTime: T0 + 10 })],
			}),
			anyChange,
		);
		expect(result.events.map((e) => e.job.id)).toEqual(['e', 'r', 'c1', 'c2', 'q1', 'q2']);
	});
});

describe('purity', () => {
	it('never mutates the state, the observation or the options', () => {
		const state = deepFreeze(baseline([job('a', 'QUEUED'), job('b', 'RUNNING'), job('c', 'COMPLETED')]));
		const observation = deepFreeze(
			obs({ active: [job('n', 'RUNNING')], history: [job('a', 'COMPLETED')], individual: [job('b', 'RUNNING')], notFound: ['b'] }),
		);
		const options = deepFreeze<TrackerOptions>({ watch: ['COMPLETED'], startFrom: 'now', terminalWindow: 1 });
		const snapshot = JSON.stringify(state);
		const result = computeEvents(state, observation, options);
		expect(JSON.stringify(state)).toBe(snapshot);
		expect(result.state).not.toBe(state);
		expect(result.state.open).not.toBe(state.open);
		jobsToReadIndividually(state, observation.active, observation.history, 5);
		expect(JSON.stringify(state)).toBe(snapshot);
	});

	it('ids that are Object.prototype members are handled as plain ids', () => {
		let state = baseline([job('constructor', 'QUEUED')]);
		const result = computeEvents(state, obs({ active: [job('constructor', 'RUNNING'), job('toString', 'RUNNING')] }), anyChange);
		expect(brief(result.events).sort()).toEqual(['constructor:statusChanged:QUEUED>RUNNING', 'toString:newJob:->RUNNING']);
		state = loadState(JSON.parse(JSON.stringify(result.state)));
		expect(computeEvents(state, obs({ history: [job('hasOwnProperty', 'COMPLETED')] }), anyChange).events).toHaveLength(1);
	});
});

describe('jobsToReadIndividually', () => {
	const state = baseline([job('a', 'RUNNING'), job('b', 'QUEUED'), job('c', 'RUNNING'), job('d', 'COMPLETED')]);
	const cases: Array<{ name: string; active: string[]; history: string[]; maxReads: number; expected: string[] }> = [
		{ name: 'open jobs on neither list', active: ['a'], history: [], maxReads: 10, expected: ['b', 'c'] },
		{ name: 'listed on history counts as listed', active: [], history: ['a', 'b'], maxReads: 10, expected: ['c'] },
		{ name: 'bounded by maxReads', active: [], history: [], maxReads: 2, expected: ['a', 'b'] },
		{ name: 'maxReads 0 reads nothing', active: [], history: [], maxReads: 0, expected: [] },
		{ name: 'terminal jobs are never read', active: ['a', 'b', 'c'], history: [], maxReads: 10, expected: [] },
	];
	it.each(cases)('$name → $expected', ({ active, history, maxReads, expected }) => {
		const list = (ids: string[]) => ids.map((id) => job(id, 'RUNNING'));
		expect(jobsToReadIndividually(state, list(active), list(history), maxReads)).toEqual(expected);
	});

	it('rotates: every off-list open job is read within ceil(open / maxReads) polls', () => {
		const ids = Array.from({ length: 10 }, (_, i) => `j${i}`);
		let current = baseline(ids.map((id) => job(id, 'RUNNING')));
		const reads: string[][] = [];
		for (let poll = 0; poll < 4; poll++) {
			const toRead = jobsToReadIndividually(current, [], [], 3);
			reads.push(toRead);
			// Alternate answers: found, and unknown (a miss also moves the job to the back).
			const individual = toRead.filter((_, i) => i % 2 === 0).map((id) => job(id, 'RUNNING'));
			const notFound = toRead.filter((_, i) => i % 2 === 1);
			current = computeEvents(current, obs({ individual, notFound }), anyChange).state;
		}
		expect(new Set(reads.slice(0, 4).flat()).size).toBe(10);
		expect(reads[3]).toEqual(['j9', 'j0', 'j1']);
	});
});

describe('loadState', () => {
	it('round-trips a stored state', () => {
		const state = baseline([job('a', 'RUNNING'), job('c', 'COMPLETED')]);
		expect(loadState(JSON.parse(JSON.stringify(state)))).toEqual(state);
	});
	const garbage: Array<[string, unknown]> = [
		['undefined', undefined],
		['a string', 'x'],
		['another version', { ...emptyState(), version: 2 }],
		['missing maps', { version: 1, initialized: true }],
	];
	it.each(garbage)('%s gives an empty state', (_, raw) => {
		expect(loadState(raw)).toEqual(emptyState());
	});
	it('drops malformed entries', () => {
		const raw = {
			version: 1,
			initialized: true,
			seq: 'x',
			horizon: 'y',
			open: { a: { status: 'RUNNING', seen: 2, misses: 1 }, b: 3, c: { seen: 1 } },
			done: [['d', 5], ['e', 'z'], 'f', [7, 1], ['c', 1]],
		};
		// Version 1 finished jobs keep their stored order, as seen before any new poll.
		expect(loadState(raw)).toEqual({
			version: 2,
			initialized: true,
			seq: 0,
			polledAt: null,
			open: { a: { status: 'RUNNING', seen: 2, misses: 1 } },
			done: [['d', 0], ['e', 0], ['c', 0]],
		});
	});

	it('a state stored by version 1 still loads and goes on without repeating or losing an event', () => {
		// As version 1 stored it: finished jobs as [id, endTime] oldest end first, and a horizon.
		const v1 = {
			version: 1,
			initialized: true,
			seq: 41,
			open: { r: { status: 'RUNNING', seen: 41 }, q: { status: 'QUEUED', seen: 40, misses: 2 } },
			done: [['old', T0 - 5000], ['c', T0 + 1000]],
			horizon: T0 - 9000,
		};
		const state = loadState(JSON.parse(JSON.stringify(v1)));
		expect(state).toEqual({
			version: 2,
			initialized: true,
			seq: 41,
			polledAt: null,
			open: { r: { status: 'RUNNING', seen: 41 }, q: { status: 'QUEUED', seen: 40, misses: 2 } },
			done: [['old', 0], ['c', 0]],
		});
		const result = computeEvents(state, obs({ history: [job('r', 'COMPLETED'), job('c', 'COMPLETED'), job('old', 'COMPLETED')], active: [job('q', 'RUNNING')] }), anyChange);
		expect(brief(result.events)).toEqual(['q:statusChanged:QUEUED>RUNNING', 'r:statusChanged:RUNNING>COMPLETED']);
		expect(result.state.version).toBe(2);
	});

	it('a hashed key of a long id survives loading; a forged long key does not', () => {
		const long = 'x'.repeat(200);
		const state = computeEvents(emptyState(), obs({ history: [job(long, 'COMPLETED')] }), anyChange).state;
		const loaded = loadState(JSON.parse(JSON.stringify({ ...state, done: [...state.done, ['\u0001'.padEnd(300, 'z'), 1]] })));
		expect(loaded.done).toEqual(state.done);
	});
});

describe('randomized property test', () => {
	// Two cycles of the bursty load (period 150): every property shows; longer runs are the soak tier's
	// (test/soak/trackerStateSize.soak.test.ts) and the trigger churn's.
	const POLLS = 300;
	const normal = () => 8;
	const bursty = (p: number) => (p % 150 >= 100 && p % 150 < 115 ? 90 : 6);
	const scenarios: Scenario[] = [
		{ name: 'steady load, changing options', seed: 1, polls: POLLS, load: normal, seconds: false, historyBy: 'endTime', maxReads: 10, startFrom: 'now', fixedWatch: null, transient400: 0.05 },
		{ name: 'bursts over the 100 caps, changing options', seed: 2, polls: POLLS, load: bursty, seconds: false, historyBy: 'endTime', maxReads: 15, startFrom: 'existing', fixedWatch: null, transient400: 0.05 },
		{ name: 'seconds timestamps, small window', seed: 3, polls: POLLS, load: bursty, seconds: true, historyBy: 'endTime', terminalWindow: 150, maxReads: 15, startFrom: 'now', fixedWatch: null, transient400: 0.05 },
		{ name: 'history ordered by start time', seed: 4, polls: POLLS, load: bursty, seconds: false, historyBy: 'startTime', maxReads: 15, startFrom: 'existing', fixedWatch: null, transient400: 0.05 },
		{ name: 'anyChange, ground truth complete', seed: 5, polls: POLLS, load: bursty, seconds: false, historyBy: 'endTime', maxReads: 15, startFrom: 'now', fixedWatch: 'anyChange', transient400: 0.05 },
		{ name: 'terminal statuses, ground truth complete', seed: 6, polls: POLLS, load: bursty, seconds: true, historyBy: 'endTime', maxReads: 15, startFrom: 'existing', fixedWatch: ['COMPLETED', 'ERROR', 'CANCELLED'], transient400: 0.2 },
	];

	it.each(scenarios)('$name (seed $seed)', (s) => {
		const r = runScenario(s);
		// The runs exercise what they claim to.
		expect(r.committed).toBeGreaterThan(s.polls * 0.8);
		expect(r.failed).toBeGreaterThan(10);
		expect(r.individualReads).toBeGreaterThan(0);

		// 1. Same events as the unbounded reference, poll by poll.
		expect(r.got).toEqual(r.want);

		// 2. Never twice the same (job, status), unless the job was given up after MAX_MISSES failed reads.
		// (Each broken rule is listed, then compared once: one expect per event costs more than the run it checks.)
		const seen = new Set<string>();
		const twice: string[] = [];
		const notItsPath: string[] = [];
		for (const e of r.events) {
			const key = `${e.job.id}:${e.status}`;
			if (!r.reference.dropped.has(e.job.id) && seen.has(key)) twice.push(key);
			seen.add(key);
			// 3. Only statuses the job really had, in order.
			const path = r.server.jobs.get(e.job.id)!.path;
			const from = e.previousStatus === null ? -1 : path.indexOf(e.previousStatus);
			const inOrder = e.previousStatus === null || (from !== -1 && from < path.indexOf(e.status));
			if (!path.includes(e.status) || !inOrder) notItsPath.push(`${key} after ${e.previousStatus} on ${path.join('>')}`);
		}
		expect(twice).toEqual([]);
		expect(notItsPath).toEqual([]);

		// 4. Ground truth: every job seen by the poller reaches its final status exactly once.
		if (s.fixedWatch !== null) {
			const fired = new Map<string, number>();
			for (const e of r.events) fired.set(`${e.job.id}:${e.status}`, (fired.get(`${e.job.id}:${e.status}`) ?? 0) + 1);
			let checked = 0;
			const wrongCount: string[] = [];
			for (const j of r.server.jobs.values()) {
				if (j.deleted || !r.observed.has(j.id) || r.reference.dropped.has(j.id) || r.reference.terminalAtBaseline.has(j.id)) continue;
				const watched = s.fixedWatch === 'anyChange' || s.fixedWatch.includes(j.status);
				const count = fired.get(`${j.id}:${j.status}`) ?? 0;
				if (count !== (watched ? 1 : 0)) wrongCount.push(`${j.id}:${j.status} fired ${count} times`);
				checked++;
			}
			expect(wrongCount).toEqual([]);
			expect(checked).toBeGreaterThan(r.server.jobs.size * 0.9);
		}

		// 5. The state drains: no open job left, the window is bounded.
		expect(r.final.open).toEqual({});
		expect(r.final.done.length).toBeLessThanOrEqual(s.terminalWindow ?? DEFAULT_TERMINAL_WINDOW);
		expect(r.maxSize).toBeLessThan(64 * 1024);
		const invisible = [...r.server.jobs.values()].filter((j) => !r.observed.has(j.id) && !j.deleted).length;
		const forgottenAlive = [...r.reference.dropped].filter((id) => !r.server.jobs.get(id)!.deleted).length;
		process.stdout.write(
			`${s.name}: ${r.server.jobs.size} jobs, ${r.committed} polls stored, ${r.failed} failed, ${r.events.length} events, ` +
				`${r.individualReads} individual reads, ${r.reference.dropped.size} dropped (${forgottenAlive} alive), ` +
				`${invisible} never visible, max open ${r.maxOpen}, max state without open jobs ${r.maxSize} B\n`,
		);
	});
});
