// Reading an answer's bytes (decoded once, at the end) and cleaning a short answer at once: each the same as the
// general path, at its edges (a character split between chunks, a leading BOM, exactly at the cap and one past it,
// an answer exactly CLEAN_AT_ONCE_CHARS long and one longer).
import { Readable } from 'stream';

import { secretForms } from '../../nodes/shared/redaction';
import { AttemptStop, believe, CLEAN_AT_ONCE_CHARS, cleanParsed, cleanSmallParsed, readCapped } from '../../nodes/shared/transport';

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
		const read = await believe(text, 'application/json', 200, FORMS);
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
