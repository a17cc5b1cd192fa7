/**
 * The redaction search's shortcuts (nodes/shared/redaction/search.ts, readings.ts), generated from what they claim:
 * each leaves a reading out, or reads past part of a text, only where that reading could find nothing, so the
 * redaction is the same as with every reading made in full.
 * - mayHoldHexRun: where it says no run of N hex digits may be there, neither the hex reading of the text nor that of
 *   its unwrap reading holds one.
 * - the hex reading read in pieces, as the search reads a long text, holds the same runs long enough for a hex form
 *   as the text read at once.
 * - the unwrap reading left out where no form's first characters show in it (Automaton.wrappedStarts), and the text
 *   left alone where nothing but itself is read and none shows (Automaton.starts): redact() hides every form, wrapped
 *   anywhere, as the model says (the key's form cut by lone line breaks, in ordinary text).
 * Texts are drawn from the characters the rules turn on (hex digits in both cases, white space and line breaks,
 * separators, a column's `|`, and letters that are not hex), so the edges of each rule come up often.
 */
import fc from 'fast-check';

import { PLAN_WHOLE_CHARS, redact, redactionWork, secretForms, STEP_CHARS } from '../../nodes/shared/redaction';
import { Chars, HexDump, mayHoldHexRun, readThrough, stringOf, Unwrap } from '../../nodes/shared/redaction/readings';
import { MODEL_SEED } from '../../testkit/redactionModel';

const RUNS = Number(process.env.MODEL_RUNS ?? 400);

/** Characters the hex reading's rules turn on, drawn more often than others. */
const DUMP_ALPHABET = ['0', '7', 'a', 'F', 'e', 'C', ' ', '  ', ' ', '\t', '\n', '\r\n', '\r', ':', '.', '-', '|', '|zz|', 'z', 'G', 'x', '00000010: ', '00000020  ', ' - - - - - - '];
const dumpText = (maxLength: number) => fc.array(fc.constantFrom(...DUMP_ALPHABET), { maxLength }).map((parts) => parts.join(''));

/** The longest run of hex digits in a hex reading (its output is lower case). */
function longestRun(reading: string): number {
	return Math.max(0, ...(reading.match(/[0-9a-f]+/g) ?? []).map((run) => run.length));
}

/** The runs of at least `length` hex digits of the text's hex reading, read at once. */
function longRunsAtOnce(text: string, length: number): string[] {
	return (readThrough(text, [new HexDump()]).match(/[0-9a-f]+/g) ?? []).filter((run) => run.length >= length);
}

/** The same, read in pieces of STEP_CHARS as search.ts reads a text. */
function longRunsInPieces(text: string, length: number): string[] {
	const stage = new HexDump();
	stage.reset();
	const piece = new Chars();
	let reading = '';
	for (let from = 0; from < text.length; from += STEP_CHARS) {
		const to = Math.min(text.length, from + STEP_CHARS);
		piece.fill(text, from, to);
		const read = stage.read(piece, to === text.length);
		reading += stringOf(read, 0, read.length);
	}
	return (reading.match(/[0-9a-f]+/g) ?? []).filter((run) => run.length >= length);
}

test('mayHoldHexRun: where it finds no run of N hex digits, neither hex reading (of the text, of its unwrap reading) holds one', () => {
	fc.assert(
		fc.property(dumpText(120), fc.integer({ min: 2, max: 24 }), (text, length) => {
			const longest = Math.max(longestRun(readThrough(text, [new HexDump()])), longestRun(readThrough(text, [new Unwrap(), new HexDump()])));
			if (longest >= length) expect(mayHoldHexRun(text, length)).toBe(true);
		}),
		{ seed: MODEL_SEED, numRuns: RUNS * 5 },
	);
});

test('mayHoldHexRun says no where the runs are short: a log of dates and words, 16 hex digits asked for', () => {
	const line = '2026-01-05 09:00:07.125 [pool-1-thread-3] PERFORMANCE Node finished in 0.7 seconds\n';
	expect(mayHoldHexRun(line.repeat(100), 18)).toBe(false);
	// The date and time read as 17 joined digits: one short of the 18 asked, exactly the 17.
	expect(mayHoldHexRun(line.repeat(100), 17)).toBe(true);
});

test('the hex reading read in pieces holds the runs the text read at once does', () => {
	const filler = fc.constantFrom('lorem ipsum 2026 dolor\n', '2026-01-05 09:00:07.125 [main] INFO row 12\n', 'ab cd ef  |zz|\n', 'G');
	fc.assert(
		fc.property(dumpText(400), fc.array(filler, { minLength: 1, maxLength: 3 }), fc.nat({ max: 900 }), fc.integer({ min: 8, max: 64 }), (dump, fillers, shift, length) => {
			// A dump across the first piece's edge (or the lookahead before it), in a text of three pieces.
			const pad = fillers.join('');
			const at = Math.max(0, STEP_CHARS - shift);
			const before = pad.repeat(Math.ceil(at / pad.length)).slice(0, at);
			const text = `${before}${dump}${pad.repeat(Math.ceil((2 * STEP_CHARS) / pad.length))}`;
			expect(longRunsInPieces(text, length)).toEqual(longRunsAtOnce(text, length));
		}),
		{ seed: MODEL_SEED, numRuns: Math.max(20, RUNS / 10) },
	);
});

test('a key wrapped anywhere by lone line breaks, in ordinary text with line breaks, is hidden', () => {
	const key = 'Wr4pped-key_0123456789';
	const forms = secretForms([key]);
	fc.assert(
		fc.property(fc.uniqueArray(fc.integer({ min: 1, max: key.length - 1 }), { maxLength: 3 }), fc.constantFrom('\n', '\r\n', '\r'), fc.constantFrom('', 'note: ', 'x\n'), (cuts, lineBreak, lead) => {
			const wrapped = [0, ...cuts.sort((a, b) => a - b), key.length].slice(1).map((end, index, ends) => key.slice(index === 0 ? 0 : ends[index - 1], end)).join(lineBreak);
			const text = `${lead}line one\n${wrapped}\nline three`;
			expect(redact(text, forms)).not.toContain(wrapped);
		}),
		{ seed: MODEL_SEED, numRuns: RUNS },
	);
});

test('an ASCII column of exactly 18 characters joins the runs on either side of it, in the reading and in mayHoldHexRun', () => {
	const bytes = (from: number) => Array.from({ length: 16 }, (_, n) => (from + n).toString(16).padStart(2, '0')).join(' ');
	const text = `00000000  ${bytes(0x40)}  |${'z'.repeat(16)}|\n00000010  ${bytes(0x50)}  |${'z'.repeat(16)}|\nzz`;
	const joined = longestRun(readThrough(text, [new HexDump()]));
	// Both lines' 16 bytes read as one run of 64 digits: the column's 18th character (its closing `|`) is dropped with it.
	expect(joined).toBe(64);
	expect(mayHoldHexRun(text, joined)).toBe(true);
});

test('a sparse run across the first piece\'s edge (one hex digit in 14 characters) is read whole', () => {
	const length = 64;
	const filler = 'lorem ipsum dolor\n';
	const start = STEP_CHARS - 256 - 40;
	const text = `${filler.repeat(Math.ceil(start / filler.length)).slice(0, start)}${'a - - - - - - '.repeat(80)}z${filler.repeat(Math.ceil((2 * STEP_CHARS) / filler.length))}`;
	expect(longRunsAtOnce(text, length)).toEqual(['a'.repeat(80)]);
	expect(longRunsInPieces(text, length)).toEqual(['a'.repeat(80)]);
});

test('a run begun in one piece and ended in the next is read whole, though the next alone holds no run long enough', () => {
	const length = 79;
	const filler = 'lorem ipsum dolor\n';
	const start = STEP_CHARS - 256 - 30;
	// A long run first, so the first piece is read; then 80 digits, 2 of them before the first piece's end.
	const head = `${'a'.repeat(100)}z`;
	const text = `${head}${filler.repeat(Math.ceil(start / filler.length)).slice(0, start - head.length)}${'a - - - - - - '.repeat(80)}z${filler.repeat(Math.ceil((2 * STEP_CHARS) / filler.length))}`;
	expect(longRunsAtOnce(text, length)).toEqual(['a'.repeat(100), 'a'.repeat(80)]);
	expect(longRunsInPieces(text, length)).toEqual(['a'.repeat(100), 'a'.repeat(80)]);
});

test('a run long enough before a piece\'s end goes on into the next piece, though what it holds there alone is short', () => {
	const length = 64;
	const filler = 'lorem ipsum dolor\n';
	const start = STEP_CHARS - 256 - 80;
	const text = `${filler.repeat(Math.ceil(start / filler.length)).slice(0, start - 1)}z${'b'.repeat(110)}z${filler.repeat(Math.ceil((2 * STEP_CHARS) / filler.length))}`;
	expect(longRunsAtOnce(text, length)).toEqual(['b'.repeat(110)]);
	expect(longRunsInPieces(text, length)).toEqual(['b'.repeat(110)]);
});

test('a text the shortcuts leave alone still counts its work: at least half a unit per character, so the caller gives the event loop its turns (fuzz soak, seed 1000: a huge status blocked 222 ms)', () => {
	const work = redactionWork(secretForms(['Wr4pped-key_0123456789']));
	fc.assert(
		fc.property(fc.oneof(dumpText(200), fc.string({ maxLength: 200 }), fc.constantFrom('COMPLETED'.repeat(5000), 'plain text, no key\n'.repeat(3000))), (text) => {
			let counted = 0;
			const steps = work.steps(text);
			for (let next = steps.next(); next.done !== true; next = steps.next()) counted += next.value;
			// A text shorter than every form is returned at once, whatever its content (constant work).
			if (text.length >= 64) expect(counted).toBeGreaterThanOrEqual(text.length / 2);
		}),
		{ seed: MODEL_SEED, numRuns: RUNS },
	);
});

test('a realistic log up to PLAN_WHOLE_CHARS is planned whole though cut short: no reading is made, one character more and every reading is', () => {
	// A job answer's log at its 4 MiB cap, cut at 2 Mi characters (MAX_STRING_CHARS): read through every reading up to
	// its cut, it took 450 ms of CPU per answer (D6's 1,000 such Gets: 360 s, against 47 s when planned).
	const work = redactionWork(secretForms(['native-token-c0ffee']));
	const line = '2026-01-05 09:00:00.123 [main] INFO  node sales-by-region: 12345 rows written, 4321.0 rows/s\n';
	const log = line.repeat(Math.ceil(PLAN_WHOLE_CHARS / line.length)).slice(0, PLAN_WHOLE_CHARS);
	const total = (text: string) => {
		const steps = work.steps(text, PLAN_WHOLE_CHARS / 2);
		let units = 0;
		for (let next = steps.next(); ; next = steps.next()) {
			if (next.done === true) return { units, kept: next.value };
			units += next.value;
		}
	};
	const planned = total(log);
	expect(planned.kept === log.slice(0, PLAN_WHOLE_CHARS / 2)).toBe(true);
	// The plan's passes only: half a unit per character, each a third of it.
	expect(planned.units).toBeLessThanOrEqual(PLAN_WHOLE_CHARS / 2 + 3);
	const past = total(`${log}x`);
	expect(past.kept === log.slice(0, PLAN_WHOLE_CHARS / 2)).toBe(true);
	// Every reading of each character up to the cut, and the automaton over each.
	expect(past.units).toBeGreaterThan(4 * (PLAN_WHOLE_CHARS / 2));
});
