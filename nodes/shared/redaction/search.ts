/**
 * The search of the model (index.ts) over one text, step by step: each step reads a fixed number of the text's
 * characters through every reading (readings.ts) and runs the automaton (automaton.ts) over each reading, carrying
 * every state to the next step, so a step's work is bounded whatever the keys' length, and a form across two steps
 * is found without searching anything twice. Pure: the caller decides when the event loop gets a turn.
 */
import { Automaton, Kind, Scanner } from './automaton';
import { modelForms } from './forms';
import { Chars, Decode, HEX_JOINT, HexDump, mayHoldHexRun, Unwrap } from './readings';
import type { Stage } from './readings';

/** Characters of the text read per step, whatever the keys: a step's work is a bounded multiple of this. */
export const STEP_CHARS = 64 * 1024;

/**
 * Characters of a text's first step. Each step after it reads as much as all before it, up to STEP_CHARS, so every
 * multiple of STEP_CHARS stays a step's edge: code not yet compiled in this process costs several times more per
 * character (an escape-dense log's first 64 Ki-character step took 65-87 ms of CPU, the next ones 10), and a text
 * starts small enough for that.
 */
export const FIRST_STEP_CHARS = 2 * 1024;

/** Where the step starting at `from` ends (before the text's end): see FIRST_STEP_CHARS. */
export function stepEnd(from: number): number {
	return from + Math.min(STEP_CHARS, Math.max(FIRST_STEP_CHARS, from));
}

/**
 * The plan's passes over a whole text (planFor, and the search for a form's start), in characters searched per
 * character: native searches and one plain loop, together about half what a character read through a reading and
 * searched costs. Counted, so a text the shortcuts leave alone still costs its caller what it took (the fuzz soak's
 * seed 1000: a huge status counted nothing, and blocked the event loop 222 ms), and bounded like a step: only a text
 * of at most PLAN_WHOLE_CHARS is planned, in three passes that yield their work in turn.
 */
const PLAN_WORK_PER_CHAR = 0.5;

/**
 * The longest text planned whole, cut short or not: twice what is kept of a string (MAX_STRING_CHARS), so a job
 * answer's log (at most its 4 MiB cap) is planned, and a realistic log past the cut is not read through every reading
 * (that took 450 ms of CPU per 4 MiB answer, against 35). A longer text (a huge value in a list) is read through every
 * reading up to its cut, never planned: its plan would cost what it is long, not what is kept.
 */
export const PLAN_WHOLE_CHARS = 64 * STEP_CHARS;

/** Characters after a key's hex up to the end of its line hidden with it: a dump's ASCII column shows the same bytes. */
const DUMP_LINE_TAIL = 80;

/** The end of the line holding `at` when it is near (a dump's ASCII column), else `at`. */
function lineEnd(text: string, at: number): number {
	const end = text.slice(at, at + DUMP_LINE_TAIL + 1).search(/[\r\n]/);
	if (end !== -1) return at + end;
	return text.length - at <= DUMP_LINE_TAIL ? text.length : at;
}

type Range = [number, number];

/** The forms compiled once per list of strings to hide. */
interface Compiled {
	automaton: Automaton;
	plusIsSpace: boolean;
	numbers: number[];
	/** The shortest hex form: a text is given the hex readings only where a run of hex digits as long may be. */
	shortestHex: number;
	/** Readers no step holds, kept for the next text (a reader holds a text's every reading state). */
	idle: Reader[];
}

/** Which readings a text needs: none where they would read it unchanged, or could find nothing. */
interface Plan {
	/** The unwrap-and-decode reading: the text holds a character that may start an escape, or a line break. */
	escapes: boolean;
	/**
	 * The text holds a character that may start an escape: the decode, and the second reading. Without one, reading
	 * once only unwraps, and reading again changes nothing (unwrapping twice is unwrapping once).
	 */
	twice: boolean;
	/** The text holds joined hex (HEX_JOINT): the hex reading of the text. */
	dump: boolean;
	/** Hex forms, and escapes: the hex reading of the text read once and twice. */
	dumpRead: boolean;
}

/**
 * The readings a text needs. Without escapes, a line break makes one reading (unwrapped) that could find what the text
 * does not: it is made when a form may start in it (the automaton's native search, a lone line break allowed between
 * the characters it looks for), or when its hex reading may hold a hex form. A hex reading is made only where a run
 * of hex digits as long as the shortest hex form may be (mayHoldHexRun). Its passes yield their work in turn (a third
 * of the plan's each), so a text of PLAN_WHOLE_CHARS is planned without holding the event loop for all of them.
 */
function* planFor(compiled: Compiled, text: string): Generator<number, Plan, void> {
	const pass = Math.ceil((PLAN_WORK_PER_CHAR * text.length) / 3);
	const twice = (compiled.plusIsSpace ? /[%\\&+]/ : /[%\\&]/).test(text);
	const breaks = /[\r\n]/.test(text);
	yield pass;
	const hex = compiled.shortestHex < Infinity && (twice || mayHoldHexRun(text, compiled.shortestHex));
	yield pass;
	const escapes = twice || (breaks && (hex || formMayStart(compiled.automaton.wrappedStarts, text)));
	const plan = { escapes, twice, dump: hex && HEX_JOINT.test(text), dumpRead: hex && escapes };
	yield pass;
	return plan;
}

/** Every reading (the plan of a text too long to plan whole): the hex ones when there are hex forms. */
function everyReading(compiled: Compiled): Plan {
	const hex = compiled.shortestHex < Infinity;
	return { escapes: true, twice: true, dump: hex, dumpRead: hex };
}

/** Whether a search of forms' first characters (Automaton.starts, wrappedStarts) finds one in the text. */
function formMayStart(starts: RegExp, text: string): boolean {
	starts.lastIndex = 0;
	return starts.test(text);
}

/** The state of every reading of one text, and the ranges found so far. */
class Reader {
	private source = '';
	private readonly text = new Chars();
	private readonly unwrapOnce = new Unwrap();
	private readonly decodeOnce: Decode;
	private readonly unwrapTwice = new Unwrap();
	private readonly decodeTwice: Decode;
	private readonly dump = new HexDump();
	private readonly dumpRead = new HexDump();
	private readonly dumpReadTwice = new HexDump();
	private readonly scanners: Scanner[];
	ranges: Range[] = [];

	constructor(compiled: Compiled) {
		this.decodeOnce = new Decode(compiled.plusIsSpace);
		this.decodeTwice = new Decode(compiled.plusIsSpace);
		const found = (start: number, end: number, kind: Kind) => this.add(start, kind === Kind.Hex ? lineEnd(this.source, end) : end);
		this.scanners = [false, false, false, true, true, true].map((hexOnly) => new Scanner(compiled.automaton, hexOnly, found));
	}

	start(source: string): void {
		this.source = source;
		this.ranges = [];
		for (const stage of this.stages()) stage.reset();
		for (const scanner of this.scanners) scanner.reset();
	}

	/**
	 * Reads characters [from, to) through every reading the plan names; returns the work: characters read by each
	 * reading, and by the automaton over each (with the links it followed).
	 */
	step(from: number, to: number, final: boolean, plan: Plan): number {
		const [asIs, once, twice, dump, dumpRead, dumpReadTwice] = this.scanners;
		this.text.fill(this.source, from, to);
		let work = asIs.scan(this.text);
		if (plan.escapes) {
			const unwrapped = this.unwrapOnce.read(this.text, final);
			const read = plan.twice ? this.decodeOnce.read(unwrapped, final) : unwrapped;
			work += this.text.length + unwrapped.length + once.scan(read);
			if (plan.dumpRead) work += read.length + dumpRead.scan(this.dumpRead.read(read, final));
			if (plan.twice) {
				const unwrappedTwice = this.unwrapTwice.read(read, final);
				const readTwice = this.decodeTwice.read(unwrappedTwice, final);
				work += read.length + unwrappedTwice.length + twice.scan(readTwice);
				if (plan.dumpRead) work += readTwice.length + dumpReadTwice.scan(this.dumpReadTwice.read(readTwice, final));
			}
		}
		if (plan.dump) {
			const dumped = this.dump.read(this.text, final);
			work += this.text.length + dump.scan(dumped);
		}
		if (final) for (const scanner of this.scanners) scanner.finish();
		return work;
	}

	/** Where the earliest form that may still be found starts in the text: past it, nothing more can reach back. */
	openFrom(): number {
		let open = Infinity;
		for (const stage of this.stages()) open = Math.min(open, stage.openFrom());
		for (const scanner of this.scanners) open = Math.min(open, scanner.openFrom());
		return open;
	}

	private stages(): Stage[] {
		return [this.unwrapOnce, this.decodeOnce, this.unwrapTwice, this.decodeTwice, this.dump, this.dumpRead, this.dumpReadTwice];
	}

	private add(start: number, end: number): void {
		const last = this.ranges[this.ranges.length - 1];
		if (last !== undefined && start <= last[1] && end >= last[0]) {
			last[0] = Math.min(last[0], start);
			last[1] = Math.max(last[1], end);
		} else this.ranges.push([start, end]);
	}
}

/** The first `keep` characters of the text with each range starting in them (merged where they overlap) replaced by ***. */
function replaceRanges(text: string, found: Range[], keep: number): string {
	const ranges = found.filter(([from]) => from < keep);
	if (ranges.length === 0) return keep >= text.length ? text : text.slice(0, keep);
	ranges.sort((a, b) => a[0] - b[0]);
	const parts: string[] = [];
	let last = 0;
	for (let index = 0; index < ranges.length; index++) {
		const from = ranges[index][0];
		let to = ranges[index][1];
		while (index + 1 < ranges.length && ranges[index + 1][0] <= to) to = Math.max(to, ranges[++index][1]);
		parts.push(text.slice(last, Math.max(last, from)), '***');
		last = Math.max(last, to);
	}
	if (last < keep) parts.push(text.slice(last, keep));
	return parts.join('');
}

/**
 * Redaction of one text, step by step: each step yields the work it did, so that a caller can give the event loop a
 * turn; the result is the text's first `keep` characters, each form replaced by ***. Only what is kept is read, and
 * past the cut only as long as a form begun before it may still end, so a key cut at the edge is hidden whole.
 */
function* redactSteps(compiled: Compiled, text: string, keep: number): Generator<number, string, void> {
	const kept = Math.min(keep, text.length);
	if (text.length < compiled.automaton.shortest) return kept === text.length ? text : text.slice(0, kept);
	// A text up to PLAN_WHOLE_CHARS is planned whole, its passes' work counted so the caller gives the event loop its
	// turns; a longer one (cut short) is read up to its cut through every reading, as in a step, never searched whole.
	const plan = text.length <= PLAN_WHOLE_CHARS ? yield* planFor(compiled, text) : everyReading(compiled);
	// Only the text itself to search, and no form's start in it: nothing to hide.
	if (!plan.escapes && !plan.dump && !formMayStart(compiled.automaton.starts, text)) return kept === text.length ? text : text.slice(0, kept);
	const reader = compiled.idle.pop() ?? new Reader(compiled);
	reader.start(text);
	for (let from = 0; ; from = stepEnd(from)) {
		const to = Math.min(text.length, stepEnd(from));
		const final = to === text.length;
		yield reader.step(from, to, final, plan);
		if (final || (to >= kept && reader.openFrom() >= kept)) break;
	}
	const redacted = replaceRanges(text, reader.ranges, kept);
	reader.start('');
	compiled.idle.push(reader);
	return redacted;
}

/** Runs steps to their end at once. */
export function runAll<T>(steps: Generator<unknown, T, void>): T {
	for (;;) {
		const next = steps.next();
		if (next.done === true) return next.value;
	}
}

/** What one redaction costs the caller: the text's steps, to run at once or with a turn of the event loop between. */
export interface RedactionWork {
	/** Steps (each yields the work it did) ending with the first `keep` characters of the text, redacted. */
	steps(text: string, keep?: number): Generator<number, string, void>;
	/** The whole text redacted at once, and the work it took (for texts of one step: see sliceChars). */
	now(text: string): { text: string; work: number };
	/** The value to output in place of a number that writes a key (compared as its text), or undefined. */
	number(value: number): string | undefined;
	/** Characters a text's first step reads (FIRST_STEP_CHARS): a text up to this long is one step. */
	sliceChars: number;
}

/** One compiled redaction per list of forms (a connection derives its list once), so redacting many strings is cheap. */
const compiledWork = new WeakMap<readonly string[], RedactionWork>();

/** The redaction of these strings to hide (secretForms), step by step (see RedactionWork). */
export function redactionWork(secrets: readonly string[]): RedactionWork {
	const known = compiledWork.get(secrets);
	if (known) return known;
	const model = modelForms(secrets);
	const automaton = new Automaton(model.forms);
	const shortestHex = Math.min(...automaton.lengths.filter((_, form) => automaton.kinds[form] === Kind.Hex));
	const compiled: Compiled = { automaton, plusIsSpace: model.plusIsSpace, numbers: model.numbers, shortestHex, idle: [] };
	const now = (text: string) => {
		let work = 0;
		const steps = redactSteps(compiled, text, text.length);
		for (let next = steps.next(); ; next = steps.next()) {
			if (next.done === true) return { text: next.value, work: Math.max(1, work) };
			work += next.value;
		}
	};
	const work: RedactionWork = {
		steps: (text, keep = text.length) => redactSteps(compiled, text, keep),
		now,
		number: (value) => {
			const text = String(value);
			const redacted = now(text).text;
			if (redacted !== text) return redacted;
			// A key of more digits than a double holds comes back from JSON.parse rounded: the same double is the key.
			return compiled.numbers.includes(value) ? '***' : undefined;
		},
		sliceChars: FIRST_STEP_CHARS,
	};
	compiledWork.set(secrets, work);
	return work;
}

/** A function replacing every form by ***, at once: for texts already bounded small (errors, messages). */
export function redactor(secrets: readonly string[]): (text: string) => string {
	const work = redactionWork(secrets);
	return (text) => runAll(work.steps(text));
}

/** Replaces every form by ***: the final guard on whatever a server or library echoed. */
export function redact(text: string, secrets: readonly string[]): string {
	if (secrets.length === 0 || text === '') return text;
	return redactor(secrets)(text);
}
