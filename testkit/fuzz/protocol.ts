/** What the runner and a fuzz child say to each other over IPC, and the bounds both sides use. */
import { SIZE_BOUND_CLASSES } from './scenario';
import type { Scenario } from './scenario';

/** The child's V8 heap cap (node --max-old-space-size). */
export const HEAP_CAP_MB = 512;
/** Resident memory a run may reach; the runner kills the child past it (a bomb would take gigabytes). */
export const RSS_CAP_MB = 768;
/**
 * Longest event-loop block allowed in a run, in CPU time of the child (so that waiting for a core on a loaded machine
 * does not count). n8n main runs the trigger, the list search and the credential test: a block there stalls the
 * editor and every other workflow. Sane runs stay far below it; the parse-log blocks of today's code are 0.4 s to 20 s.
 */
export const EVENT_LOOP_BLOCK_MS = 250;
/**
 * The stated bound (docs/guarantees.md): no answer within the package's bounds blocks the event loop for more than
 * this, in CPU time. Runs whose misbehaviours are all within those bounds (the size-bound classes) are held to it.
 */
export const BLOCK_GOAL_MS = 100;

/** The longest block a run may show: BLOCK_GOAL_MS where the service stayed within the stated bounds. */
export function blockBoundMs(scenario: Pick<Scenario, 'classes'>): number {
	return scenario.classes.some((name) => (SIZE_BOUND_CLASSES as readonly string[]).includes(name)) &&
		scenario.classes.every((name) => name === 'sane' || (SIZE_BOUND_CLASSES as readonly string[]).includes(name) || name === 'realisticSize')
		? BLOCK_GOAL_MS
		: EVENT_LOOP_BLOCK_MS;
}
/**
 * A child silent this long, having spent at least HEARTBEAT_KILL_CPU_MS of CPU since its last heartbeat, is blocked
 * for good: the runner kills it rather than wait (reported as a block). A child only waiting for a core is left alone.
 */
export const HEARTBEAT_KILL_MS = 3000;
export const HEARTBEAT_KILL_CPU_MS = 1000;
/** The trigger's stored state, whatever the lists hold (README: under 100 KiB). */
export const DEFAULT_STATE_BOUND_BYTES = 100 * 1024;
/**
 * Output of one run (one poll for the trigger): at most 500 items per list it reads (the trigger reads at most 500
 * jobs of a list; the service promises 100), and for the trigger its default 25 individual reads on top ...
 */
export const ITEMS_PER_LIST = 500;
export function outputItemsBound(target: Scenario['target']): number {
	if (target === 'trigger') return 2 * ITEMS_PER_LIST + 25;
	return target === 'listSearch' ? 2 * ITEMS_PER_LIST : ITEMS_PER_LIST;
}
/** ... and this much text, serialisable as JSON (n8n sends items as JSON to the editor, queue workers, tools). */
export const OUTPUT_BYTES_BOUND = 16 * 1024 * 1024;
/** The child stops scanning an output for secrets past this (it already broke the bound above). */
export const OUTPUT_SCAN_LIMIT_BYTES = 64 * 1024 * 1024;
/**
 * Wall-clock limits the child sets through the transport's test knob (transportTiming): short where the service
 * drips or stays silent (so those runs end in seconds), long enough elsewhere for a bomb to be read whole.
 */
/** The transport's own call limit, in effect when it has no test knob. */
export const DEFAULT_CALL_MS = 60_000;

export function limitsFor(scenario: Pick<Scenario, 'classes'>): { attemptMs: number; callMs: number } {
	const slow = scenario.classes.some((name) => name === 'drip' || name === 'silence' || name === 'headersOnly');
	if (slow) return { attemptMs: 2000, callMs: 4000 };
	// Answers of real size (100 MiB lists) and at the size bounds get the transport's own limits, as they would in n8n.
	const real = scenario.classes.includes('realisticSize') || scenario.classes.some((name) => (SIZE_BOUND_CLASSES as readonly string[]).includes(name));
	return real ? { attemptMs: 20_000, callMs: 60_000 } : { attemptMs: 15_000, callMs: 20_000 };
}
/** Spare time on every bound, for a loaded machine. */
export const SLACK_MS = 4000;

export interface OutputFigures {
	items: number;
	bytes: number;
	maxDepth: number;
	serialisable: boolean;
	/** False when the output was too large to scan whole. */
	scanned: boolean;
}

export interface PollReport {
	poll: number;
	ms: number;
	/** [id, executionStatus] of every emitted item. */
	events: Array<[string, string]>;
	error?: string;
	stateBytes: number;
}

export interface ChildReport {
	elapsedMs: number;
	/** Longest event-loop block, counted in CPU time (see child.ts watchBlocks). */
	maxLagMs: number;
	/** The same in wall time (monitorEventLoopDelay), for reports: it includes waiting for a core. */
	maxWallLagMs: number;
	peakRssMb: number;
	output: OutputFigures;
	/** The run's error, secrets blanked. */
	error?: string;
	/** Where a secret showed: output, error, n8n log, trigger error, trigger state. */
	secretsFound: string[];
	polls?: PollReport[];
	/** The credential test's verdict (OK or Error). */
	resultStatus?: string;
	logLines: number;
	logSample: string[];
}

/**
 * What a child writes to its stdout and stderr once a scenario is over and its garbage collected: the runner counts
 * the console up to it as that seed's.
 */
export const SEED_END_MARK = '\n[fuzz child: seed over]\n';

export type ParentMessage = { type: 'run'; scenario: Scenario; url: string } | { type: 'go' };

export type ChildMessage =
	/** Warmed up, or done with a scenario and collected: ready for the next. */
	| { type: 'ready' }
	| { type: 'beat'; rss: number }
	| { type: 'poll'; poll: number }
	/** The call limit in effect in the child. */
	| { type: 'limits'; callMs: number }
	| { type: 'done'; report: ChildReport }
	| { type: 'failed'; message: string };
