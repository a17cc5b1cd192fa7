/**
 * One seed, one scenario: which part of the package runs (an operation, the trigger over many polls, the Job ID list
 * search, the credential test), with which credential, and how the service misbehaves on each route, per request or
 * per poll. Seed n's main misbehaviour is class n modulo their count, so seeds 0..count-1 cover every class; the
 * rest (target, credential, extra misbehaviours, sizes) is drawn from the seed.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { EchoForm } from '../hostileServer';
import { ECHO_FORMS } from '../hostileServer';
import type { BombShape, Encoding } from './bodies';
import { Random } from './random';

export const TARGETS = ['submit', 'submitAndWait', 'get', 'getMany', 'wait', 'navigationUrl', 'trigger', 'listSearch', 'credentialTest'] as const;
export type Target = (typeof TARGETS)[number];
export const VARIANTS = ['bearer', 'basic', 'header', 'relay'] as const;
export type Variant = (typeof VARIANTS)[number];

/** The service's routes, native or relayed alike. */
export type Route = 'submit' | 'read' | 'active' | 'history' | 'all';

export type Fault =
	| { kind: 'bomb'; encoding: Exclude<Encoding, 'identity'>; shape: BombShape; mib: number }
	| { kind: 'hugeList'; items: number }
	| { kind: 'deep'; depth: number }
	| { kind: 'logCpu'; pattern: 'blanks' | 'unclosed'; size: number }
	| { kind: 'status'; status: number; retryAfter?: string }
	| { kind: 'slow'; how: 'drip' | 'silent' | 'headersOnly' }
	| { kind: 'redirect'; status: number }
	| { kind: 'echo'; status: number; form: EchoForm; json: boolean }
	/** A 200 whose job log holds every request header, in `form` first and then in every other echo form. */
	| { kind: 'echoLog'; form: EchoForm }
	/**
	 * A 200 of sane jobs whose values JSON allows but a naive client breaks on (issue 26 §4, §5): lone UTF-16
	 * surrogates in fields, and in the id of an extra listed job; or numbers beyond 2^53 (and beyond a double).
	 */
	| { kind: 'oddValues'; form: OddValues }
	/** A conforming answer of real size: every job's log `logBytes` long, and lists of `jobs` jobs (issue 26 §1). */
	| { kind: 'bigLogs'; logBytes: number; jobs: number }
	| SizeBoundFault;

/**
 * Answers at a size bound of docs/guarantees.md (issue 33): logs of escape-dense text (every character in an escape
 * of some form) filling a 4 MiB job, an 8 MiB list kept whole or a streamed list (up to 256 MiB in the soak tier's
 * seeds); or a list over 8 MiB whose short fields hold the request's header lines (a key no cut ever redacts).
 */
export type SizeBoundFault =
	| { kind: 'denseLogs'; unit: string; bound: 'job' | 'keptWhole' | 'streamed'; bytes: number }
	| { kind: 'keyInBigList'; bytes: number };

export type OddValues = 'loneSurrogates' | 'bigNumbers';

/** A fault on a route for request numbers (operations) or poll numbers (trigger) in [from, to). */
export interface RouteFault {
	route: Route;
	from: number;
	to: number;
	fault: Fault;
	/** The class it stands for, for reports. */
	className: ClassName;
}

/** Misbehaviours of the jobs themselves, over the trigger's polls. */
export type WorldFault =
	| { kind: 'skewedClock'; form: 'dayAhead' | 'garbageFuture' }
	| { kind: 'isoTimes' }
	| { kind: 'hugeStatus'; length: number; count: number }
	| { kind: 'longIds' }
	| { kind: 'duplicates' }
	| { kind: 'impossibleTransitions' }
	| { kind: 'unreadableJob'; status: number };

/** Classes at the size bounds (issue 33): their runs must never block the event loop past BLOCK_GOAL_MS (protocol.ts). */
export const SIZE_BOUND_CLASSES = ['escapeDense', 'keyInBigList'] as const;

export const CLASSES = [
	'sane',
	'brBomb',
	'gzipBomb',
	'multiGzipBomb',
	'deflateBomb',
	'hugeList',
	'deepNesting',
	'logParserCpu',
	'skewedClock',
	'isoTimes',
	'hugeStatus',
	'longIds',
	'duplicates',
	'impossibleTransitions',
	'unreadableJob',
	'errorCodes',
	'retryAfter',
	'drip',
	'silence',
	'headersOnly',
	'redirect',
	'echoError',
	'echoLog',
	'waitPacing',
	'illFormedText',
	'bigNumbers',
	/** Submit run as an AI agent's tool under n8n's Retry On Fail (makeHandleToolInvocation), its try failing after the submission. */
	'aiToolRetry',
	'realisticSize',
	...SIZE_BOUND_CLASSES,
] as const;
export type ClassName = (typeof CLASSES)[number];

/** Classes whose service holds its answers (drips, silence, headers only): only a deadline ends them. */
export const SLOW_CLASSES: ClassName[] = ['drip', 'silence', 'headersOnly'];

/** Classes that are about the trigger's job lists over many polls. */
const WORLD_CLASSES: ClassName[] = ['skewedClock', 'isoTimes', 'hugeStatus', 'longIds', 'duplicates', 'impossibleTransitions', 'unreadableJob'];

export interface WaitSettings {
	pollInterval: number;
	timeout: number;
}

export interface Scenario {
	seed: number;
	target: Target;
	variant: Variant;
	classes: ClassName[];
	faults: RouteFault[];
	world: WorldFault[];
	/** Trigger: polls in all; the first is the baseline, the last `sanePolls` see a service that behaves. */
	polls: number;
	sanePolls: number;
	parseLog: boolean;
	statusOnly: boolean;
	wait?: WaitSettings;
	/** Reads of the job that answer RUNNING before it completes (wait operations). */
	runningReads: number;
	/** Run as an agent's tool, one invocation, with Retry On Fail and this many tries (n8n clamps them to 2-5). */
	tool?: { maxTries: number };
	/**
	 * n8n's event loop kept about 90 % busy by other work in the child (testkit/busyLoop.ts), so that only the wall
	 * ceilings end what the service holds: the run must still end within three times its limits. Long runs of the slow
	 * classes (half the seeds from 1000: those 0 or 1 modulo 4), taken from the seed, not the random stream.
	 */
	busyLoop?: boolean;
	/**
	 * The action node's version: odd seeds run version 2 (its output shapes, Sort, the log as a file), those of them
	 * that are 1 modulo 4 version 2.1 (simplified: the failure reason read from the log, times in a zone, Parse Log's
	 * times converted, distinct log file names). Taken from the seed, not the random stream, so every other choice of a
	 * seed stays what it was.
	 */
	typeVersion: 1 | 2 | 2.1;
	/** Never drawn: the runner's own tests (test/fuzz/fuzz.test.ts, lanes) make the child misbehave with it (child.ts). */
	drill?: 'crash' | 'overMemory' | 'garbage' | 'keyOnConsole';
}

/** Which routes a target uses. */
export function routesOf(target: Target): Route[] {
	switch (target) {
		case 'submit':
			return ['submit'];
		case 'submitAndWait':
			return ['submit', 'read'];
		case 'get':
		case 'wait':
			return ['read'];
		case 'getMany':
			return ['all'];
		case 'navigationUrl':
			return [];
		case 'credentialTest':
			return ['active'];
		default:
			return ['active', 'history'];
	}
}

/** The targets a class can reach: world classes need the trigger, parse-log classes a node that parses logs. */
function targetsFor(className: ClassName): Target[] {
	if (WORLD_CLASSES.includes(className)) return ['trigger'];
	if (className === 'logParserCpu') return ['get', 'wait', 'getMany', 'trigger'];
	if (className === 'waitPacing') return ['wait', 'submitAndWait'];
	if (className === 'aiToolRetry') return ['submit', 'submitAndWait'];
	if (className === 'sane') return [...TARGETS];
	if (className === 'echoLog') return ['get', 'wait', 'submitAndWait', 'getMany', 'trigger'];
	if (className === 'realisticSize' || className === 'escapeDense') return ['get', 'wait', 'submitAndWait', 'getMany', 'trigger', 'listSearch', 'credentialTest'];
	if (className === 'keyInBigList') return ['getMany', 'trigger', 'listSearch'];
	return TARGETS.filter((target) => target !== 'navigationUrl');
}

const STATUSES = [400, 403, 404, 429, 500, 503];
const RETRY_AFTER = ['1', '2', '100000', '-5', 'soon', 'DATE+5', 'Fri, 01 Jan 2100 00:00:00 GMT', 'Thu, 01 Jan 1970 00:00:00 GMT'];

const MIB = 1024 * 1024;
/** Escape-dense units: URL-encoded once and twice, JSON and HTML escapes as text, and characters JSON itself escapes. */
const DENSE_UNITS = ['%41\n', '%2541\n', '\\u0041\n', '&#65;&#x41;\n', '"\\\t'];

/** A fault at a size bound: a 4 MiB job for reads, else an 8 MiB list kept whole or a streamed one (huge: soak seeds). */
function sizeBoundFault(random: Random, className: ClassName, target: Target, huge: boolean): Fault | undefined {
	const single = target === 'get' || target === 'wait' || target === 'submitAndWait';
	if (className === 'keyInBigList') return { kind: 'keyInBigList', bytes: random.pick([9, 12]) * MIB };
	if (className !== 'escapeDense') return undefined;
	const unit = random.pick(DENSE_UNITS);
	if (single) return { kind: 'denseLogs', unit, bound: 'job', bytes: 4 * MIB };
	if (random.chance(0.4)) return { kind: 'denseLogs', unit, bound: 'keptWhole', bytes: 8 * MIB };
	return { kind: 'denseLogs', unit, bound: 'streamed', bytes: random.pick(huge ? [64, 250] : [12, 24]) * MIB };
}

function routeFault(random: Random, className: ClassName, target: Target, seed: number): Fault | undefined {
	const single = target === 'get' || target === 'wait' || target === 'submitAndWait';
	switch (className) {
		case 'brBomb':
			return { kind: 'bomb', encoding: 'br', shape: 'zeros', mib: random.pick([160, 272]) };
		case 'gzipBomb':
			return { kind: 'bomb', encoding: 'gzip', shape: single ? 'log' : 'logList', mib: random.pick([48, 288]) };
		case 'multiGzipBomb':
			return { kind: 'bomb', encoding: 'multiGzip', shape: single ? 'log' : 'logList', mib: random.pick([96, 528]) };
		case 'deflateBomb':
			return { kind: 'bomb', encoding: 'deflate', shape: random.pick(['zeros', single ? 'log' : 'logList'] as BombShape[]), mib: random.pick([64, 200]) };
		case 'hugeList': {
			const items = random.pick([200_000, 1_000_000]);
			// Every other run of the class (by the seed, not the stream) a list of numbers instead of jobs (issue 48:
			// numbers count against the list's bounds too).
			return Math.floor(seed / CLASSES.length) % 2 === 1 ? { kind: 'bomb', encoding: 'gzip', shape: 'numberList', mib: single ? 8 : 24 } : { kind: 'hugeList', items };
		}
		case 'deepNesting':
			return { kind: 'deep', depth: random.pick([20_000, 200_000]) };
		case 'logParserCpu':
			return random.chance(0.5)
				? { kind: 'logCpu', pattern: 'blanks', size: random.int(20_000, 80_000) }
				: { kind: 'logCpu', pattern: 'unclosed', size: random.int(6_000, 12_000) };
		case 'aiToolRetry':
			// The submission's outcome is unknown (the job may exist): a try fails after it, and n8n tries again.
			return { kind: 'status', status: random.pick([500, 502, 503, 504]) };
		case 'errorCodes':
		case 'waitPacing':
			return { kind: 'status', status: className === 'waitPacing' ? random.pick([500, 503]) : random.pick(STATUSES) };
		case 'retryAfter':
			return { kind: 'status', status: random.pick([429, 503]), retryAfter: random.pick(target === 'trigger' ? RETRY_AFTER.slice(0, 2) : RETRY_AFTER) };
		case 'drip':
			return { kind: 'slow', how: 'drip' };
		case 'silence':
			return { kind: 'slow', how: 'silent' };
		case 'headersOnly':
			return { kind: 'slow', how: 'headersOnly' };
		case 'redirect':
			return { kind: 'redirect', status: random.pick([301, 302, 303, 307, 308]) };
		case 'echoError':
			return { kind: 'echo', status: random.pick([400, 401, 403, 404, 429, 500, 503]), form: random.pick(ECHO_FORMS), json: random.chance(0.5) };
		case 'echoLog':
			return { kind: 'echoLog', form: random.pick(ECHO_FORMS) };
		case 'illFormedText':
			return { kind: 'oddValues', form: 'loneSurrogates' };
		case 'bigNumbers':
			return { kind: 'oddValues', form: 'bigNumbers' };
		case 'realisticSize':
			return { kind: 'bigLogs', logBytes: random.pick([100 * 1024, 400 * 1024, 1024 * 1024]), jobs: 100 };
		default:
			// Streamed lists of 64 and 250 MiB only in the soak tier's seeds (from 1000 on).
			return sizeBoundFault(random, className, target, seed >= 1000);
	}
}

function worldFault(random: Random, className: ClassName): WorldFault | undefined {
	switch (className) {
		case 'skewedClock':
			return { kind: 'skewedClock', form: random.pick(['dayAhead', 'garbageFuture'] as const) };
		case 'isoTimes':
			return { kind: 'isoTimes' };
		case 'hugeStatus':
			return { kind: 'hugeStatus', length: random.pick([2_000, 20_008]), count: random.pick([100, 500]) };
		case 'longIds':
			return { kind: 'longIds' };
		case 'duplicates':
			return { kind: 'duplicates' };
		case 'impossibleTransitions':
			return { kind: 'impossibleTransitions' };
		case 'unreadableJob':
			return { kind: 'unreadableJob', status: random.pick([403, 404, 429, 500, 503]) };
		default:
			return undefined;
	}
}

/** Polls a world fault needs to show (900 skewed end times take ten polls of 90). */
function pollsFor(world: WorldFault[]): number {
	const needs = world.map((fault) => (fault.kind === 'skewedClock' ? 11 : fault.kind === 'isoTimes' ? 13 : fault.kind === 'longIds' ? 4 : 5));
	return Math.max(5, ...needs);
}

/**
 * Where on the target's routes a fault lands: on one route, for one request/poll or for all of them; never over
 * another fault (both would not show). Undefined when there is no room left.
 */
function placeFault(random: Random, scenario: Scenario, className: ClassName, fault: Fault): RouteFault | undefined {
	const routes = routesOf(scenario.target);
	let route = random.pick(routes);
	// Echoed logs and parse-log padding are job bodies: they go where finished jobs are read.
	if (fault.kind === 'echoLog' || fault.kind === 'logCpu' || fault.kind === 'bigLogs' || fault.kind === 'denseLogs' || fault.kind === 'keyInBigList') route = routes.includes('read') ? 'read' : routes.includes('history') ? 'history' : route;
	if (className === 'waitPacing') route = 'read';
	// The tool's try fails on its submission, or (Submit and wait) on every read of the job it created.
	if (className === 'aiToolRetry') route = routes.includes('read') && random.chance(0.5) ? 'read' : 'submit';
	const taken = scenario.faults.filter((placed) => placed.route === route);
	const end = scenario.target === 'trigger' ? scenario.polls - scenario.sanePolls : Number.MAX_SAFE_INTEGER;
	let from = scenario.target === 'trigger' ? random.int(1, end - 1) : 0;
	if (taken.length > 0) from = Math.max(...taken.map((placed) => placed.to));
	if (from >= end) return undefined;
	const once = className === 'waitPacing' || (random.chance(0.5) && !(className === 'aiToolRetry' && route === 'read'));
	// Past the backoff cap, the transient error outlasts one call's attempts (4), so that the wait's own backoff shows.
	const span = className === 'waitPacing' && (scenario.wait?.pollInterval ?? 0) > 60 ? 4 : 1;
	return { route, from, to: once ? from + span : end, fault, className };
}

export function scenarioFor(seed: number): Scenario {
	const random = new Random(seed * 7919 + 17);
	const primary = CLASSES[seed % CLASSES.length];
	const target = random.pick(targetsFor(primary));
	const variant: Variant = target === 'navigationUrl' ? random.pick(['bearer', 'basic', 'header'] as const) : random.pick(VARIANTS);
	const classes: ClassName[] = [primary];
	// Now and then a second misbehaviour of another route class rides along.
	if (primary !== 'sane' && target !== 'navigationUrl' && random.chance(0.35)) {
		const extra = random.pick(CLASSES.filter((name) => name !== 'sane' && name !== 'waitPacing' && targetsFor(name).includes(target)));
		if (!classes.includes(extra)) classes.push(extra);
	}
	const world = classes.map((name) => worldFault(random, name)).filter((fault): fault is WorldFault => fault !== undefined);
	const scenario: Scenario = {
		seed,
		target,
		variant,
		classes,
		faults: [],
		world,
		polls: target === 'trigger' ? pollsFor(world) + 3 : 1,
		sanePolls: 3,
		parseLog: classes.includes('logParserCpu') || random.chance(0.3),
		statusOnly: target === 'get' && !classes.includes('logParserCpu') && !classes.includes('echoLog') && random.chance(0.2),
		runningReads: random.int(0, 1),
		typeVersion: seed % 4 === 1 ? 2.1 : seed % 2 === 1 ? 2 : 1,
	};
	if (target === 'wait' || target === 'submitAndWait') {
		// Long intervals (past the backoff cap) only in long runs: they take more than a minute.
		const long = classes.includes('waitPacing') && seed >= 1000 && random.chance(0.3);
		// A bomb needs time to be read whole: those waits get a Timeout long enough for it.
		const bombs = classes.some((name) => name.endsWith('Bomb') || name === 'hugeList' || name === 'deepNesting');
		scenario.wait = long ? { pollInterval: 75, timeout: 80 } : { pollInterval: 1, timeout: bombs ? 20 : random.int(3, 5) };
	}
	for (const name of [...classes]) {
		const fault = routeFault(random, name, target, seed);
		const placed = fault && routesOf(target).length > 0 ? placeFault(random, scenario, name, fault) : undefined;
		if (placed) scenario.faults.push(placed);
		else if (fault) classes.splice(classes.indexOf(name), 1);
	}
	if (classes.includes('aiToolRetry')) scenario.tool = { maxTries: random.int(2, 5) };
	if (seed >= 1000 && seed % 4 < 2 && classes.some((name) => SLOW_CLASSES.includes(name))) scenario.busyLoop = true;
	return scenario;
}

/** One line per fault, for reproductions. */
export function describeScenario(scenario: Scenario): string {
	const faults = scenario.faults.map((placed) => {
		const span = placed.to === Number.MAX_SAFE_INTEGER ? `from ${placed.from} on` : `${placed.from}..${placed.to - 1}`;
		const unit = scenario.target === 'trigger' ? 'polls' : 'requests';
		return `${placed.className} on ${placed.route} (${unit} ${span}): ${JSON.stringify(placed.fault)}`;
	});
	const world = scenario.world.map((fault) => `jobs: ${JSON.stringify(fault)}`);
	const options = [
		scenario.typeVersion >= 2 && scenario.target !== 'trigger' ? `version ${scenario.typeVersion}` : '',
		scenario.parseLog ? 'Parse Log' : '',
		scenario.statusOnly ? 'Status Only' : '',
		scenario.wait ? `Poll Interval ${scenario.wait.pollInterval} s, Timeout ${scenario.wait.timeout} s` : '',
		scenario.target === 'trigger' ? `${scenario.polls} polls (last ${scenario.sanePolls} sane)` : '',
		scenario.tool ? `as an AI tool, Retry On Fail, ${scenario.tool.maxTries} tries` : '',
		scenario.busyLoop ? "n8n's event loop 90 % busy with other work" : '',
	].filter(Boolean);
	return [`target ${scenario.target}, credential ${scenario.variant}${options.length ? `, ${options.join(', ')}` : ''}`, ...faults, ...world].join('\n  ');
}

/**
 * The trigger as saved: version 1, version 2 simplified or version 2 raw by the seed modulo 3, and version 2.1
 * simplified (the failure reason from the log, times in the workflow's zone) for seeds that are 3 modulo 4. Not drawn,
 * so every other choice a seed makes stays what it was.
 */
export function triggerShape(seed: number): { typeVersion: number; parameters: INodeParameters } {
	if (seed % 4 === 3) return { typeVersion: 2.1, parameters: { simplify: true } };
	const shapes = [{ typeVersion: 1, parameters: {} }, { typeVersion: 2, parameters: { simplify: true } }, { typeVersion: 2, parameters: { simplify: false } }];
	return shapes[seed % shapes.length];
}
