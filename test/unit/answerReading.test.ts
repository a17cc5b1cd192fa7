// Reading an answer's bytes (decoded once, at the end), cleaning a short answer at once, and telling a plainly bounded
// answer's shape without a scan: each the same as the general path, at its edges (a character split between chunks,
// a leading BOM, exactly at the cap and one past it, an answer exactly CLEAN_AT_ONCE_CHARS long and one longer,
// exactly MAX_ANSWER_DEPTH brackets and one more, exactly MAX_ANSWER_VALUES characters and one more).
import fc from 'fast-check';
import { sleep } from 'n8n-workflow';
import { PassThrough, Readable } from 'stream';

import { secretForms, sentId } from '../../nodes/shared/redaction';
import { mulberry32 } from '../../server/random';
import {
	AttemptStop,
	believe,
	CLEAN_AT_ONCE_CHARS,
	cleanParsed,
	cleanSmallParsed,
	cutMarker,
	isByteStream,
	jsonShapeProblem,
	MAX_ANSWER_DEPTH,
	MAX_ANSWER_VALUES,
	MAX_ERROR_ANSWER_BYTES,
	MAX_JOB_ANSWER_BYTES,
	MAX_STRING_CHARS,
	readCapped,
	sizeInWords,
} from '../../nodes/shared/transport';

// sleep(0) is how cleaning gives the event loop a turn: counted (and still slept), so the turns are checked exactly.
jest.mock('n8n-workflow', () => {
	const actual: { sleep(ms: number): Promise<void> } = jest.requireActual('n8n-workflow');
	return { ...actual, sleep: jest.fn(async (ms: number) => await actual.sleep(ms)) };
});

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

describe('the stated bounds of an answer, in words (transport/answer.ts)', () => {
	test('the caps, and how they are said', () => {
		expect([MAX_JOB_ANSWER_BYTES, MAX_ERROR_ANSWER_BYTES, MAX_STRING_CHARS]).toEqual([4 * 1024 * 1024, 64 * 1024, 2 * 1024 * 1024]);
		expect(sizeInWords(MAX_JOB_ANSWER_BYTES)).toBe('4 MiB');
		expect(sizeInWords(MAX_ERROR_ANSWER_BYTES)).toBe('64 KiB');
		expect(sizeInWords(1024 * 1024)).toBe('1 MiB');
		expect(sizeInWords(1024 * 1024 - 1)).toBe('1024 KiB');
		expect(sizeInWords(1.25 * 1024 * 1024)).toBe('1.3 MiB');
		expect(sizeInWords(1536)).toBe('2 KiB');
		expect(cutMarker(12)).toBe(' … [cut by the node: 12 more characters]');
	});
});

/** A Node stream whose events the test drives, with what it was told. */
function drivenStream() {
	const stream = new PassThrough();
	let destroyedWith: unknown = 'not destroyed';
	const destroy = stream.destroy.bind(stream);
	stream.destroy = (error?: Error) => {
		destroyedWith = error;
		return destroy();
	};
	return { stream, destroyed: () => destroyedWith };
}

/** An async iterable of chunks (no events), with what it was told. */
function iterable(parts: unknown[], hold?: Promise<void>) {
	const told: { destroyed: unknown[] } = { destroyed: [] };
	const body = {
		async *[Symbol.asyncIterator]() {
			for (const part of parts) yield part;
			if (hold) await hold;
		},
		destroy(error?: Error) {
			told.destroyed.push(error);
		},
	};
	return { body, told };
}

describe('readCapped: every way a body read ends', () => {
	test('a stream that closes before its end is a premature close; an error is thrown as an Error; the stream is let go', async () => {
		const closed = drivenStream();
		const read = readCapped(closed.stream, 100, new AttemptStop());
		closed.stream.write('{"a"');
		closed.stream.emit('close');
		await expect(read).rejects.toMatchObject({ message: 'Premature close', code: 'ERR_STREAM_PREMATURE_CLOSE' });
		for (const event of ['data', 'end', 'close']) expect(closed.stream.listenerCount(event)).toBe(0);
		// A late error of the dropped stream is heard, by nothing but a handler that ignores it.
		expect(closed.stream.listenerCount('error')).toBe(1);
		expect(() => closed.stream.emit('error', new Error('late'))).not.toThrow();
		expect(closed.destroyed()).toBeUndefined();

		const failed = drivenStream();
		const failing = readCapped(failed.stream, 100, new AttemptStop());
		failed.stream.emit('error', 'reset by peer');
		await expect(failing).rejects.toThrow(new Error('reset by peer'));
		const errored = drivenStream();
		const erroring = readCapped(errored.stream, 100, new AttemptStop());
		const cause = Object.assign(new Error('zlib'), { code: 'Z_DATA_ERROR' });
		errored.stream.emit('error', cause);
		await expect(erroring).rejects.toBe(cause);
	});

	test('a stop while a stream is read ends it at once: ABORTED, the stream destroyed; a stop that came first reads nothing', async () => {
		const driven = drivenStream();
		const stop = new AttemptStop();
		const read = readCapped(driven.stream, 100, stop);
		driven.stream.write('{"a":');
		stop.stop();
		await expect(read).rejects.toThrow('ABORTED');
		expect(driven.destroyed()).toBeUndefined();
		expect(driven.stream.listenerCount('data')).toBe(0);

		const late = drivenStream();
		const stopped = new AttemptStop();
		stopped.stop();
		await expect(readCapped(late.stream, 100, stopped)).rejects.toThrow('ABORTED');
		expect(late.destroyed()).toBeUndefined();
		const lateIterable = iterable(['{}']);
		await expect(readCapped(lateIterable.body, 100, stopped)).rejects.toThrow('ABORTED');
		expect(lateIterable.told.destroyed).toStrictEqual([undefined]);
	});

	test('an iterable without events: strings and other chunks read as UTF-8, the cap kept, and it is destroyed in every case', async () => {
		const text = iterable(['é', 7, Buffer.from('!')]);
		expect(await readCapped(text.body, 4, new AttemptStop())).toEqual({ text: 'é7!' });
		expect(text.told.destroyed).toStrictEqual([undefined]);
		const big = iterable(['abc', 'de']);
		expect(await readCapped(big.body, 4, new AttemptStop())).toEqual({ tooLarge: true });
		expect(big.told.destroyed).toStrictEqual([undefined]);
		// A stop while it waits for its next chunk destroys it with ABORTED.
		let release = () => {};
		const held = iterable(['{'], new Promise<void>((resolve) => (release = resolve)));
		const stop = new AttemptStop();
		const read = readCapped(held.body, 100, stop);
		await new Promise((resolve) => setImmediate(resolve));
		stop.stop();
		expect((held.told.destroyed[0] as Error | undefined)?.message).toBe('ABORTED');
		release();
		await read;
	});

	test('an object with only some of a stream\'s parts is a body read whole', async () => {
		const noDestroy = { [Symbol.asyncIterator]: async function* () {} };
		expect(isByteStream(noDestroy)).toBe(false);
		expect(isByteStream({ destroy() {} })).toBe(false);
		expect(isByteStream(null)).toBe(false);
		expect(isByteStream('text')).toBe(false);
		expect(await readCapped(noDestroy, 100, new AttemptStop())).toEqual({ text: '{}' });
		// Events without removeListener: read as an iterable.
		const half = Object.assign(iterable(['ok']).body, { on() {} });
		expect(await readCapped(half, 100, new AttemptStop())).toEqual({ text: 'ok' });
		const otherHalf = Object.assign(iterable(['ok']).body, { removeListener() {} });
		expect(await readCapped(otherHalf, 100, new AttemptStop())).toEqual({ text: 'ok' });
	});

	test('a body some host read whole: nothing is empty text; text, bytes and JSON values are kept up to the cap, counted in UTF-8 bytes', async () => {
		const stop = new AttemptStop();
		expect(await readCapped(undefined, 10, stop)).toEqual({ text: '' });
		expect(await readCapped(null, 10, stop)).toEqual({ text: '' });
		expect(await readCapped('ééééé', 10, stop)).toEqual({ text: 'ééééé' });
		expect(await readCapped('éééééé', 10, stop)).toEqual({ tooLarge: true });
		expect(await readCapped(Buffer.from('\uFEFF{"a":1}'), 10, stop)).toEqual({ text: '{"a":1}' });
		expect(await readCapped({ a: 'é' }, 10, stop)).toEqual({ text: '{"a":"é"}' });
		expect(await readCapped({ a: 'éé' }, 10, stop)).toEqual({ tooLarge: true });
		expect(await readCapped(0, 1, stop)).toEqual({ text: '0' });
	});
});

describe('the shape check at its edges (transport/answer.ts jsonShapeProblem)', () => {
	test('exactly MAX_ANSWER_VALUES values in a longer text are within; one more is not', () => {
		const exactly = `[${'0, '.repeat(MAX_ANSWER_VALUES - 1)}0]`;
		expect(exactly.length).toBeGreaterThan(MAX_ANSWER_VALUES);
		expect(jsonShapeProblem(exactly)).toBeNull();
		expect(jsonShapeProblem(`[${'0, '.repeat(MAX_ANSWER_VALUES)}0]`)).toBe('holds more than 100,000 values');
	});

	test('objects nested from the second character are counted; an unclosed string holds whatever it holds', () => {
		const objects = (depth: number) => `[${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}]`;
		expect(jsonShapeProblem(objects(MAX_ANSWER_DEPTH - 1))).toBeNull();
		expect(jsonShapeProblem(objects(MAX_ANSWER_DEPTH))).toBe('is nested deeper than 32 levels');
		expect(jsonShapeProblem(`["${'['.repeat(40)}`)).toBeNull();
		expect(jsonShapeProblem(`["a\\"${'['.repeat(40)}`)).toBeNull();
		expect(jsonShapeProblem(`["a\\\\",${'['.repeat(40)}`)).toBe('is nested deeper than 32 levels');
	});
});

/** The turns cleaning gives the event loop: its calls of n8n's sleep (counted, and still slept). */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
	jest.mocked(sleep).mockClear();
	await work();
	return jest.mocked(sleep).mock.calls.filter(([ms]) => ms === 0).length;
}

describe('cleaning a parsed answer: every string, key and number, in place, with turns of the event loop', () => {
	const KEYED = secretForms([SECRET, '1234567890123456']);

	test('a bare string, null, a literal, a number writing a key: cleaned with no promise step needed', async () => {
		expect(await cleanParsed(`a ${SECRET} b`, KEYED)).toBe('a *** b');
		expect(await cleanParsed(null, KEYED)).toBeNull();
		expect(await cleanParsed(false, KEYED)).toBe(false);
		expect(await cleanParsed(1234567890123456, KEYED)).toBe('***');
		expect(await cleanParsed(42, KEYED)).toBe(42);
	});

	test('inside containers: numbers writing a key, nulls and literals beside nested containers', async () => {
		const body = { n: 1234567890123456, m: 7, none: null, yes: true, list: [1234567890123456, null, [`x ${SECRET}`]], deep: { note: SECRET } };
		expect(await cleanParsed(body, KEYED)).toEqual({ n: '***', m: 7, none: null, yes: true, list: ['***', null, ['x ***']], deep: { note: '***' } });
	});

	test('a string of exactly MAX_STRING_CHARS is kept whole; one character more is cut and says so', async () => {
		expect(await cleanParsed({ log: 'x'.repeat(MAX_STRING_CHARS) }, KEYED)).toEqual({ log: 'x'.repeat(MAX_STRING_CHARS) });
		expect(await cleanParsed({ log: 'x'.repeat(MAX_STRING_CHARS + 1) }, KEYED)).toEqual({ log: 'x'.repeat(MAX_STRING_CHARS) + cutMarker(1) });
	});

	test('a long key (more than a step) is cleaned; a long key holding a container has the container cleaned too; a long value in a list is cleaned', async () => {
		const longKey = `${'k'.repeat(70_000)} ${SECRET}`;
		const body = JSON.parse(JSON.stringify({ [longKey]: { inner: SECRET }, list: [`${'v'.repeat(70_000)} ${SECRET}`] })) as Record<string, unknown>;
		const cleaned = (await cleanParsed(body, KEYED)) as Record<string, unknown>;
		// Long texts compared by their ends and lengths, so a failure prints a line, not 70,000 characters.
		const short = (text: string) => (text.length > 100 ? `${text.slice(0, 3)}…${text.slice(-6)} (${text.length})` : text);
		expect(Object.keys(cleaned).map(short).sort()).toEqual(['kkk…kk *** (70004)', 'list']);
		expect(cleaned[`${'k'.repeat(70_000)} ***`]).toEqual({ inner: '***' });
		expect((cleaned.list as string[]).map(short)).toEqual(['vvv…vv *** (70004)']);
	});

	test('a long key holding a number that writes a key, or null, or a literal: the value cleaned as under a short key', async () => {
		const longKey = 'k'.repeat(70_000);
		const body = { [`${longKey}1`]: 1234567890123456, [`${longKey}2`]: null, [`${longKey}3`]: false, [`${longKey}4`]: 7 };
		expect(await cleanParsed(body, KEYED)).toEqual({ [`${longKey}1`]: '***', [`${longKey}2`]: null, [`${longKey}3`]: false, [`${longKey}4`]: 7 });
	});

	test('generated: whatever the length of the field\'s name (around a step of 65,536) and whatever holds the key (text, a number, a container), no key is left', async () => {
		const NUMBER_KEY = 1234567890123456;
		const holder = fc.constantFrom('text', 'number', 'nested', 'list');
		const nameLength = fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 65_530, max: 65_542 }), fc.constant(70_000));
		await fc.assert(
			fc.asyncProperty(nameLength, holder, fc.boolean(), async (length, kind, keyInName) => {
				const name = keyInName ? `${'n'.repeat(Math.max(0, length - SECRET.length - 1))} ${SECRET}` : 'n'.repeat(length);
				const value = kind === 'text' ? `x ${SECRET}` : kind === 'number' ? NUMBER_KEY : kind === 'nested' ? { inner: `${SECRET}` } : [NUMBER_KEY, `${SECRET}`];
				const shown = JSON.stringify(await cleanParsed({ [name]: value, plain: 'kept' }, KEYED));
				expect(shown).not.toContain(SECRET.slice(0, 8));
				expect(shown).not.toContain(String(NUMBER_KEY));
				expect(shown).toContain('"plain":"kept"');
			}),
			{ seed: 4803, numRuns: 60 },
		);
	});

	test('a key named __proto__ stays an own, enumerable, writable field, and no prototype changes', async () => {
		const body = JSON.parse(`{"__proto__":"a ${'x'.repeat(3)} ${SECRET.replace(/"/g, '\\"')}"}`) as Record<string, unknown>;
		const cleaned = (await cleanParsed(body, KEYED)) as Record<string, unknown>;
		expect(Object.keys(cleaned)).toEqual(['__proto__']);
		expect(Object.getPrototypeOf(cleaned)).toBe(Object.prototype);
		expect(Object.getOwnPropertyDescriptor(cleaned, '__proto__')?.value).toBe('a xxx ***');
		Object.defineProperty(cleaned, 'note', { value: 1, enumerable: true, writable: true, configurable: true });
		const descriptor = Object.getOwnPropertyDescriptor(cleaned, '__proto__');
		expect([descriptor?.enumerable, descriptor?.writable, descriptor?.configurable]).toEqual([true, true, true]);
	});

	test('an id is kept as the service sent it only when redaction changed it', async () => {
		const changed = (await cleanParsed({ jobId: `job-${SECRET}`, id: 'plain-1' }, KEYED)) as Record<string, unknown>;
		expect(changed.jobId).toBe('job-***');
		expect(sentId(changed, 'jobId')).toBe(`job-${SECRET}`);
		expect(sentId(changed, 'id')).toBeUndefined();
	});

	test('no turn for a small answer; turns through a large one, list of short strings or one long string alike', async () => {
		expect(await turnsDuring(() => cleanParsed({ a: 'x', b: ['y', 1] }, KEYED))).toBe(0);
		const manyShort = Array.from({ length: 10_000 }, (_, index) => `${index} ${'s'.repeat(1000)}`);
		expect(await turnsDuring(() => cleanParsed(manyShort, KEYED))).toBeGreaterThanOrEqual(10);
		expect(await turnsDuring(() => cleanParsed({ log: 'l'.repeat(2 * 1024 * 1024) }, KEYED))).toBeGreaterThanOrEqual(2);
	});
});
