/**
 * Figures a test measures, written by that test into a docs page between its markers (as `npm run bench` writes
 * BENCHMARKS.md), so prose never quotes a figure by hand. Only the text between the markers changes.
 */
import { existsSync, readFileSync, writeFileSync } from 'fs';

export function markers(name: string, writer: string): { start: string; end: string } {
	return { start: `<!-- measured:${name}:start (written by ${writer}; edit outside the markers) -->`, end: `<!-- measured:${name}:end -->` };
}

/** Replaces the block `name` in `file`; does nothing when the page has no such block (a page that dropped it). */
export function writeMeasuredBlock(file: string, name: string, writer: string, body: string): boolean {
	if (!existsSync(file)) return false;
	const text = readFileSync(file, 'utf8');
	const { start, end } = markers(name, writer);
	const from = text.indexOf(start);
	const to = text.indexOf(end);
	if (from === -1 || to < from) return false;
	writeFileSync(file, `${text.slice(0, from + start.length)}\n${body.trim()}\n${text.slice(to)}`);
	return true;
}
