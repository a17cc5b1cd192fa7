/**
 * The redaction model, generated (issue 47 §4): cases drawn from the model's text (testkit/redactionModel.ts) — a
 * key from the stated alphabet and lengths, a form, up to two readings undone (an escape kind, a wrap anywhere, inside
 * an escape too), neighbours, a place in a long answer (across a step's edge, across the cut) — and the redactor must
 * leave nothing of the key (testkit/secrets.ts reads the output back, written apart) while ordinary data (ids,
 * times, logs without keys) comes back untouched. Seeded and shrinking; a fixed budget here (MODEL_RUNS), longer in
 * test/soak/redactionModel.soak.test.ts.
 */
import fc from 'fast-check';

import { redact, secretForms } from '../../nodes/shared/redaction';
import { formOf, keyArbitrary, MODEL_SEED, modelCaseArbitrary, modelFailure, ordinaryArbitrary, unread } from '../../testkit/redactionModel';
import type { ModelCase } from '../../testkit/redactionModel';
import { secretSearch } from '../../testkit/secrets';

const MODEL_RUNS = Number(process.env.MODEL_RUNS ?? 400);

function parameters(runs: number): fc.Parameters<[ModelCase, number]> {
	return { seed: MODEL_SEED, numRuns: runs, endOnFailure: false };
}

describe('the redaction model, generated', () => {
	test(`${MODEL_RUNS} cases (seed ${MODEL_SEED}): nothing of the key shows, whatever its form, readings, neighbours and place`, () => {
		fc.assert(
			fc.property(modelCaseArbitrary(), fc.integer({ min: 0, max: 1 }), (item, kind) => {
				const failure = modelFailure(item, kind);
				if (failure !== undefined) throw new Error(failure);
			}),
			parameters(MODEL_RUNS),
		);
	});

	test(`${MODEL_RUNS} cases (seed ${MODEL_SEED}): ordinary data (ids, times, statuses, logs without keys) comes back untouched`, () => {
		fc.assert(
			fc.property(keyArbitrary(), keyArbitrary(), fc.array(ordinaryArbitrary(), { minLength: 1, maxLength: 20 }), (key, other, values) => {
				const search = secretSearch({ c: { token: key, apiKey: other } });
				const text = values.join('\n');
				fc.pre(search(text) === undefined);
				if (redact(text, secretForms([key, other])) !== text) throw new Error(`changed: ${JSON.stringify(text.slice(0, 300))}`);
			}),
			{ seed: MODEL_SEED, numRuns: MODEL_RUNS },
		);
	});

	test('the generator draws what the model names: a wrap inside an escape, an indented dump, every place', () => {
		const seen = new Set<string>();
		fc.assert(
			fc.property(modelCaseArbitrary(), (item) => {
				seen.add(item.form.kind);
				seen.add(item.place.kind);
				if (item.unreadings.some((unreading) => unreading.escape && unreading.wrap)) seen.add('escape then wrap');
				if (item.unreadings.length === 2) seen.add('two readings');
				if (item.form.kind === 'hex' && item.form.indent >= 2) seen.add('indented dump');
			}),
			{ seed: MODEL_SEED, numRuns: MODEL_RUNS },
		);
		for (const kind of ['key', 'headerLine', 'urlEncoded', 'formEncoded', 'base64', 'hex', 'short', 'step', 'cut', 'escape then wrap', 'two readings', 'indented dump']) expect(seen).toContain(kind);
		// A wrap inside an escape is drawn: `%2` then a line break then `B`.
		expect(unread('+', { escape: { kind: 'percent', chosen: [true], upper: true, zeros: 0 }, wrap: { at: [0.5], lineBreak: '\n' } })).toBe('%2\nB');
		expect(formOf('k', { kind: 'hex', style: 'xxd', upper: false, indent: 2 })).toMatch(/^ {2}00000000: 6b3b 20/);
	});
});
