/**
 * The streaming list reader (nodes/shared/transport/listReader.ts) on its own: it reads what JSON.parse reads, the
 * same values whatever the chunk boundaries (inside escapes, numbers, multi-byte characters), refuses what JSON.parse
 * refuses, and holds each of its bounds exactly at the cap and refuses one past it: nesting, values, kept characters,
 * number length, and the bytes it streams (a body of exactly 256 MiB is read, one byte more is not).
 */
import fc from 'fast-check';
import { sleep } from 'n8n-workflow';

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
	parseBody,
	readListAnswer,
} from '../../nodes/shared/transport';
import { redactionWork, secretForms } from '../../nodes/shared/redaction';
import { FIRST_TURN_WORK, WORK_PER_TURN } from '../../nodes/shared/transport/turns';
import { mulberry32 } from '../../server/random';

// sleep(0) is how the reader gives the event loop a turn: counted (and still slept), so the pacing is checked exactly.
jest.mock('n8n-workflow', () => {
	const actual: { sleep(ms: number): Promise<void> } = jest.requireActual('n8n-workflow');
	return { ...actual, sleep: jest.fn(async (ms: number) => await actual.sleep(ms)) };
});

/** Feeds `text` in pieces of `size` characters; the builder's answer. */
/** The work a builder's steps yield, and whether it read the text. */
function stepsOf(writing: Generator<number, boolean, void>): { steps: number[]; read: boolean } {
	const steps: number[] = [];
	for (;;) {
		const next = writing.next();
		if (next.done === true) return { steps, read: next.value };
		steps.push(next.value);
	}
}

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
	expect(build('['.repeat(MAX_ANSWER_DEPTH + 1) + ']'.repeat(MAX_ANSWER_DEPTH + 1))).toEqual({ problem: 'is nested deeper than 32 levels', kind: 'oversized' });
	expect(problem('['.repeat(200_000))).toBe(`is nested deeper than ${MAX_ANSWER_DEPTH} levels`);
});

test(`values: ${MAX_ANSWER_VALUES} are read, one more is refused (counted as the whole-answer check counts them)`, () => {
	expect(problem(`[${'0,'.repeat(MAX_ANSWER_VALUES - 1)}0]`)).toBeNull();
	expect(build(`[${'0,'.repeat(MAX_ANSWER_VALUES)}0]`)).toEqual({ problem: 'holds more than 100,000 values', kind: 'oversized' });
});

test(`kept characters: exactly ${MAX_LIST_KEPT_CHARS} are kept, one more is refused`, () => {
	const strings = MAX_LIST_KEPT_CHARS / MAX_LIST_FIELD_CHARS;
	const field = JSON.stringify('k'.repeat(MAX_LIST_FIELD_CHARS));
	const atCap = `[${Array.from({ length: strings }, () => field).join(',')}]`;
	expect(problem(atCap)).toBeNull();
	const refused = { problem: 'keeps more than 32 MiB after its long fields are cut', kind: 'oversized' };
	expect(build(`${atCap.slice(0, -1)},"k"]`)).toEqual(refused);
	// A number or literal counts 8 characters: 9 fewer characters of string make room for one, and a character more.
	expect(problem(`${atCap.slice(0, -11)}",0,"k"]`)).toBeNull();
	expect(build(`${atCap.slice(0, -10)}",0,"k"]`)).toEqual(refused);
	// The count is checked after a number or literal too, the last value of the list included.
	expect(problem(`${atCap.slice(0, -10)}",true]`)).toBeNull();
	expect(build(`${atCap.slice(0, -9)}",true]`)).toEqual(refused);
	expect(build(`${atCap.slice(0, -1)},0]`)).toEqual(refused);
});

test(`numbers: ${MAX_LIST_TOKEN_CHARS} characters are read, one more is refused`, () => {
	expect(build(`[1${'0'.repeat(MAX_LIST_TOKEN_CHARS - 1)}]`)).toEqual({ body: [Number(`1${'0'.repeat(MAX_LIST_TOKEN_CHARS - 1)}`)] });
	expect(build(`[1${'0'.repeat(MAX_LIST_TOKEN_CHARS)}]`)).toEqual({ problem: 'holds a number or literal longer than 4096 characters', kind: 'oversized' });
	expect(build(`[${'t'.repeat(MAX_LIST_TOKEN_CHARS + 1)}]`, 1000)).toEqual({ problem: 'holds a number or literal longer than 4096 characters', kind: 'oversized' });
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

describe('the reader at its edges', () => {
	const MAX = MAX_LIST_FIELD_CHARS;
	const note = "The job list was larger than 8 MiB, so the node cut each of this job's fields longer than 65,536 characters; read the job by its ID (Get) for them whole.";

	test('the cut note says the 8 MiB threshold and the 65,536-character cut in words', () => {
		expect(listCutNote()).toBe(note);
	});

	test('a value on its own (a number, a string, a literal) is read as JSON.parse reads it, even in pieces of one character', () => {
		for (const text of ['1', '-0', '"a"', 'true', 'false', 'null', ' 2 ']) {
			for (const size of [1, 100]) expect({ text, size, outcome: build(text, size) }).toEqual({ text, size, outcome: { body: JSON.parse(text) } });
		}
	});

	test('numbers follow the JSON grammar: fractions and exponents are read, a number cut short or with a leading zero is refused', () => {
		for (const text of ['0', '-0', '1.25', '-0.5e-3', '1e5', '1E+5', '2e-2', '10.010', '123456789012345678901234567890']) {
			expect({ text, outcome: build(`[${text}]`) }).toEqual({ text, outcome: { body: JSON.parse(`[${text}]`) } });
		}
		for (const text of ['1.', '1e', '1e+', '-', '01', '-01', '1.e5', '1e5.0', '0x1', '--1', '1-']) {
			expect(() => JSON.parse(`[${text}]`)).toThrow();
			expect({ text, outcome: build(`[${text}]`) }).toEqual({ text, outcome: { problem: 'is not valid JSON', kind: 'unreadable' } });
		}
	});

	test('a \\u escape needs four hex digits: a bad one at any position is refused, good ones are read in any pieces', () => {
		for (const escape of ['\\uG000', '\\u0G00', '\\u00G0', '\\u000G', '\\u12 4']) {
			for (const size of [1, 3, 100]) expect({ escape, size, outcome: build(`["${escape}"]`, size) }).toEqual({ escape, size, outcome: { problem: 'is not valid JSON', kind: 'unreadable' } });
		}
		const good = '["\\u00e9\\u00E9\\uD83D\\uDE00\\n\\/"]';
		for (let size = 1; size <= 7; size++) expect(build(good, size)).toEqual({ body: JSON.parse(good) });
	});

	test('every misplaced bracket, comma, colon, string or control character is refused as JSON.parse refuses it', () => {
		const bad = [']', '}', ',1', ':', '[,1]', '{,}', '[1:2]', '{:1}', '{"a":1:2}', '["a""b"]', '{"a""b"}', '[1[]]', '[1{}]', '{[]:1}', '{"a"[]}', '[1}', '{"a":1]', '{"a":}', '{"a"}', '["\u001fn"]', '["\u0001n"]'];
		for (const text of bad) {
			expect(() => JSON.parse(text)).toThrow();
			for (const size of [1, 100]) expect({ text, size, outcome: build(text, size) }).toEqual({ text, size, outcome: { problem: 'is not valid JSON', kind: 'unreadable' } });
		}
	});

	test('write answers false at the character that makes the text not JSON, and true while it may still become JSON', () => {
		expect(new ListBuilder([]).write('["\\x')).toBe(false);
		expect(new ListBuilder([]).write('[1,]')).toBe(false);
		expect(new ListBuilder([]).write('[1')).toBe(true);
		expect(new ListBuilder([]).write('["\\u12')).toBe(true);
	});

	test('after the end, white space is read as the whole-answer path trims it, and anything else is refused', () => {
		expect(build('[1] \t\r\n', 1)).toEqual({ body: [1] });
		expect(build('[1]\u00a0\ufeff\u2028')).toEqual({ body: parseBody('[1]\u00a0\ufeff\u2028') });
		expect(build('[1] 2')).toEqual({ problem: 'is not valid JSON', kind: 'unreadable' });
	});

	test('a __proto__ key is an own, plain data property, as JSON.parse makes it', () => {
		const outcome = build('{"__proto__":1}') as { body: object };
		expect(Object.getOwnPropertyDescriptor(outcome.body, '__proto__')).toEqual(Object.getOwnPropertyDescriptor(JSON.parse('{"__proto__":1}'), '__proto__'));
		expect(Object.getOwnPropertyDescriptor(outcome.body, '__proto__')).toEqual({ value: 1, writable: true, enumerable: true, configurable: true });
	});

	test(`a string of exactly ${MAX_LIST_FIELD_CHARS} characters is read in one step; one more is cut, and its search's own steps follow, one by one`, () => {
		const secrets = secretForms(['step-key&<>"\'+/%7x']);
		const whole = JSON.stringify(['a'.repeat(MAX)]);
		const builder = new ListBuilder(secrets);
		expect(stepsOf(builder.writing(whole))).toEqual({ steps: [whole.length], read: true });
		expect(builder.finish()).toEqual({ body: ['a'.repeat(MAX)] });
		// The cut string's value is what is kept raw of it (6 times the cut and a key's reach): its search, as the
		// redaction yields it on its own, comes between the characters up to its closing quote and the rest.
		const search = [...redactionWork(secrets).steps('a'.repeat(MAX + 1), MAX)];
		expect(search.length).toBeGreaterThan(1);
		const cut = new ListBuilder(secrets);
		expect(stepsOf(cut.writing(JSON.stringify(['a'.repeat(MAX + 1)])))).toEqual({ steps: [MAX + 4, ...search, 1], read: true });
		expect(cut.finish()).toEqual({ body: ['a'.repeat(MAX) + cutMarker(1)] });
	});

	test('what is kept raw of a cut string ends at 6 times the cut and a key\'s reach: an escape that does not fit is dropped, one that fits exactly is kept', () => {
		// Seen through the search of the kept value: its plan's passes are a sixth of its length each, rounded up, so
		// these lengths (a multiple of 6, and one more than one) change the search's steps if one character more or
		// fewer were kept.
		const secrets = secretForms(['raw-keep-key']);
		const rawKeep = 6 * (MAX + 6 * Math.max(...secrets.map((form) => form.length)));
		const search = (value: string) => [...redactionWork(secrets).steps(value, MAX)];
		for (const [prefix, kept] of [
			['zzz', 'zzz' + 'z'.repeat(rawKeep / 6 - 1)],
			['z'.repeat(18), 'z'.repeat(18) + 'z'.repeat(rawKeep / 6 - 3)],
		]) {
			const raw = prefix + '\\u007a'.repeat(rawKeep / 6 + 10);
			expect(kept.length % 6).toBe(prefix.length === 3 ? 0 : 1);
			const builder = new ListBuilder(secrets);
			expect(stepsOf(builder.writing(`["${raw}"]`))).toEqual({ steps: [raw.length + 3, ...search(kept), 1], read: true });
			expect(builder.finish()).toEqual({ body: ['z'.repeat(MAX) + cutMarker(prefix.length + rawKeep / 6 + 10 - MAX)] });
		}
	});

	test('a text the reader refuses ends its steps there, counted as read to its end (never past it)', () => {
		const builder = new ListBuilder([]);
		expect(stepsOf(builder.writing('[1,}2'))).toEqual({ steps: [5], read: false });
		expect(stepsOf(builder.writing('[1]'))).toEqual({ steps: [], read: false });
		expect(builder.problem).toEqual({ problem: 'is not valid JSON', kind: 'unreadable' });
	});

	test('a string read in one unbroken run longer than the raw text kept of it still keeps its first characters', () => {
		expect(build(JSON.stringify(['a'.repeat(6 * MAX + 1)]))).toEqual({ body: ['a'.repeat(MAX) + cutMarker(5 * MAX + 1)] });
	});

	test('an escape that straddles the end of the raw text kept of a string is dropped whole, not kept half', () => {
		for (const escape of ['\\n', '\\u0041']) {
			const text = `["${'a'.repeat(6 * MAX - escape.length + 1)}${escape}b"]`;
			expect(build(text)).toEqual({ body: ['a'.repeat(MAX) + cutMarker(5 * MAX - escape.length + 3)] });
		}
	});

	test('a key straddling the cut is hidden even when every character of the string is written as a \\u escape', () => {
		const text = `${'x'.repeat(MAX - 6)} cut-edge-key ${'y'.repeat(100)}`;
		const escaped = [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
		const builder = new ListBuilder(secretForms(['cut-edge-key']));
		builder.write(`["${escaped}"]`);
		expect(builder.finish()).toEqual({ body: [`${'x'.repeat(MAX - 6)} ***${cutMarker(108)}`] });
	});

	test('a cut key is kept cut, and the job directly in the list names it in cutInList', () => {
		const key = 'k'.repeat(MAX + 1);
		const cutKey = 'k'.repeat(MAX) + cutMarker(1);
		expect(build(`[{"id":"a","${key}":1}]`)).toEqual({ body: [{ id: 'a', [cutKey]: 1, cutInList: { fields: [cutKey], note } }] });
	});

	test('a cut inside a field of a job names that field once, however many cuts it holds', () => {
		const key = 'k'.repeat(MAX + 1);
		const long = 'l'.repeat(MAX + 2);
		const outcome = build(`[{"id":"a","meta":{"${key}":1,"b":"${long}"}}]`);
		const meta = { ['k'.repeat(MAX) + cutMarker(1)]: 1, b: 'l'.repeat(MAX) + cutMarker(2) };
		expect(outcome).toEqual({ body: [{ id: 'a', meta, cutInList: { fields: ['meta'], note } }] });
	});

	test('the job that names a cut is the object directly in a list, however deep the list is; an object in no list names none', () => {
		const long = 'l'.repeat(MAX + 1);
		const cut = 'l'.repeat(MAX) + cutMarker(1);
		expect(build(`{"jobs":[{"log":"${long}"}]}`)).toEqual({ body: { jobs: [{ log: cut, cutInList: { fields: ['log'], note } }] } });
		expect(build(`{"a":{"log":"${long}"}}`)).toEqual({ body: { a: { log: cut } } });
	});
});

/** A byte stream of `chunks` that counts the chunks it gave, records each destroy (its error's message, or null), and throws the error it was destroyed with. */
function fakeStream(chunks: unknown[], beforeChunk: (index: number) => void = () => {}) {
	const stream = {
		pulled: 0,
		destroyed: [] as Array<string | null>,
		error: undefined as Error | undefined,
		destroy(error?: Error) {
			stream.destroyed.push(error === undefined ? null : error.message);
			stream.error ??= error;
		},
		async *[Symbol.asyncIterator]() {
			for (const [index, chunk] of chunks.entries()) {
				beforeChunk(index);
				if (stream.error !== undefined) throw stream.error;
				stream.pulled++;
				yield chunk;
			}
		},
	};
	return stream;
}

describe('readListAnswer: the body as it is handed over', () => {
	test('a body read whole already (a string, a Uint8Array, an object) or none at all comes back as its text', async () => {
		const stop = new AttemptStop();
		expect(await readListAnswer('["é😀"]', stop, [])).toEqual({ text: '["é😀"]' });
		expect(await readListAnswer(new Uint8Array(Buffer.from('[2]')), stop, [])).toEqual({ text: '[2]' });
		expect(await readListAnswer({ a: [1] }, stop, [])).toEqual({ text: '{"a":[1]}' });
		expect(await readListAnswer(undefined, stop, [])).toEqual({ text: '' });
		expect(await readListAnswer(null, stop, [])).toEqual({ text: '' });
	});

	test(`a body of exactly ${LIST_KEPT_WHOLE_BYTES} bytes is kept whole; one byte more is built, an object as well as a list`, async () => {
		const stop = new AttemptStop();
		const atCap = `{"log":"${'x'.repeat(LIST_KEPT_WHOLE_BYTES - 10)}"}`;
		expect(await readListAnswer(atCap, stop, [])).toEqual({ text: atCap });
		const over = `{"log":"${'x'.repeat(LIST_KEPT_WHOLE_BYTES - 9)}"}`;
		expect(await readListAnswer(over, stop, [])).toEqual({ body: { log: 'x'.repeat(MAX_LIST_FIELD_CHARS) + cutMarker(LIST_KEPT_WHOLE_BYTES - 9 - MAX_LIST_FIELD_CHARS) } });
	});

	test('a stream may give strings, bytes split inside a character, or other values: each is read as its UTF-8 text', async () => {
		const chunks = ['["é', Buffer.from([0xf0, 0x9f]), Buffer.from([0x98, 0x80]), 1, '"]'];
		const stream = fakeStream(chunks);
		expect(await readListAnswer(stream, new AttemptStop(), [])).toEqual({ text: '["é😀1"]' });
		expect(stream.destroyed).toEqual([null]);
	});

	test('a stop while reading destroys the stream with ABORTED, and once read the stream no longer hears of the stop', async () => {
		const stop = new AttemptStop();
		const stopped = fakeStream(['[1', ']'], (index) => index === 1 && stop.stop());
		await expect(readListAnswer(stopped, stop, [])).rejects.toThrow(/^ABORTED$/);
		expect(stopped.destroyed).toEqual(['ABORTED', null]);
		const later = new AttemptStop();
		const read = fakeStream(['[1', ']']);
		expect(await readListAnswer(read, later, [])).toEqual({ text: '[1]' });
		later.stop();
		expect(read.destroyed).toEqual([null]);
	});

	test('a stream handed over after its attempt stopped is destroyed unread, and the read throws ABORTED', async () => {
		const stop = new AttemptStop();
		stop.stop();
		const stream = fakeStream(['[1]']);
		await expect(readListAnswer(stream, stop, [])).rejects.toThrow(/^ABORTED$/);
		expect({ pulled: stream.pulled, destroyed: stream.destroyed }).toEqual({ pulled: 0, destroyed: [null] });
	});

	test('reading stops at the chunk that is refused: the stream is not read on', async () => {
		const stream = fakeStream([Buffer.alloc(LIST_KEPT_WHOLE_BYTES + 1, 'x'), Buffer.from(']')]);
		expect(await readListAnswer(stream, new AttemptStop(), [])).toEqual({ problem: 'is larger than 8 MiB and is not a JSON list', kind: 'oversized' });
		expect({ pulled: stream.pulled, destroyed: stream.destroyed }).toEqual({ pulled: 1, destroyed: [null] });
	});

	test('a chunk of exactly one slice (256 Ki characters) past the kept-whole size is read once', async () => {
		const slice = 256 * 1024;
		const stream = fakeStream([Buffer.from(`[${' '.repeat(LIST_KEPT_WHOLE_BYTES)}`), Buffer.from(`"${'b'.repeat(slice - 2)}"`), Buffer.from(']')]);
		expect(await readListAnswer(stream, new AttemptStop(), [])).toEqual({ body: ['b'.repeat(MAX_LIST_FIELD_CHARS) + cutMarker(slice - 2 - MAX_LIST_FIELD_CHARS)] });
	});

	test('a list past the kept-whole size that turns out not to be JSON stops the reading there: no chunk after it is pulled', async () => {
		const stream = fakeStream([Buffer.from(`[${' '.repeat(LIST_KEPT_WHOLE_BYTES)}`), Buffer.from('1,}'), Buffer.from(']')]);
		expect(await readListAnswer(stream, new AttemptStop(), [])).toEqual({ problem: 'is not valid JSON', kind: 'unreadable' });
		expect({ pulled: stream.pulled, destroyed: stream.destroyed }).toEqual({ pulled: 2, destroyed: [null] });
	});

	test('the event loop gets a turn each time the budget of work (read, or searched at a cut) has passed: 16 Ki, doubling to 256 Ki', async () => {
		const Ki = 1024;
		expect([FIRST_TURN_WORK, WORK_PER_TURN]).toEqual([16 * Ki, 256 * Ki]);
		// 8 Mi + 100 characters ending a cut string: 4 turns at 16, 32, 64 and 128 Ki (240 Ki), 31 of 256 Ki, and
		// 16 Ki + 100 left; then the search of what is kept raw of the cut string (6 times the cut and a key's reach),
		// as the redaction counts it.
		const first = `["${'a'.repeat(LIST_KEPT_WHOLE_BYTES + 96)}",`;
		expect(first.length).toBe(240 * Ki + 31 * WORK_PER_TURN + 16 * Ki + 100);
		const secrets = ['turn-key&<>"\'+/%'];
		const search = [...redactionWork(secrets).steps('a'.repeat(6 * (MAX_LIST_FIELD_CHARS + 6 * secrets[0].length)), MAX_LIST_FIELD_CHARS)].reduce((sum, work) => sum + work, 0);
		expect(search).toBeGreaterThan(0);
		// The list's end, blanks and '1]', that with the 16 Ki + 100 and the search come to exactly 256 Ki: the 36th turn.
		const end = ' '.repeat(WORK_PER_TURN - (16 * Ki + 100) - search - 2) + '1]';
		jest.mocked(sleep).mockClear();
		const read = await readListAnswer(fakeStream([Buffer.from(first), Buffer.from(end)]), new AttemptStop(), secrets);
		expect(read).toEqual({ body: ['a'.repeat(MAX_LIST_FIELD_CHARS) + cutMarker(LIST_KEPT_WHOLE_BYTES + 96 - MAX_LIST_FIELD_CHARS), 1] });
		expect(jest.mocked(sleep).mock.calls).toEqual(Array.from({ length: 36 }, () => [0]));
		// One blank fewer: the search's work no longer reaches the turn.
		jest.mocked(sleep).mockClear();
		await readListAnswer(fakeStream([Buffer.from(first), Buffer.from(end.slice(1))]), new AttemptStop(), secrets);
		expect(jest.mocked(sleep).mock.calls).toHaveLength(35);
	});
});

describe('what a list keeps, generated (the kept-characters bound on every kind of value)', () => {
	// Stated in the reader's words: each string counts the characters kept of it (cut to MAX_LIST_FIELD_CHARS, with its
	// marker), each number or literal 8; a list whose count passes MAX_LIST_KEPT_CHARS is refused, whatever value passes it.
	const tail = fc.array(fc.oneof(fc.constant('0'), fc.constant('true'), fc.constant('null'), fc.constant('-12.5e3'), fc.string({ maxLength: 12 }).map((text) => JSON.stringify(text))), { maxLength: 4 });
	const keptOf = (value: string) => (value.startsWith('"') ? (JSON.parse(value) as string).length : 8);

	test('a list near the cap is read exactly when what it keeps is within it', () => {
		const full = JSON.stringify('k'.repeat(MAX_LIST_FIELD_CHARS));
		const strings = MAX_LIST_KEPT_CHARS / MAX_LIST_FIELD_CHARS;
		const body = Array.from({ length: strings - 1 }, () => full).join(',');
		fc.assert(
			fc.property(fc.integer({ min: 0, max: 40 }), tail, (shortBy, values) => {
				const last = JSON.stringify('k'.repeat(MAX_LIST_FIELD_CHARS - shortBy));
				const text = `[${[body, last, ...values].join(',')}]`;
				const kept = MAX_LIST_KEPT_CHARS - shortBy + values.reduce((sum, value) => sum + keptOf(value), 0);
				const outcome = build(text);
				expect('problem' in outcome ? outcome.problem : 'read').toBe(kept > MAX_LIST_KEPT_CHARS ? 'keeps more than 32 MiB after its long fields are cut' : 'read');
			}),
			{ seed: 4802, numRuns: 12 },
		);
	});
});
