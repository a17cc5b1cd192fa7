/**
 * The streaming list reader (nodes/shared/transport/listReader.ts) on its own: it reads what JSON.parse reads, the
 * same values whatever the chunk boundaries (inside escapes, numbers, multi-byte characters), refuses what JSON.parse
 * refuses, and holds each of its bounds exactly at the cap and refuses one past it: nesting, values, kept characters,
 * number length, and the bytes it streams (a body of exactly 256 MiB is read, one byte more is not).
 */
import {
	AttemptStop,
	cutMarker,
	LIST_CUT_FIELD,
	LIST_KEPT_WHOLE_BYTES,
	ListBuilder,
	listCutNote,
	MAX_ANSWER_DEPTH,
	MAX_ANSWER_VALUES,
	MAX_LIST_ANSWER_BYTES,
	MAX_LIST_FIELD_CHARS,
	MAX_LIST_KEPT_CHARS,
	MAX_LIST_TOKEN_CHARS,
	readListAnswer,
} from '../../nodes/shared/transport';
import { secretForms } from '../../nodes/shared/redaction';
import { mulberry32 } from '../../server/random';

/** Feeds `text` in pieces of `size` characters; the builder's answer. */
function build(text: string, size = text.length || 1): ReturnType<ListBuilder['finish']> {
	const builder = new ListBuilder([]);
	for (let at = 0; at < text.length; at += size) if (!builder.write(text.slice(at, at + size))) break;
	return builder.finish();
}

const problem = (text: string) => {
	const outcome = build(text);
	return 'problem' in outcome ? outcome.problem : null;
};

function randomValue(next: () => number, depth: number): unknown {
	const pick = Math.floor(next() * (depth > 4 ? 4 : 6));
	const text = () => Array.from({ length: Math.floor(next() * 12) }, () => ['a', '"', '\\', '\n', 'é', '😀', '\u0001', '/', '\u2028'][Math.floor(next() * 9)]).join('');
	switch (pick) {
		case 0:
			return text();
		case 1:
			return [0, -0.5, 1e21, 123456789, -7e-8, 2 ** 53 + 1][Math.floor(next() * 6)];
		case 2:
			return [true, false, null][Math.floor(next() * 3)];
		case 3:
			return text().length;
		case 4:
			return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
		default:
			return Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, () => [text(), randomValue(next, depth + 1)]));
	}
}

test('reads what JSON.parse reads, whatever the chunk boundaries (200 seeded documents, pieces of 1 to 7 characters)', () => {
	for (let seed = 1; seed <= 200; seed++) {
		const next = mulberry32(seed);
		const text = JSON.stringify([randomValue(next, 0), { __proto__: 1, id: 'x' }].slice(0, 1 + (seed % 2)), null, seed % 3 === 0 ? '\t' : undefined);
		expect({ seed, outcome: build(text, 1 + (seed % 7)) }).toEqual({ seed, outcome: { body: JSON.parse(text) } });
	}
	const withProto = build('[{"__proto__":{"polluted":1},"a":1,"a":2}]') as { body: Array<Record<string, unknown>> };
	expect(Object.getPrototypeOf(withProto.body[0])).toBe(Object.prototype);
	expect(Object.keys(withProto.body[0])).toEqual(['__proto__', 'a']);
	expect(withProto.body[0].a).toBe(2);
});

test('refuses what JSON.parse refuses', () => {
	const bad = ['[1,]', '[01]', '[1.]', '[.5]', '[+1]', '{"a" 1}', '{"a":1,}', '{a:1}', '["\\x"]', '["\\u12G4"]', '["a\u0001"]', '[1] x', '[', '[]]', '{]', '["a"', '[tru]', '[nul]', '[1 2]', "['a']"];
	for (const text of bad) {
		expect(() => JSON.parse(text)).toThrow();
		for (const size of [1, 2, 3, 100]) expect({ text, size, outcome: build(text, size) }).toEqual({ text, size, outcome: { problem: 'is not valid JSON', kind: 'unreadable' } });
	}
});

test(`nesting: ${MAX_ANSWER_DEPTH} levels are read, ${MAX_ANSWER_DEPTH + 1} are refused (and 200,000 stop at once)`, () => {
	expect(problem('['.repeat(MAX_ANSWER_DEPTH) + ']'.repeat(MAX_ANSWER_DEPTH))).toBeNull();
	expect(problem('['.repeat(MAX_ANSWER_DEPTH + 1) + ']'.repeat(MAX_ANSWER_DEPTH + 1))).toBe(`is nested deeper than ${MAX_ANSWER_DEPTH} levels`);
	expect(problem('['.repeat(200_000))).toBe(`is nested deeper than ${MAX_ANSWER_DEPTH} levels`);
});

test(`values: ${MAX_ANSWER_VALUES} are read, one more is refused (counted as the whole-answer check counts them)`, () => {
	expect(problem(`[${'0,'.repeat(MAX_ANSWER_VALUES - 1)}0]`)).toBeNull();
	expect(problem(`[${'0,'.repeat(MAX_ANSWER_VALUES)}0]`)).toBe('holds more than 100,000 values');
});

test(`kept characters: exactly ${MAX_LIST_KEPT_CHARS} are kept, one more is refused`, () => {
	const strings = MAX_LIST_KEPT_CHARS / MAX_LIST_FIELD_CHARS;
	const field = JSON.stringify('k'.repeat(MAX_LIST_FIELD_CHARS));
	const atCap = `[${Array.from({ length: strings }, () => field).join(',')}]`;
	expect(problem(atCap)).toBeNull();
	expect(problem(`${atCap.slice(0, -1)},"k"]`)).toBe(`keeps more than ${MAX_LIST_KEPT_CHARS / 2 ** 20} MiB after its long fields are cut`);
});

test(`numbers: ${MAX_LIST_TOKEN_CHARS} characters are read, one more is refused`, () => {
	expect(build(`[1${'0'.repeat(MAX_LIST_TOKEN_CHARS - 1)}]`)).toEqual({ body: [Number(`1${'0'.repeat(MAX_LIST_TOKEN_CHARS - 1)}`)] });
	expect(problem(`[1${'0'.repeat(MAX_LIST_TOKEN_CHARS)}]`)).toBe(`holds a number or literal longer than ${MAX_LIST_TOKEN_CHARS} characters`);
});

test('a cut string keeps its first characters whole across escapes, counts the dropped ones, and its job names the field', () => {
	const log = '\\n"é😀'.repeat(MAX_LIST_FIELD_CHARS);
	const outcome = build(JSON.stringify([{ id: 'a', log, small: 's' }]), 4099) as { body: Array<Record<string, unknown>> };
	expect(outcome.body[0].log === log.slice(0, MAX_LIST_FIELD_CHARS) + cutMarker(log.length - MAX_LIST_FIELD_CHARS)).toBe(true);
	expect(outcome.body[0][LIST_CUT_FIELD]).toEqual({ fields: ['log'], note: listCutNote() });
	expect(outcome.body[0].small).toBe('s');
});

/** A stream of `bytes` bytes of a JSON list holding one long string, in 1 MiB chunks, built as it is read. */
function streamOf(bytes: number): AsyncIterable<Uint8Array> & { destroy(): void } {
	const chunk = Buffer.alloc(2 ** 20, 'a');
	const head = Buffer.from('["');
	const tail = Buffer.from('"]');
	return {
		destroy() {},
		async *[Symbol.asyncIterator]() {
			yield head;
			let left = bytes - head.length - tail.length;
			while (left > 0) {
				const part = chunk.subarray(0, Math.min(left, chunk.length));
				left -= part.length;
				yield part;
			}
			yield tail;
		},
	};
}

test(`bytes streamed: a list of exactly ${MAX_LIST_ANSWER_BYTES} bytes is read (one long string, cut), one byte more is refused`, async () => {
	const stop = new AttemptStop();
	const atCap = await readListAnswer(streamOf(MAX_LIST_ANSWER_BYTES), stop, []);
	expect(atCap.body).toEqual(['a'.repeat(MAX_LIST_FIELD_CHARS) + cutMarker(MAX_LIST_ANSWER_BYTES - 4 - MAX_LIST_FIELD_CHARS)]);
	expect(await readListAnswer(streamOf(MAX_LIST_ANSWER_BYTES + 1), stop, [])).toEqual({ problem: 'is larger than 256 MiB', kind: 'oversized' });
	// Within LIST_KEPT_WHOLE_BYTES the text is handed back whole, to be read as every other answer.
	const whole = await readListAnswer(streamOf(LIST_KEPT_WHOLE_BYTES), stop, []);
	expect(whole.text?.length).toBe(LIST_KEPT_WHOLE_BYTES);
	expect(await readListAnswer(Buffer.from(`Accepted${' '.repeat(LIST_KEPT_WHOLE_BYTES)}`), stop, [])).toEqual({
		problem: 'is larger than 8 MiB and is not a JSON list',
		kind: 'oversized',
	});
}, 60_000);

test(`a list over ${LIST_KEPT_WHOLE_BYTES} bytes that starts with white space (pretty-printed JSON) is read, not refused as "not a JSON list"`, async () => {
	const jobs = Array.from({ length: 150 }, (_, n) => ({ id: `job-${n}`, executionStatus: 'COMPLETED', log: 'x'.repeat(60_000) }));
	const pretty = `\r\n \t${JSON.stringify(jobs, null, 2)}\n`;
	expect(Buffer.byteLength(pretty)).toBeGreaterThan(LIST_KEPT_WHOLE_BYTES);
	// The first chunk is white space only: what decides is the first character after it.
	const chunks = [Buffer.from('\r\n \t'), Buffer.from(pretty.slice(4))];
	const read = await readListAnswer({ destroy() {}, async *[Symbol.asyncIterator]() { yield* chunks; } }, new AttemptStop(), []);
	expect(read.problem).toBeUndefined();
	expect((read.body as Array<{ id: string }>).map((job) => job.id)).toEqual(jobs.map((job) => job.id));
});

describe('a long field is cut before it is redacted: a key at the cut is still hidden, whatever its form', () => {
	const KEY = 'cut-edge-key&<>"\'+/%9Qz';
	const forms = secretForms([KEY]);
	const percent = (text: string) => [...Buffer.from(text)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
	test.each([
		['as sent', KEY],
		['every byte percent-encoded', percent(KEY)],
	])('%s, straddling the cut', (_, form) => {
		for (const before of [1, 5, form.length - 1]) {
			const text = `${'x'.repeat(MAX_LIST_FIELD_CHARS - before - 1)} ${form} ${'y'.repeat(200_000)}`;
			const builder = new ListBuilder(forms);
			builder.write(JSON.stringify([{ id: 'a', log: text }]));
			const outcome = builder.finish() as { body: Array<{ log: string }> };
			const kept = outcome.body[0].log.slice(0, MAX_LIST_FIELD_CHARS);
			// No piece of the key that could tell it: its visible part at the edge is gone, not left half shown.
			expect(kept.slice(MAX_LIST_FIELD_CHARS - before)).not.toBe(form.slice(0, before));
			expect(kept.startsWith(`${'x'.repeat(MAX_LIST_FIELD_CHARS - before - 1)} `)).toBe(true);
		}
	});
});
