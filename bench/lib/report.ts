/** The table, on the console and in BENCHMARKS.md between two markers (the rest of the file is hand-written). */
import { existsSync, readFileSync, writeFileSync } from 'fs';

import type { Figure } from './figure';

export const START_MARKER = '<!-- bench:results:start (written by npm run bench; edit outside the markers) -->';
export const END_MARKER = '<!-- bench:results:end -->';
/** The comparison with what users would build instead from n8n's own nodes, at the top of the file. */
export const ALTERNATIVES_START_MARKER = '<!-- bench:alternatives:start (written by npm run bench; edit outside the markers) -->';
export const ALTERNATIVES_END_MARKER = '<!-- bench:alternatives:end -->';

export interface ResultsBlock {
	start: string;
	end: string;
	results: string;
}

const RESULT_TEXT: Record<Figure['verdict'], string> = { pass: 'pass', miss: '**miss**', info: '–' };

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function markdownResults(figures: Figure[], header: string[]): string {
	const lines = [...header.map((line) => `${line}  `), ''];
	lines.push('| # | Figure | Measured | Goal | Result |', '|---|---|---|---|---|');
	for (const f of figures) lines.push(`| ${f.id} | ${cell(f.name)} | ${cell(f.measured)} | ${cell(f.goal)} | ${RESULT_TEXT[f.verdict]} |`);
	const details = figures.filter((f) => f.details?.length);
	if (details.length > 0) {
		lines.push('', 'Details:', '');
		for (const f of details) for (const detail of f.details ?? []) lines.push(`- ${f.id}: ${detail}`);
	}
	return lines.join('\n');
}

export function consoleTable(figures: Figure[]): string {
	const rows = [['#', 'Figure', 'Measured', 'Goal', 'Result'], ...figures.map((f) => [f.id, f.name, f.measured, f.goal, f.verdict === 'info' ? '-' : f.verdict.toUpperCase()])];
	const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
	const line = (row: string[]) => row.map((text, column) => text.padEnd(widths[column])).join('  ');
	const out = [line(rows[0]), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.slice(1).map(line)];
	for (const f of figures) for (const detail of f.details ?? []) out.push(`  ${f.id}: ${detail}`);
	return out.join('\n');
}

const NEW_FILE = (results: string) => `# Benchmarks

${START_MARKER}
${results}
${END_MARKER}

## Method and misses (hand-written)

(Explain here how the figures are measured and why a goal is missed; \`npm run bench\` keeps this part.)
`;

function replaceBetween(path: string, text: string, block: ResultsBlock): string {
	const start = text.indexOf(block.start);
	const end = text.indexOf(block.end);
	if (start === -1 || end === -1 || end < start) {
		throw new Error(`${path} has no ${block.start} … ${block.end} block: add the two markers where the results go`);
	}
	return `${text.slice(0, start + block.start.length)}\n${block.results}\n${text.slice(end)}`;
}

/** Replaces what is between each block's markers (the main results unless undefined); a new file has the main block. */
export function writeBenchmarksFile(path: string, results: string | undefined, extraBlocks: ResultsBlock[] = []): void {
	if (!existsSync(path)) writeFileSync(path, NEW_FILE(''));
	let text = readFileSync(path, 'utf8');
	const blocks = [...(results === undefined ? [] : [{ start: START_MARKER, end: END_MARKER, results }]), ...extraBlocks];
	for (const block of blocks) text = replaceBetween(path, text, block);
	writeFileSync(path, text);
}

const rowLetter = (line: string) => /^\| ([A-Z])\d/.exec(line)?.[1];
const detailLetter = (line: string) => /^- ([A-Z])\d/.exec(line)?.[1];
const KEPT_NOTE = /^Rows ([A-Z](?:, [A-Z])*): kept from the run (.*?) {0,2}$/;

/**
 * The comparison block after a run of some of its figures (`npm run bench -- A`): the rows and details of the
 * letters that ran are the new ones, the others are kept, and the header says which run they come from.
 */
export function mergeResults(previous: string, fresh: Figure[], header: string[], ran: string[]): string {
	const lines = previous.split('\n');
	const kept = (letterOf: (line: string) => string | undefined) => lines.filter((line) => ((letter) => letter !== undefined && !ran.includes(letter))(letterOf(line)));
	const keptRows = kept(rowLetter);
	const keptLetters = [...new Set(keptRows.map((line) => rowLetter(line) as string))];
	if (keptLetters.length === 0) return markdownResults(fresh, header);
	const oldNote = lines.map((line) => KEPT_NOTE.exec(line)).find((match) => match && keptLetters.every((letter) => match[1].includes(letter)));
	const source = oldNote?.[2] ?? `of ${(lines.find((line) => line.startsWith('Measured ')) ?? '').replace(/^Measured /, '').replace(/ {0,2}$/, '')}`;
	const note = `Rows ${keptLetters.join(', ')}: kept from the run ${source}`;
	const freshText = markdownResults(fresh, [...header, note]).split('\n');
	const letterOf = (line: string) => rowLetter(line) ?? detailLetter(line) ?? '';
	const byLetter = (a: string, b: string) => (letterOf(a) < letterOf(b) ? -1 : letterOf(a) > letterOf(b) ? 1 : 0);
	const headerLines = freshText.slice(0, freshText.findIndex((line) => line.startsWith('|')));
	const table = [...freshText.filter((line) => rowLetter(line) !== undefined), ...keptRows].sort(byLetter);
	const details = [...freshText.filter((line) => detailLetter(line) !== undefined), ...kept(detailLetter)].sort(byLetter);
	return [...headerLines, '| # | Figure | Measured | Goal | Result |', '|---|---|---|---|---|', ...table, '', 'Details:', '', ...details].join('\n');
}

/** The text between a block's markers in the file, or '' when there is none yet. */
export function readBlock(path: string, block: { start: string; end: string }): string {
	if (!existsSync(path)) return '';
	const text = readFileSync(path, 'utf8');
	const start = text.indexOf(block.start);
	const end = text.indexOf(block.end);
	return start === -1 || end < start ? '' : text.slice(start + block.start.length, end).trim();
}
