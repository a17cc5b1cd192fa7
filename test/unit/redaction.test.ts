// Redaction of successful answers: the fast search before the pattern never changes what the pattern alone would redact.
import { redact, redactor, secretForms } from '../../nodes/shared/redaction';

/** The pattern redactor() compiles, applied with no shortcut: what every shortcut must agree with. */
function reference(text: string, forms: readonly string[]): string {
	const pattern = new RegExp(forms.map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
	return text.replace(pattern, '***');
}

/** Small deterministic generator, so a failure can be replayed. */
function seeded(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state * 1103515245 + 12345) % 2147483648;
		return state / 2147483648;
	};
}

// Characters whose upper case is longer (ß, ﬁ, ŉ) or falls into ASCII (ſ, ı), and the Kelvin sign: next to a form
// they must neither hide it nor invent one.
const FILLERS = ['a', 'Z', ' ', '\n', 'ß', 'ﬁ', 'ŉ', 'ſ', 'ı', '\u212a', 'é', '😀', '"', '%'];

/** What the pattern does not take for a letter of the form (flag i without u), though their upper case is ASCII. */
const LOOKALIKES: Record<string, string> = { k: '\u212a', s: 'ſ', i: 'ı', K: '\u212a', S: 'ſ', I: 'ı' };

/** Forms in any case among odd characters; with `nearMisses`, only forms with a letter swapped for a lookalike. */
function longText(random: () => number, forms: readonly string[], chars: number, nearMisses: boolean): string {
	let text = '';
	while (text.length < chars) {
		if (random() < 0.02) {
			const form = [...forms[Math.floor(random() * forms.length)]].map((c) => (random() < 0.5 ? c.toUpperCase() : c.toLowerCase()));
			const swap = form.findIndex((c) => LOOKALIKES[c] !== undefined);
			if (nearMisses && swap !== -1) form[swap] = LOOKALIKES[form[swap]];
			if (!nearMisses || swap !== -1) text += form.join('');
		} else text += FILLERS[Math.floor(random() * FILLERS.length)];
	}
	return text;
}

describe('redactor: the search before the pattern changes nothing', () => {
	test.each([
		['ASCII secrets (the search runs)', ['tok-Abc123xyz', 'relay-key-55'], { user: 'alice', password: 'pa ss&<w>' }],
		['a non-ASCII secret (the pattern alone)', ['straße-schlüssel', 'ſecret-ﬁle'], undefined],
	] as const)('%s: long texts with forms in any case among odd characters', (_name, secrets, basic) => {
		const forms = secretForms(secrets, basic);
		const clean = redactor(forms);
		const random = seeded(7);
		let redacted = 0;
		for (let round = 0; round < 80; round++) {
			const text = longText(random, forms, 1024 + Math.floor(random() * 4000), round % 2 === 1);
			const expected = reference(text, forms);
			expect(clean(text)).toBe(expected);
			if (expected !== text) redacted++;
		}
		// The rounds with forms are redacted (near misses may still hold a shorter form, a base64 core).
		expect(redacted).toBeGreaterThanOrEqual(40);
	});

	test('a long text holding no form comes back as it is; one holding a form in another case is redacted', () => {
		const forms = secretForms(['tok-Abc123xyz']);
		const plain = 'x'.repeat(5000);
		expect(redact(plain, forms)).toBe(plain);
		expect(redact(`${plain}TOK-ABC123XYZ${plain}`, forms)).toBe(`${plain}***${plain}`);
		// Lookalikes whose upper case is ASCII (ſ, ı) pass the search but not the pattern; the Kelvin sign passes neither.
		for (const near of ['tok-Abc123xyz'.replace('k', '\u212a'), 'TOK-ABC123XYZ'.replace('K', '\u212a')]) {
			const text = `${plain}${near}${plain}`;
			expect(redact(text, forms)).toBe(text);
		}
		expect(redact(`${plain}toſ-x`, secretForms(['tos-x-secret1']))).toBe(`${plain}toſ-x`);
		const encoded = `${plain}${Buffer.from('tok-Abc123xyz').toString('base64')}`;
		expect(redact(encoded, forms)).toBe(reference(encoded, forms));
		expect(redact(encoded, forms)).not.toContain(Buffer.from('tok-Abc123xyz').toString('base64').slice(0, 12));
	});
});
