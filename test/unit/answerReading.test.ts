// Reading an answer's bytes (decoded once, at the end), cleaning a short answer at once, and telling a plainly bounded
// answer's shape without a scan: each the same as the general path, at its edges (a character split between chunks,
// a leading BOM, exactly at the cap and one past it, an answer exactly CLEAN_AT_ONCE_CHARS long and one longer,
// exactly MAX_ANSWER_DEPTH brackets and one more, exactly MAX_ANSWER_VALUES characters and one more).
import { Readable } from 'stream';

import { secretForms } from '../../nodes/shared/redaction';
import { mulberry32 } from '../../server/random';
import { AttemptStop, believe, CLEAN_AT_ONCE_CHARS, cleanParsed, cleanSmallParsed, jsonShapeProblem, MAX_ANSWER_DEPTH, MAX_ANSWER_VALUES, readCapped } from '../../nodes/shared/transport';

const SECRET = `tok>&<"'+/%?9Z-answer`;
const FORMS = secretForms([SECRET]);

/** A Node stream of these chunks (a Readable, as n8n's helper hands over), or a bare async iterable of them. */
function chunks(parts: Array<Buffer | string>, kind: 'stream' | 'iterable' = 'stream'): unknown {
	if (kind === 'stream') return Readable.from(parts, { objectMode: false });
	return {
		async *[Symbol.asyncIterator]() {
			for (const part of parts) yield part;
		},
		destroy() {},
	};
}

async function read(parts: Array<Buffer | string>, maxBytes: number, kind: 'stream' | 'iterable' = 'stream') {
	return await readCapped(chunks(parts, kind), maxBytes, new AttemptStop());
}

describe('readCapped decodes the bytes it kept, once', () => {
	const text = 'é😀 ünïcödé {"log":"ok"}';
	const bytes = Buffer.from(text, 'utf8');

	test.each(['stream', 'iterable'] as const)('a character split between two chunks is kept whole (%s), at every split point', async (kind) => {
		for (let at = 1; at < bytes.length; at++) {
			expect(await read([bytes.subarray(0, at), bytes.subarray(at)], bytes.length, kind)).toEqual({ text });
		}
	});

	test('a leading byte-order mark is dropped, as a decoder drops it; one inside the text is kept', async () => {
		const bom = Buffer.from([0xef, 0xbb, 0xbf]);
		expect(await read([bom, Buffer.from('{"a":1}')], 10)).toEqual({ text: '{"a":1}' });
		expect(await read([Buffer.from('{"a":"'), bom, Buffer.from('"}')], 20)).toEqual({ text: '{"a":"\uFEFF"}' });
	});

	test('bytes that are not UTF-8 read as a standard decoder reads them', async () => {
		const broken = Buffer.from([0x7b, 0xc3, 0x28, 0xe2, 0x82, 0xff, 0xf0, 0x9f, 0x98, 0x7d]);
		expect(await read([broken.subarray(0, 4), broken.subarray(4)], 100)).toEqual({ text: new TextDecoder().decode(broken) });
	});

	test('exactly the cap is read; one byte past it is refused, whichever chunk brings it', async () => {
		expect(await read([bytes.subarray(0, 5), bytes.subarray(5)], bytes.length)).toEqual({ text });
		expect(await read([bytes.subarray(0, 5), bytes.subarray(5)], bytes.length - 1)).toEqual({ tooLarge: true });
		expect(await read([bytes], bytes.length - 1)).toEqual({ tooLarge: true });
		expect(await read(['plain text chunk'], 16)).toEqual({ text: 'plain text chunk' });
		expect(await read(['plain text chunk'], 15)).toEqual({ tooLarge: true });
	});
});

/** A JSON answer of exactly `length` characters with the secret in a value, a key, a URL-encoded value and an id. */
function answerOf(length: number): string {
	const base = { jobId: `job-${SECRET}`, [`key ${SECRET}`]: 1, encoded: encodeURIComponent(SECRET), nested: [{ note: `x ${SECRET} y` }], log: '' };
	const padding = length - JSON.stringify(base).length;
	if (padding < 0) throw new Error('too short');
	// A line break takes two characters in JSON ("\n"): each line is six.
	const lines = Math.floor(padding / 6);
	return JSON.stringify({ ...base, log: 'line\n'.repeat(lines) + 'z'.repeat(padding - lines * 6) });
}

describe('an answer of at most CLEAN_AT_ONCE_CHARS is cleaned at once, exactly as cleanParsed cleans it', () => {
	test.each([CLEAN_AT_ONCE_CHARS, CLEAN_AT_ONCE_CHARS + 1])('%i characters: the same values, keys and ids, and no secret left', async (length) => {
		const text = answerOf(length);
		expect(text.length).toBe(length);
		const general = await cleanParsed(JSON.parse(text), FORMS);
		const atOnce = cleanSmallParsed(JSON.parse(text), FORMS);
		expect(atOnce).toEqual(general);
		// Believed with no promise up to the edge; a longer answer is cleaned with turns of the event loop.
		const reading = believe(text, 'application/json', 200, FORMS);
		expect(reading instanceof Promise).toBe(length > CLEAN_AT_ONCE_CHARS);
		const read = await reading;
		expect(read.body).toEqual(general);
		expect(JSON.stringify(read.body)).not.toContain(SECRET);
		expect(JSON.stringify(read.body)).not.toContain(encodeURIComponent(SECRET));
		expect(Object.keys(read.body as object)).toContain('key ***');
	});

	test('a bare string, a number writing a key and a literal are cleaned the same at once', async () => {
		for (const value of [`a ${SECRET} b`, 1234567890123456, null, true]) {
			const forms = secretForms([SECRET, '1234567890123456']);
			expect(cleanSmallParsed(value, forms)).toEqual(await cleanParsed(value, forms));
		}
		expect(cleanSmallParsed(1234567890123456, secretForms(['1234567890123456']))).toBe('***');
	});
});

/** The shape check's answer read by a plain character loop (strings skipped, escapes honoured): an independent reading. */
function shapeByLoop(text: string): string | null {
	let depth = 0;
	let values = 0;
	for (let at = 0; at < text.length; at++) {
		const c = text[at];
		if (c === '"') {
			for (at++; at < text.length && text[at] !== '"'; at++) if (text[at] === '\\') at++;
			if (at >= text.length) return null;
			continue;
		}
		if (c === '{' || c === '[') {
			if (++depth > MAX_ANSWER_DEPTH) return `is nested deeper than ${MAX_ANSWER_DEPTH} levels`;
			values++;
		} else if (c === '}' || c === ']') depth--;
		else if (c === ',' || c === ':') values++;
		if (values > MAX_ANSWER_VALUES) return `holds more than ${MAX_ANSWER_VALUES.toLocaleString('en-US')} values`;
	}
	return null;
}

/** A text of brackets around the depth bound, with strings holding brackets, quotes and escapes, and plain values. */
function shapeText(next: () => number): string {
	const pieces = ['{', '[', '}', ']', ',', ':', '0', ' ', '"a[{"', '"\\"', '"x\\"[["', '"', '\\'];
	const deep = Math.floor(next() * 8) + MAX_ANSWER_DEPTH - 3;
	const parts: string[] = next() < 0.5 ? ['['.repeat(deep)] : [];
	for (let count = Math.floor(next() * 60); count > 0; count--) parts.push(pieces[Math.floor(next() * pieces.length)]);
	return parts.join('');
}

describe('a plainly bounded answer is told without a scan, and answers as the scan does', () => {
	test(`exactly ${MAX_ANSWER_DEPTH} brackets in all: within the bounds; one more, nested, refused; one more beside, read by the scan`, () => {
		expect(jsonShapeProblem('{"a":' + '['.repeat(MAX_ANSWER_DEPTH - 1) + ']'.repeat(MAX_ANSWER_DEPTH - 1) + '}')).toBeNull();
		expect(jsonShapeProblem('{"a":' + '['.repeat(MAX_ANSWER_DEPTH) + ']'.repeat(MAX_ANSWER_DEPTH) + '}')).toBe(`is nested deeper than ${MAX_ANSWER_DEPTH} levels`);
		expect(jsonShapeProblem(`[${'[],'.repeat(MAX_ANSWER_DEPTH)}0]`)).toBeNull();
		expect(jsonShapeProblem(`{"log":"${'['.repeat(MAX_ANSWER_DEPTH + 1)}"}`)).toBeNull();
	});

	test(`exactly ${MAX_ANSWER_VALUES.toLocaleString('en-US')} characters hold no more values than that; past it the scan counts them`, () => {
		// Every character but the last counted: the most values a text of this length can hold.
		const within = `[${','.repeat(MAX_ANSWER_VALUES - 2)}]`;
		expect(within.length).toBe(MAX_ANSWER_VALUES);
		expect(jsonShapeProblem(within)).toBeNull();
		expect(shapeByLoop(within)).toBeNull();
		const over = `[${','.repeat(MAX_ANSWER_VALUES)}`;
		expect(over.length).toBe(MAX_ANSWER_VALUES + 1);
		expect(jsonShapeProblem(over)).toBe('holds more than 100,000 values');
		expect(shapeByLoop(over)).toBe('holds more than 100,000 values');
	});

	test('3,000 seeded texts around the depth bound: the same answer as a plain character loop', () => {
		for (let seed = 1; seed <= 3000; seed++) {
			const text = shapeText(mulberry32(seed));
			if (jsonShapeProblem(text) !== shapeByLoop(text)) throw new Error(`seed ${seed}: ${JSON.stringify(text)}`);
		}
	});
});
