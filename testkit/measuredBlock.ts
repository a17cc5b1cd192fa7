/**
 * Figures a test measures, written by that test into a docs page between its markers (as `npm run bench` writes
 * BENCHMARKS.md), so prose never quotes a figure by hand. Only the text between the markers changes, and only on
 * a run made on purpose to write them (`npm run docs:figures`, which sets UPDATE_DOCS=1): no plain test run
 * writes a tracked file.
 */
import { existsSync, readFileSync, writeFileSync } from 'fs';

export function markers(name: string, writer: string): { start: string; end: string } {
	return { start: `<!-- measured:${name}:start (written by ${writer}; edit outside the markers) -->`, end: `<!-- measured:${name}:end -->` };
}

/** True on a run asked to write the docs' figures (UPDATE_DOCS=1). */
export function updatingDocs(): boolean {
	return process.env.UPDATE_DOCS === '1';
}

/**
 * Replaces the block `name` in `file` on a run that writes the docs (UPDATE_DOCS=1); otherwise, or when the page
 * has no such block (a page that dropped it), does nothing and returns false.
 */
export function writeMeasuredBlock(file: string, name: string, writer: string, body: string): boolean {
	if (!updatingDocs() || !existsSync(file)) return false;
	const text = readFileSync(file, 'utf8');
	const { start, end } = markers(name, writer);
	const from = text.indexOf(start);
	const to = text.indexOf(end);
	if (from === -1 || to < from) return false;
	writeFileSync(file, `${text.slice(0, from + start.length)}\n${body.trim()}\n${text.slice(to)}`);
	return true;
}
