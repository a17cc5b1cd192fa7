// Redaction at its edges: the shortest key hidden and the one left alone, tokens, base64 at each alignment, every escape, and the prescan changing nothing.
import { FIRST_STEP_CHARS, MIN_SECRET_LENGTH, PLAN_WHOLE_CHARS, redact, redactionWork, redactor, runAll, secretForms, shortSecretProblem, STEP_CHARS, stepEnd } from '../../nodes/shared/redaction';
import { cleanParsed, cutMarker, MAX_STRING_CHARS } from '../../nodes/shared/transport';
import { ECHO_FORMS, transform } from '../../testkit/hostileServer';
import { secretSearch } from '../../testkit/secrets';

/** Small deterministic generator, so a failure can be replayed. */
function seeded(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state * 1103515245 + 12345) % 2147483648;
		return state / 2147483648;
	};
}

const SYMBOLIC = `tok>&<"'+/%?9Z`;

/**
 * Most work one step does, whatever the keys: its STEP_CHARS characters read by the text and by each of its readings
 * (two unwraps, two decodes, two hex readings), the automaton over five of them, and the links it follows (at most
 * one per character read, plus what a form longer than the step carried in: far below a step).
 */
const STEP_WORK = 16 * STEP_CHARS;
const base64 = (text: string) => Buffer.from(text).toString('base64');

describe('which keys are searched', () => {
	test(`a key of ${MIN_SECRET_LENGTH} characters is hidden; one of ${MIN_SECRET_LENGTH - 1} is left alone, and the credential Test says why`, () => {
		const eight = `&<>"'+/%`;
		expect(eight).toHaveLength(MIN_SECRET_LENGTH);
		expect(redact(`key ${eight} end`, secretForms([eight]))).toBe('key *** end');
		const seven = eight.slice(1);
		expect(secretForms([seven])).toEqual([]);
		expect(redact(`key ${seven} end`, secretForms([seven]))).toBe(`key ${seven} end`);
		expect(shortSecretProblem('Token', seven)).toMatch(/^The Token is shorter than 8 characters: /);
		expect(shortSecretProblem('Token', eight)).toBeNull();
	});

	test('Basic: a 2-character password is still hidden in its Authorization value and as user:password', () => {
		const forms = secretForms([], { user: 'admin', password: 'x9' });
		expect(redact('Authorization: Basic YWRtaW46eDk=', forms)).toBe('Authorization: Basic ***=');
		expect(redact('user admin:x9 logged in', forms)).toBe('user *** logged in');
		// The password alone is too short to search: it stays (the credential Test refuses it).
		expect(redact('x9 x9', forms)).toBe('x9 x9');
	});

	test('a key matches as a token only: not inside a longer run of letters and digits', () => {
		const forms = secretForms(['deadbeef42']);
		expect(redact('id deadbeef42-1 and (deadbeef42)', forms)).toBe('id ***-1 and (***)');
		expect(redact('xdeadbeef42 deadbeef42x 0deadbeef429', forms)).toBe('xdeadbeef42 deadbeef42x 0deadbeef429');
		// A key whose edges are symbols has no letter-or-digit edge to check.
		expect(redact(`a>&<"tok'+/%?b`, secretForms([`>&<"tok'+/%?`]))).toBe('a***b');
	});

	test('ids, times and values holding a short key come back unchanged', () => {
		const forms = secretForms(['2026', '7c2f', 'x9'], { user: 'admin', password: '2026' });
		for (const text of ['7c2f2026-1a2b-4c3d-8e9f-0a1b2c3d4e5f', '2026-11-25T18:30:28.123Z', '2026', 'Tue, 25 Nov 2026 18:30:28 GMT', 'COMPLETED']) {
			expect(redact(text, forms)).toBe(text);
		}
	});
});

describe('every form of a key', () => {
	test.each([0, 1, 2])('base64 at offset %i, standard and URL-safe, whole or wrapped at 76 characters', (offset) => {
		const forms = secretForms([SYMBOLIC]);
		const encoded = base64(`${'#'.repeat(offset)}${SYMBOLIC}${'#'.repeat(80)}`);
		for (const text of [encoded, encoded.replace(/\+/g, '-').replace(/\//g, '_'), encoded.replace(/(.{76})/g, '$1\r\n'), encoded.replace(/(.{3})/, '$1\n')]) {
			const redacted = redact(text, forms);
			expect(redacted).toContain('***');
			expect(secretSearch({ c: { token: SYMBOLIC } })(redacted)).toBeUndefined();
		}
	});

	test.each([...ECHO_FORMS])('echoed as %s: hidden for each credential kind', (form) => {
		const kinds: Array<{ headers: string; forms: string[]; check: Record<string, string> }> = [
			{ headers: `authorization: Bearer ${SYMBOLIC}`, forms: secretForms([SYMBOLIC]), check: { token: SYMBOLIC } },
			{ headers: `authorization: Basic ${base64(`alice:${SYMBOLIC}`)}`, forms: secretForms([SYMBOLIC], { user: 'alice', password: SYMBOLIC }), check: { user: 'alice', password: SYMBOLIC } },
			{ headers: `x-api-secret: ${SYMBOLIC}`, forms: secretForms([SYMBOLIC]), check: { headerSecret: SYMBOLIC } },
			{ headers: `apikey: ${SYMBOLIC}; user-api-key: k%7e${SYMBOLIC}2`, forms: secretForms([SYMBOLIC, `k%7e${SYMBOLIC}2`]), check: { apiKey: SYMBOLIC, userApiKey: `k%7e${SYMBOLIC}2` } },
		];
		for (const kind of kinds) {
			const echoed = `host: 127.0.0.1; ${kind.headers}; accept: application/json`;
			const text = transform(echoed, form);
			expect(secretSearch({ c: kind.check })(text)).toBeDefined();
			expect(secretSearch({ c: kind.check })(redact(text, kind.forms))).toBeUndefined();
		}
	});

	test('HTML: named and numeric escapes, decimal and hex; JSON: \\uXXXX and a JSON text inside a JSON text', () => {
		const forms = secretForms([SYMBOLIC]);
		const html = SYMBOLIC.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
		const numeric = [...SYMBOLIC].map((c, i) => (i % 2 ? `&#${c.charCodeAt(0)};` : `&#x${c.charCodeAt(0).toString(16)};`)).join('');
		const unicode = [...SYMBOLIC].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
		for (const text of [html, numeric, unicode, JSON.stringify(JSON.stringify({ a: SYMBOLIC })), `<p title="${html}">`]) {
			expect(redact(`x ${text} y`, forms)).toMatch(/^x .*\*\*\*.* y$/);
			expect(secretSearch({ c: { token: SYMBOLIC } })(redact(text, forms))).toBeUndefined();
		}
	});

	test('percent-encoded: partly, every byte (any case), form-encoded, and a key preceded by an escaped space', () => {
		const forms = secretForms(['plain-key-1234', 'with space+1']);
		expect(redact('Authorization%3A%20Bearer%20plain-key-1234%0D%0A', forms)).toBe('Authorization%3A%20Bearer%20***%0D%0A');
		const everyByte = [...Buffer.from('plain-key-1234')].map((b) => `%${b.toString(16)}`).join('');
		expect(redact(`a=${everyByte.toUpperCase()}&b=1`, forms)).toBe('a=***&b=1');
		expect(redact(`h=${new URLSearchParams({ k: 'with space+1' }).toString()}`, forms)).toBe('h=k=***');
		// Only what decodes to the key is replaced: the escapes around it stay. A letter escaped next to it is a letter.
		expect(redact('%20plain-key-1234%0A', forms)).toBe('%20***%0A');
		expect(redact('%41plain-key-1234%42', forms)).toBe('%41plain-key-1234%42');
	});
});

/** Forms among odd characters, in any case and encoding; with `nearMisses`, a letter swapped for a lookalike (those returned). */
function longText(random: () => number, samples: readonly string[], chars: number, nearMisses: boolean): { text: string; misses: string[] } {
	const fillers = ['a', 'Z', ' ', '\n', 'ß', 'ﬁ', 'ſ', 'ı', '\u212a', 'é', '😀', '"', '%', '%2', '\\u00', '&#', '&amp;', '+', '/', '0'];
	const lookalikes: Record<string, string> = { k: '\u212a', s: 'ſ', i: 'ı', K: '\u212a', S: 'ſ', I: 'ı' };
	let text = '';
	const misses: string[] = [];
	while (text.length < chars) {
		if (random() < 0.02) {
			const form = [...samples[Math.floor(random() * samples.length)]].map((c) => (random() < 0.5 ? c.toUpperCase() : c.toLowerCase()));
			const swap = form.findIndex((c) => lookalikes[c] !== undefined);
			if (nearMisses && swap !== -1) {
				form[swap] = lookalikes[form[swap]];
				misses.push(form.join(''));
			}
			text += form.join('');
		} else text += fillers[Math.floor(random() * fillers.length)];
	}
	return { text, misses };
}

describe('the search skips natively where no form starts, and reads every form in any case', () => {
	test.each([
		['ASCII secrets', ['tok-Abc123xyz', 'relay-key-55'], { user: 'alice', password: SYMBOLIC }],
		['non-ASCII secrets', ['straße-schlüssel', 'ſecret-ﬁle'], undefined],
	] as const)('%s: long texts with forms in any case and encoding among odd characters: none shows; lookalikes stay', (_name, secrets, basic) => {
		const forms = secretForms(secrets, basic);
		const samples = forms.flatMap((form) => ECHO_FORMS.map((echo) => transform(` ${form} `, echo)));
		// A key's hex hides the rest of its line (a dump's ASCII column): near misses are drawn among the other forms.
		const nearSamples = forms.flatMap((form) => ECHO_FORMS.filter((echo) => !/hex|xxd/i.test(echo)).map((echo) => transform(` ${form} `, echo)));
		const clean = redactor(forms);
		const search = secretSearch({ c: { token: secrets[0], apiKey: secrets[1], ...(basic ?? {}) } });
		const random = seeded(7);
		let redacted = 0;
		for (let round = 0; round < 80; round++) {
			const { text, misses } = longText(random, round % 2 === 1 ? nearSamples : samples, 1024 + Math.floor(random() * 4000), round % 2 === 1);
			const cleaned = clean(text);
			if (misses.length === 0) expect(search(cleaned)).toBeUndefined();
			// A near miss that holds no form (a pair's user swapped still holds its password) is left as it is.
			for (const miss of misses) if (search(miss) === undefined) expect(cleaned).toContain(miss);
			if (cleaned !== text) redacted++;
		}
		expect(redacted).toBeGreaterThanOrEqual(40);
	});

	test('a long text holding no form comes back as it is (the same string); one holding a form in another case is redacted', () => {
		const forms = secretForms(['tok-Abc123xyz']);
		const plain = 'x'.repeat(5000);
		expect(redact(plain, forms)).toBe(plain);
		expect(redact(`${plain} TOK-ABC123XYZ ${plain}`, forms)).toBe(`${plain} *** ${plain}`);
		// Lookalikes are other characters (ſ, ı, the Kelvin sign): a form is read in any case, never in another letter.
		for (const near of ['tok-Abc123xyz'.replace('k', '\u212a'), 'TOK-ABC123XYZ'.replace('K', '\u212a'), 'toſ-Abc123xyz']) {
			const text = `${plain} ${near} ${plain}`;
			expect(redact(text, forms)).toBe(text);
		}
	});

	test('texts made of escapes and line breaks, holding no form, come back unchanged at every size', () => {
		const forms = secretForms(['tok-Abc123xyz'], { user: 'alice', password: SYMBOLIC });
		const unit = '%41\\u0042&#67;&amp;\nAAAA+/';
		for (const size of [1, 1_000, 100_000]) {
			const text = unit.repeat(size);
			expect(redact(text, forms)).toBe(text);
		}
	});
});

describe('the forms of issue 33', () => {
	const kinds = [
		{ name: 'bearer', line: (key: string) => `Authorization: Bearer ${key}` },
		{ name: 'custom header', line: (key: string) => `X-Api-Secret: ${key}` },
		{ name: 'relay API key', line: (key: string) => `apiKey: ${key}` },
		{ name: 'user API key', line: (key: string) => `user-api-key: ${key}` },
	];

	test.each(kinds)('$name: a key wrapped over two log lines (LF or CRLF) at every point is hidden', ({ line }) => {
		const forms = secretForms([SYMBOLIC]);
		for (let at = 1; at < SYMBOLIC.length; at++) {
			for (const lineBreak of ['\n', '\r\n']) {
				const text = `2026-01-05 INFO ${line(SYMBOLIC.slice(0, at))}${lineBreak}${SYMBOLIC.slice(at)}; accept: application/json`;
				const redacted = redact(text, forms);
				expect(redacted).toContain('***');
				expect(secretSearch({ c: { token: SYMBOLIC } })(redacted)).toBeUndefined();
			}
		}
	});

	test('a wrapped key is found across one line break, not across a blank line, and keeps the token rule', () => {
		const forms = secretForms(['deadbeef42']);
		expect(redact('key dead\nbeef42 end', forms)).toBe('key *** end');
		expect(redact('key dead\n\nbeef42 end', forms)).toBe('key dead\n\nbeef42 end');
		expect(redact('xdead\nbeef42 and dead\nbeef42x', forms)).toBe('xdead\nbeef42 and dead\nbeef42x');
	});

	test.each(['xxd', 'xxdUpper', 'hexdumpC', 'colonHex', 'colonHexUpper'] as const)('%s: the key\'s bytes and the ASCII column of their lines are hidden', (form) => {
		const forms = secretForms([SYMBOLIC]);
		for (const prefix of ['', 'a', 'ab', 'Authorization: Bearer ']) {
			const text = `2026-01-05 INFO headers: ${transform(`${prefix}${SYMBOLIC}; host: 127.0.0.1`, form)}`;
			const redacted = redact(text, forms);
			expect(secretSearch({ c: { token: SYMBOLIC } })(redacted)).toBeUndefined();
			// No four characters of the key in a row show, in the ASCII column or anywhere.
			for (let at = 0; at + 4 <= SYMBOLIC.length; at++) expect(redacted).not.toContain(SYMBOLIC.slice(at, at + 4));
		}
	});

	test('hex dumps and dates that are no key stay as they are', () => {
		const forms = secretForms([SYMBOLIC, 'tok-Abc123xyz']);
		for (const text of [transform('nothing secret here, only a header: accept: */*', 'xxd'), transform('plain text', 'hexdumpC'), '2026-01-05 09:00:00.125 aa:bb:cc:dd:ee:ff 41 42 43']) {
			expect(redact(text, forms)).toBe(text);
		}
	});

	test.each([
		['+', `a+b/c%d${SYMBOLIC}`],
		['/', `key/with/slashes-${SYMBOLIC}`],
	])('base64 of the URL- and form-encoded header line, a key holding %s, at every alignment', (_char, key) => {
		const forms = secretForms([key]);
		for (const encode of [encodeURIComponent, (line: string) => new URLSearchParams({ h: line }).toString()]) {
			for (const offset of [0, 1, 2]) {
				const text = Buffer.from(`${'#'.repeat(offset)}${encode(`authorization: Bearer ${key}`)}`).toString('base64');
				const redacted = redact(text, forms);
				expect(redacted).toContain('***');
				expect(secretSearch({ c: { token: key } })(redacted)).toBeUndefined();
			}
		}
	});
});

describe('numbers are compared as their text', () => {
	test('a digits-only key echoed as a JSON number, safe or beyond a double, is hidden; other numbers stay', async () => {
		const safe = '73914052618';
		const big = '7391405261827364519';
		const forms = secretForms([safe, big]);
		const parsed = JSON.parse(`{"a":${safe},"b":${big},"c":[${safe}.5,-${safe}],"d":173914052618,"e":7391405261,"f":${safe}}`) as Record<string, unknown>;
		const cleaned = (await cleanParsed(parsed, forms)) as Record<string, unknown>;
		expect(cleaned).toEqual({ a: '***', b: '***', c: ['***.5', '-***'], d: 173914052618, e: 7391405261, f: '***' });
		expect(await cleanParsed(Number(safe), forms)).toBe('***');
		expect(await cleanParsed(7391405261, forms)).toBe(7391405261);
	});
});

describe('work bounded per answer: cut first, slices with an overlap', () => {
	const forms = secretForms([SYMBOLIC, 'tok-Abc123xyz']);
	const work = redactionWork(forms);
	const encodings: Array<[string, (text: string) => string]> = [
		['raw', (text) => text],
		['every byte percent-encoded', (text) => transform(text, 'everyBytePercent')],
		['JSON \\u escapes', (text) => transform(text, 'jsonUnicode')],
		['HTML numeric', (text) => transform(text, 'htmlNumeric')],
		['percent-encoded twice', (text) => encodeURIComponent(transform(text, 'everyBytePercent'))],
		['wrapped at every 5 characters', (text) => text.replace(/(.{5})/g, '$1\n')],
	];

	test.each(encodings)('%s: a key straddling a slice edge, at every offset, is hidden', (_name, encode) => {
		const key = encode(`Bearer ${SYMBOLIC}`);
		const filler = 'x '.repeat(work.sliceChars);
		for (let before = 0; before <= key.length + 1; before += Math.max(1, Math.floor(key.length / 12))) {
			const head = filler.slice(0, work.sliceChars - before);
			const text = `${head}${key} tail`;
			const redacted = runAll(work.steps(text));
			expect(redacted.startsWith(head.slice(0, head.length - 100))).toBe(true);
			expect(redacted.endsWith(' tail')).toBe(true);
			expect(secretSearch({ c: { token: SYMBOLIC } })(redacted.slice(head.length - 100))).toBeUndefined();
		}
	});

	test.each(encodings)('%s: a key straddling the cut at MAX_STRING_CHARS shows no part of itself, in a text planned whole or one too long to plan', async (_name, encode) => {
		const key = encode(SYMBOLIC);
		// Past PLAN_WHOLE_CHARS the text is read up to its cut through every reading instead of planned whole.
		const tooLongToPlan = ' z'.repeat(PLAN_WHOLE_CHARS / 2);
		const cases = [1, Math.floor(key.length / 2), key.length - 1].map((inside) => ({ inside, tail: ' and more' }));
		for (const { inside, tail } of [...cases, { inside: Math.floor(key.length / 2), tail: tooLongToPlan }]) {
			const head = 'y'.repeat(MAX_STRING_CHARS - inside - 1) + ' ';
			const text = `${head}${key}${tail}`;
			const cleaned = (await cleanParsed(text, forms)) as string;
			expect(cleaned.endsWith(cutMarker(text.length - MAX_STRING_CHARS))).toBe(true);
			const kept = cleaned.slice(0, cleaned.length - cutMarker(text.length - MAX_STRING_CHARS).length);
			expect(kept === `${head}***`).toBe(true);
		}
	});

	test('exactly at the cap nothing is cut and a key at its very end is hidden; one past, the cut is said', async () => {
		const atCap = `${'z'.repeat(MAX_STRING_CHARS - SYMBOLIC.length - 1)} ${SYMBOLIC}`;
		expect(atCap).toHaveLength(MAX_STRING_CHARS);
		expect((await cleanParsed(atCap, forms)) === `${atCap.slice(0, -SYMBOLIC.length)}***`).toBe(true);
		const onePast = `${atCap} `;
		expect((await cleanParsed(onePast, forms)) === `${atCap.slice(0, -SYMBOLIC.length)}***${cutMarker(1)}`).toBe(true);
		const plainOnePast = 'w'.repeat(MAX_STRING_CHARS + 1);
		expect((await cleanParsed(plainOnePast, forms)) === `${'w'.repeat(MAX_STRING_CHARS)}${cutMarker(1)}`).toBe(true);
	});

	test('a text\'s first step reads FIRST_STEP_CHARS, each next one as much as all before it up to STEP_CHARS: every multiple of STEP_CHARS is an edge', () => {
		const edges: number[] = [];
		for (let from = 0; edges.length < 9; from = stepEnd(from)) edges.push(stepEnd(from));
		const Ki = 1024;
		expect(FIRST_STEP_CHARS).toBe(2 * Ki);
		expect(edges).toEqual([2, 4, 8, 16, 32, 64, 128, 192, 256].map((size) => size * Ki));
		// The steps of an escape-dense text read those characters: the same work per character in each (after the plan's three passes).
		const text = '%41\n'.repeat(64 * Ki);
		const reads = [...work.steps(text, text.length)].slice(3);
		const sizes = edges.slice(0, reads.length).map((edge, index) => edge - (index === 0 ? 0 : edges[index - 1]));
		expect(reads.length).toBe(Math.ceil((text.length - 128 * Ki) / STEP_CHARS) + 7);
		const perChar = reads[7] / STEP_CHARS;
		for (const [index, read] of reads.slice(0, 8).entries()) expect(Math.abs(read / sizes[index] / perChar - 1)).toBeLessThan(0.25);
	});

	test('escape-dense text: each step\'s work is bounded, and the work is linear in what is kept, whatever the length', () => {
		// What is kept is the caller's (MAX_STRING_CHARS for an answer's strings): four full steps past the first ones'
		// ramp show the same as the 2 Mi characters of an answer, in an eighth of the CPU.
		const keep = 4 * STEP_CHARS;
		for (const unit of ['%41\n', '%2541\n', '\\u0041', '&#65;', '41:']) {
			const perChar: number[] = [];
			for (const chars of [keep / 4, keep, 2 * keep]) {
				const text = unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
				const steps = work.steps(text, keep);
				let total = 0;
				let largest = 0;
				for (let next = steps.next(); next.done !== true; next = steps.next()) {
					largest = Math.max(largest, next.value);
					total += next.value;
				}
				expect(largest).toBeLessThanOrEqual(STEP_WORK);
				perChar.push(total / Math.min(chars, keep));
			}
			// Past the cut nothing more is read; below it, the work per character is the same.
			expect(Math.max(...perChar)).toBeLessThanOrEqual(STEP_WORK / STEP_CHARS);
		}
	});

	test.each([
		['one log of 4 MiB', () => ({ log: '%2541\n'.repeat(Math.ceil((4 * 1024 * 1024) / 6)), note: `Bearer ${SYMBOLIC}` })],
		['sixty-four strings of 64 KiB', () => ({ logs: Array.from({ length: 64 }, () => '%41\n'.repeat(16 * 1024)), note: `Bearer ${SYMBOLIC}` })],
	])('cleanParsed gives the event loop turns while a 4 MiB escape-dense answer is redacted: %s', async (_name, make) => {
		const answer = make() as { log?: string; logs?: string[]; note: string };
		let turns = 0;
		let running = true;
		const tick = (): void => {
			turns++;
			if (running) setImmediate(tick);
		};
		setImmediate(tick);
		const cleaned = (await cleanParsed(answer, forms)) as { note: string };
		running = false;
		expect(cleaned.note).toBe('Bearer ***');
		// Work per turn is bounded (WORK_PER_YIELD): about 2 to 4 Mi characters, searched over several views, take many turns.
		expect(turns).toBeGreaterThanOrEqual(8);
	});

	test('cleanParsed cuts a 4 MiB escape-dense log and says so', async () => {
		const answer = { log: '%2541\n'.repeat(Math.ceil((4 * 1024 * 1024) / 6)) };
		const sentLength = answer.log.length;
		const cleaned = (await cleanParsed(answer, forms)) as Record<string, string>;
		expect(cleaned.log.length).toBe(MAX_STRING_CHARS + cutMarker(sentLength - MAX_STRING_CHARS).length);
		expect(cleaned.log.endsWith(cutMarker(sentLength - MAX_STRING_CHARS))).toBe(true);
	});
});

describe('readings that compose (issue 47 §1)', () => {
	const KEYS = { bearer: 'tok-Abc123xyz-4f9a', header: 'hdr-Secret-77b1zz', relay: 'relay-key-4f9a2c', user: 'user-key-8d1e7b' };
	const lines = (keys: typeof KEYS) => [`Authorization: Bearer ${keys.bearer}`, `X-Api-Secret: ${keys.header}`, `apiKey: ${keys.relay}`, `user-api-key: ${keys.user}`, 'Accept: application/json'];
	const forms = secretForms(Object.values(KEYS));
	const search = secretSearch({ c: { token: KEYS.bearer, headerSecret: KEYS.header, apiKey: KEYS.relay, userApiKey: KEYS.user } });

	test.each([16, 20, 24, 28, 32])('a header dump folded at %i columns, one header per line (the next line starts with a letter): every key hidden', (columns) => {
		const fold = (line: string) => line.replace(new RegExp(`(.{${columns}})(?=.)`, 'g'), '$1\n');
		const folded = lines(KEYS).map(fold).join('\n');
		expect(search(folded)).toBeDefined();
		const redacted = redact(folded, forms);
		expect(search(redacted)).toBeUndefined();
		expect(redacted.endsWith(`\n${fold('Accept: application/json')}`)).toBe(true);
	});

	const encodings: Array<[string, (text: string) => string]> = [
		['URL-encoded', (text) => encodeURIComponent(text)],
		['every byte percent-encoded', (text) => transform(text, 'everyBytePercent')],
		['JSON \\u escapes', (text) => transform(text, 'jsonUnicode')],
		['HTML numeric', (text) => transform(text, 'htmlNumeric')],
	];
	test.each(encodings)('%s, wrapped at every position (also inside an escape): hidden', (_name, encode) => {
		const key = `${KEYS.bearer}+/`;
		const encoded = encode(`Authorization: Bearer ${key}`);
		const keyOnly = secretSearch({ c: { token: key } });
		for (let at = 1; at < encoded.length; at++) {
			for (const lineBreak of ['\n', '\r\n']) {
				const text = `${encoded.slice(0, at)}${lineBreak}${encoded.slice(at)}; next: x`;
				const redacted = redact(text, secretForms([key]));
				expect(keyOnly(redacted.replace(/\r?\n/g, ''))).toBeUndefined();
			}
		}
	});

	test.each([2, 4, 8, 30])('an xxd dump indented by %i spaces: hidden', (indent) => {
		const dump = transform(lines(KEYS).join('; '), 'xxd')
			.split('\n')
			.map((line) => `${' '.repeat(indent)}${line}`)
			.join('\n');
		expect(search(dump)).toBeDefined();
		expect(search(redact(dump, forms))).toBeUndefined();
	});

	test('a line break next to a key is a boundary; a letter or digit touching it in the text is not', () => {
		const key = 'deadbeef42';
		const only = secretForms([key]);
		expect(redact(`x: dead\nbeef42\nNext: 1`, only)).toBe('x: ***\nNext: 1');
		expect(redact(`x: dead\r\nbeef42\r\nNext: 1`, only)).toBe('x: ***\r\nNext: 1');
		expect(redact(`Next\ndead\nbeef42`, only)).toBe('Next\n***');
		expect(redact(`xdead\nbeef42 and dead\nbeef42x`, only)).toBe(`xdead\nbeef42 and dead\nbeef42x`);
		// A blank line is no wrap: the key is not read across it.
		expect(redact(`key dead\n\nbeef42 end`, only)).toBe(`key dead\n\nbeef42 end`);
	});
});

describe('a step bounded whatever the key (issue 47 §3)', () => {
	/** A JWT-like token of `chars` characters (base64url, a dot), seeded. */
	function jwtLike(chars: number): string {
		const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
		const random = seeded(chars);
		const body = Array.from({ length: chars - 4 }, () => alphabet[Math.floor(random() * 64)]).join('');
		return `eyJ${body.slice(0, chars / 2)}.${body.slice(chars / 2)}`;
	}
	const keys: Array<[string, string]> = [
		['21 characters', 'tok-Abc123xyz-4f9a-zz'],
		['a 4 KiB JWT-like token', jwtLike(4096)],
		['4 KiB of one letter', 'a'.repeat(4096)],
	];
	const texts: Array<[string, string]> = [
		['%41 and a line break', '%41\n'],
		['%2541 and a line break', '%2541\n'],
		['\\u0041', '\\u0041'],
		['&#65;', '&#65;'],
		['hex joined by colons', '41:'],
		['4095 letters and another (the one-letter key\'s worst)', `${'a'.repeat(4095)}b`],
	];

	// Four full steps past the first steps' ramp: a longer text only has more steps like them.
	test.each(keys)('%s: every step of a text of four full steps does the same bounded work, and the key at its end is hidden', (_name, key) => {
		const forms = secretForms([key]);
		const steps = redactionWork(forms);
		expect(steps.sliceChars).toBe(FIRST_STEP_CHARS);
		for (const [, unit] of texts) {
			const text = `${unit.repeat(Math.ceil((4 * STEP_CHARS) / unit.length))} ${key} end`;
			let total = 0;
			const run = steps.steps(text);
			let next = run.next();
			for (; next.done !== true; next = run.next()) {
				expect(next.value).toBeLessThanOrEqual(STEP_WORK);
				total += next.value;
			}
			expect(next.value.endsWith(' *** end')).toBe(true);
			expect(total).toBeLessThanOrEqual((STEP_WORK / STEP_CHARS) * text.length);
		}
	});
});
