/**
 * The redaction model, generated (issue 47 §4): cases drawn from the model's text (testkit/redactionModel.ts) — a
 * key from the stated alphabet and lengths, a form, up to two readings undone (an escape kind, a wrap anywhere, inside
 * an escape too), neighbours, a place in a long answer (across a step's edge, across the cut) — and the redactor must
 * leave nothing of the key (testkit/secrets.ts reads the output back, written apart) while ordinary data (ids,
 * times, logs without keys) comes back untouched. Seeded and shrinking; a fixed budget here (MODEL_RUNS), longer in
 * test/soak/redactionModel.soak.test.ts.
 */
import { readFileSync } from 'fs';
import { join } from 'path';

import fc from 'fast-check';

import { redact, secretForms } from '../../nodes/shared/redaction';
import { markers, writeMeasuredBlock } from '../../testkit/measuredBlock';
import { escapeArbitrary, escapeLayer, formOf, keyArbitrary, MODEL_SEED, modelCaseArbitrary, modelFailure, ordinaryArbitrary, unread } from '../../testkit/redactionModel';
import type { ModelCase } from '../../testkit/redactionModel';
import { secretSearch } from '../../testkit/secrets';

const DEFAULT_RUNS = 400;
const MODEL_RUNS = Number(process.env.MODEL_RUNS ?? DEFAULT_RUNS);
const PAGE = join(__dirname, '../../docs/guarantees.md');
const WRITER = 'test/unit/redactionModel.property.test.ts';

/** The form of a case, as the table names it. */
function formLabel(item: ModelCase): string {
	const form = item.form;
	if (form.kind === 'base64') return `base64 of the ${form.of === 'key' ? 'key' : form.of === 'urlEncoded' ? 'URL-encoded key' : 'form-encoded key'}`;
	if (form.kind === 'hex') return form.style === 'plain' ? 'hex' : form.style === 'xxd' || form.style === 'hexdumpC' ? `hex dump (${form.style === 'xxd' ? 'xxd' : 'hexdump -C'})` : 'hex joined by a separator';
	return { key: 'the key', headerLine: 'its header line', urlEncoded: 'URL-encoded', formEncoded: 'form-encoded' }[form.kind];
}

const COMPOSITIONS = ['as is', 'escaped', 'wrapped', 'escaped, then wrapped', 'two readings'];

/** The readings undone in a case, as the table names them. */
function compositionLabel(item: ModelCase): string {
	const done = item.unreadings.filter((unreading) => unreading.escape !== undefined || unreading.wrap !== undefined);
	if (done.length === 2) return 'two readings';
	if (done.length === 0) return 'as is';
	return done[0].escape && done[0].wrap ? 'escaped, then wrapped' : done[0].escape ? 'escaped' : 'wrapped';
}

/** The table of cases drawn and keys shown, per form and per composition (written into docs/guarantees.md). */
function modelTable(counts: Map<string, Map<string, { cases: number; shown: number }>>): string {
	const rows = [...counts.keys()].sort();
	const lines = [
		`Keys shown after redaction, of ${MODEL_RUNS} cases drawn from the model (seed ${MODEL_SEED}; keys of 8 to 40 characters from its alphabet), per form and per readings undone (an escape layer of any kind, lone line breaks anywhere, inside escapes too):`,
		'',
		`| Form | ${COMPOSITIONS.join(' | ')} |`,
		`|---|${COMPOSITIONS.map(() => '---').join('|')}|`,
	];
	for (const row of rows) lines.push(`| ${row} | ${COMPOSITIONS.map((column) => { const cell = counts.get(row)?.get(column); return cell ? `${cell.shown} of ${cell.cases}` : '—'; }).join(' | ')} |`);
	return lines.join('\n');
}

function parameters(runs: number): fc.Parameters<[ModelCase, number]> {
	return { seed: MODEL_SEED, numRuns: runs, endOnFailure: false };
}

describe('the redaction model, generated', () => {
	test(`${MODEL_RUNS} cases (seed ${MODEL_SEED}): nothing of the key shows, whatever its form, readings, neighbours and place`, () => {
		const counts = new Map<string, Map<string, { cases: number; shown: number }>>();
		fc.assert(
			fc.property(modelCaseArbitrary(), fc.integer({ min: 0, max: 1 }), (item, kind) => {
				const failure = modelFailure(item, kind);
				const row = counts.get(formLabel(item)) ?? new Map<string, { cases: number; shown: number }>();
				const cell = row.get(compositionLabel(item)) ?? { cases: 0, shown: 0 };
				row.set(compositionLabel(item), { cases: cell.cases + 1, shown: cell.shown + (failure === undefined ? 0 : 1) });
				counts.set(formLabel(item), row);
				if (failure !== undefined) throw new Error(failure);
			}),
			parameters(MODEL_RUNS),
		);
		if (MODEL_RUNS !== DEFAULT_RUNS) return;
		const table = modelTable(counts);
		writeMeasuredBlock(PAGE, 'redaction-model', WRITER, table);
		const { start, end } = markers('redaction-model', WRITER);
		const page = readFileSync(PAGE, 'utf8');
		expect(page.slice(page.indexOf(start) + start.length, page.indexOf(end)).trim()).toBe(table);
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

	test(`${MODEL_RUNS} cases (seed ${MODEL_SEED}): a key inside a longer run of letters and digits is no token, and is left alone`, () => {
		const edge = fc.constantFrom(...'abcXYZ0129');
		fc.assert(
			fc.property(edge, keyArbitrary(), edge, edge, edge, (first, middle, last, before, after) => {
				const key = `${first}${middle}${last}`;
				const text = `id ${before}${key}${after} done`;
				if (redact(text, secretForms([key])) !== text) throw new Error(`changed: ${JSON.stringify(text)}`);
			}),
			{ seed: MODEL_SEED, numRuns: MODEL_RUNS },
		);
	});

	test(`${MODEL_RUNS} cases (seed ${MODEL_SEED}): a key written with one escape layer of each kind, alone or exactly, is hidden`, () => {
		fc.assert(
			fc.property(keyArbitrary(), escapeArbitrary(), fc.boolean(), (key, layer, escaped) => {
				const text = escaped ? escapeLayer(key, layer) : key;
				const output = redact(text, secretForms([key]));
				if (secretSearch({ c: { token: key } })(output) !== undefined) throw new Error(`shown: ${JSON.stringify(output)}`);
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
