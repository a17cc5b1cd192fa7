/**
 * How well redaction hides echoed keys and how much it wrongly changes, counted (testkit/redactionCoverage.ts) and
 * written into docs/guarantees.md: `UPDATE_DOCS=1 npx jest test/unit/redactionCoverage.test.ts` rewrites the block;
 * otherwise the page must hold what this run measured. Seeded, so the figures are the same on every machine.
 */
import { readFileSync } from 'fs';
import { join } from 'path';

import * as redaction from '../../nodes/shared/redaction';
import { ECHO_FORMS } from '../../testkit/hostileServer';
import { markers, writeMeasuredBlock } from '../../testkit/measuredBlock';
import { KINDS, measureFalsePositives, measureLeaks, realisticJobs } from '../../testkit/redactionCoverage';

const PAGE = join(__dirname, '../../docs/guarantees.md');
const WRITER = 'test/unit/redactionCoverage.test.ts';
const KEYS = 40;

function table(): { text: string; leaks: number; changed: number } {
	const leaks = measureLeaks(redaction, KEYS);
	const jobs = realisticJobs(100);
	const falsePositives = measureFalsePositives(redaction, jobs, KEYS);
	let leaked = 0;
	let changed = 0;
	const lines = [
		`Keys shown after redaction, of ${KEYS} random credentials per kind (keys of 8 to 24 characters drawn from letters, digits and \`& < > " ' + / % - _ . ~ ?\`), when a service echoes every request header in each form:`,
		'',
		`| Echo form | ${KINDS.join(' | ')} |`,
		`|---|${KINDS.map(() => '---').join('|')}|`,
	];
	for (const form of ECHO_FORMS) {
		const cells = KINDS.map((kind) => (kind === 'None' ? '—' : String(leaks.get(form)?.get(kind) ?? 0)));
		leaked += KINDS.reduce((sum, kind) => sum + (leaks.get(form)?.get(kind) ?? 0), 0);
		lines.push(`| ${form} | ${cells.join(' | ')} |`);
	}
	lines.push('', `Values of a list of ${jobs.length} jobs (UUID ids, ISO times of 2026, statuses, flow paths, logs) changed by redaction, over ${KEYS} credentials per kind:`, '');
	lines.push(`| Keys | ${KINDS.join(' | ')} |`, `|---|${KINDS.map(() => '---').join('|')}|`);
	for (const which of ['short', 'ordinary'] as const) {
		const label = which === 'short' ? 'cut from the list itself (3 to 7 characters)' : 'ordinary (8 to 24 characters)';
		const cells = KINDS.map((kind) => {
			const figures = falsePositives.get(kind) ?? { short: 0, ordinary: 0, values: 0 };
			changed += figures[which];
			return kind === 'None' ? '—' : `${figures[which]} of ${figures.values.toLocaleString('en-US')}`;
		});
		lines.push(`| ${label} | ${cells.join(' | ')} |`);
	}
	return { text: lines.join('\n'), leaks: leaked, changed };
}

test('no key shows in any echo form for any credential kind, and no value of a realistic job list changes; docs/guarantees.md says so', () => {
	const measured = table();
	expect(measured.leaks).toBe(0);
	expect(measured.changed).toBe(0);
	if (process.env.UPDATE_DOCS === '1') writeMeasuredBlock(PAGE, 'redaction', WRITER, measured.text);
	const { start, end } = markers('redaction', WRITER);
	const page = readFileSync(PAGE, 'utf8');
	expect(page.slice(page.indexOf(start) + start.length, page.indexOf(end)).trim()).toBe(measured.text);
});
