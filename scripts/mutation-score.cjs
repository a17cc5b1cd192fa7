// Reads StrykerJS's report (reports/mutation/mutation.json), takes out the mutants recorded as equivalent
// (test/mutation/equivalents.json, each with its reason), and judges each module against its threshold: the
// mechanisms at 90 %, the shipped code as a whole at 85 %. Prints the score per file and module and every survivor
// not triaged; exits 1 when a module that the report covers is below its threshold (with --strict, also when a
// survivor is not triaged).
// With UPDATE_DOCS=1 it writes the scores into docs/where-tested.md (block `mutation`).
'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..');
const REPORT = join(ROOT, 'reports/mutation/mutation.json');
const EQUIVALENTS = join(ROOT, 'test/mutation/equivalents.json');
const PAGE = join(ROOT, 'docs/where-tested.md');
const WRITER = 'npm run test:mutation';

/** The modules judged on their own (the mechanisms), by path prefix; the rest counts in the overall score only. */
const MODULES = [
	{ name: 'redaction', prefixes: ['nodes/shared/redaction'], threshold: 90 },
	{ name: 'deadline clock', prefixes: ['nodes/shared/transport/deadlineClock.ts'], threshold: 90 },
	{ name: 'list reader', prefixes: ['nodes/shared/transport/listReader.ts'], threshold: 90 },
	{ name: 'errors', prefixes: ['nodes/shared/transport/errors.ts'], threshold: 90 },
	{ name: 'transport (the rest)', prefixes: ['nodes/shared/transport/'], threshold: 90 },
	{ name: 'adaptive limit', prefixes: ['nodes/shared/adaptiveLimit'], threshold: 90 },
	{ name: 'data-file lock', prefixes: ['server/dataFileLock.ts'], threshold: 90 },
];
const OVERALL = 85;
const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

function moduleOf(file) {
	return MODULES.find((module) => module.prefixes.some((prefix) => file.startsWith(prefix)));
}

/** The source line a mutant starts on, trimmed: how an equivalent is recognised when lines move. */
function lineText(source, line) {
	return (source.split('\n')[line - 1] ?? '').trim();
}

/**
 * An entry names its mutant by file, mutator, replacement and line text; where lines of the same text hold mutants
 * that differ (two `} catch {`), `previous`, the trimmed line before it, tells which one.
 */
function isEquivalent(equivalents, file, mutant, source) {
	const text = lineText(source, mutant.location.start.line);
	const previous = lineText(source, mutant.location.start.line - 1);
	return equivalents.some((entry) => entry.file === file && entry.mutator === mutant.mutatorName &&
		entry.replacement === mutant.replacement && entry.line === text && (entry.previous === undefined || entry.previous === previous));
}

/** The run's --mutate list (MUTATION_FILES, comma-separated): each file, and whether a line range (`file.ts:10-40`) narrowed it. */
const RANGE = /:[\d:-]+$/;
const MUTATED = (process.env.MUTATION_FILES ?? '').split(',').map((name) => name.trim()).filter(Boolean)
	.map((name) => ({ file: name.replace(RANGE, ''), ranged: RANGE.test(name) }));
const NAMED = MUTATED.map((entry) => entry.file);
/** Files mutated in line ranges only: their equivalents outside the ranges cannot be met, and are not reviewed. */
const RANGED = new Set(MUTATED.filter((entry) => entry.ranged).map((entry) => entry.file));

/** Whether a file of the report is judged: every file, unless the run named some (a name with `*` matches any). */
function judged(file) {
	return NAMED.length === 0 || NAMED.some((name) => name.includes('*') || name === file);
}

function tally(report, equivalents) {
	const rows = new Map();
	const survivors = [];
	const used = new Set();
	for (const [path, file] of Object.entries(report.files)) {
		const name = relative(ROOT, join(ROOT, path)).split('\\').join('/');
		if (!judged(name)) continue;
		const row = { file: name, detected: 0, undetected: 0, equivalent: 0 };
		for (const mutant of file.mutants) {
			if (DETECTED.has(mutant.status)) row.detected++;
			else if (UNDETECTED.has(mutant.status)) {
				const match = equivalents.findIndex((entry) => isEquivalent([entry], name, mutant, file.source));
				if (match >= 0) { row.equivalent++; used.add(match); continue; }
				row.undetected++;
				survivors.push(`${name}:${mutant.location.start.line} ${mutant.mutatorName} → ${JSON.stringify(mutant.replacement ?? '')} (${mutant.status})`);
			}
		}
		rows.set(name, row);
	}
	// An entry of a file this run did not mutate (or mutated in ranges only) is neither met nor missed.
	return { rows, survivors, unused: equivalents.filter((entry, index) => !used.has(index) && rows.has(entry.file) && !RANGED.has(entry.file)) };
}

function score(detected, undetected) {
	const total = detected + undetected;
	return total === 0 ? undefined : (100 * detected) / total;
}

function judge(rows) {
	const lines = [];
	let failed = false;
	const sums = new Map(MODULES.map((module) => [module.name, { detected: 0, undetected: 0, files: 0 }]));
	let all = { detected: 0, undetected: 0 };
	for (const row of rows.values()) {
		const module = moduleOf(row.file);
		if (module) {
			const sum = sums.get(module.name);
			sum.detected += row.detected; sum.undetected += row.undetected; sum.files++;
		}
		all = { detected: all.detected + row.detected, undetected: all.undetected + row.undetected };
	}
	for (const module of MODULES) {
		const sum = sums.get(module.name);
		const value = score(sum.detected, sum.undetected);
		if (value === undefined) continue;
		const ok = value >= module.threshold;
		failed ||= !ok;
		lines.push(`| ${module.name} | ${sum.files} | ${sum.detected} / ${sum.detected + sum.undetected} | ${value.toFixed(1)} % | ${module.threshold} % | ${ok ? 'pass' : '**below**'} |`);
	}
	const overall = score(all.detected, all.undetected);
	if (overall !== undefined) {
		const ok = overall >= OVERALL;
		failed ||= !ok;
		lines.push(`| every mutated file | ${rows.size} | ${all.detected} / ${all.detected + all.undetected} | ${overall.toFixed(1)} % | ${OVERALL} % | ${ok ? 'pass' : '**below**'} |`);
	}
	return { lines, failed };
}

/** The table rows of a block under `header`, by their first cell. */
function rowsByKey(block, header) {
	const lines = block.split('\n');
	const at = lines.indexOf(header);
	const rows = [];
	for (const line of at === -1 ? [] : lines.slice(at + 2)) {
		if (!line.startsWith('| ')) break;
		rows.push(line);
	}
	return new Map(rows.map((line) => [line.split(' | ')[0].slice(2), line]));
}

/** Rows of this run replace the rows of the same key; the others stay, each with the run that wrote it. */
function merged(previous, fresh) {
	const rows = new Map(previous);
	for (const line of fresh) rows.set(line.split(' | ')[0].slice(2), line);
	const order = (key) => (MODULES.findIndex((module) => module.name === key) + 1 || MODULES.length + 1);
	return [...rows].sort(([a], [b]) => order(a) - order(b) || a.localeCompare(b)).map(([, line]) => line);
}

/** A row summing file rows, each scored by the last run that mutated it: the runs are named. */
function summed(name, cells, threshold) {
	const detected = cells.reduce((sum, cell) => sum + Number(cell[2]), 0);
	const undetected = cells.reduce((sum, cell) => sum + Number(cell[3]), 0);
	const runs = [...new Set(cells.map((cell) => cell[1]))].sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)));
	const value = score(detected, undetected) ?? 0;
	const label = runs.length === 1 ? runs[0] : `runs ${runs.map((run) => run.slice(4)).join(', ')}`;
	return `| ${name} | ${label} | ${cells.length} | ${detected} / ${detected + undetected} | ${value.toFixed(1)} % | ${threshold} % | ${value >= threshold ? 'pass' : '**below**'} |`;
}

/** Each module's row (the files of it in the table) and the row of every file: sums of the last run of each file. */
function moduleRows(files) {
	const cells = files.map((line) => line.split(' | ').map((cell, at) => (at === 0 ? cell.slice(2) : cell)));
	const rows = [];
	for (const module of MODULES) {
		const own = cells.filter((cell) => moduleOf(cell[0]) === module);
		if (own.length > 0) rows.push(summed(module.name, own, module.threshold));
	}
	return [...rows, summed('every mutated file', cells, OVERALL)];
}

const MODULE_HEADER = '| module | last run | files | detected | score | threshold | verdict |';
const FILE_HEADER = '| file | last run | detected | undetected | equivalent |';

/**
 * Writes the scores into where-tested.md. Each file keeps the row of the last run that mutated it, with that run named,
 * so that runs of one module at a time build the whole table; each module's row and `every mutated file` sum file rows.
 */
function writeDocs(fileLines, scope) {
	const text = readFileSync(PAGE, 'utf8');
	const start = `<!-- measured:mutation:start (written by ${WRITER}; edit outside the markers) -->`;
	const end = '<!-- measured:mutation:end -->';
	const from = text.indexOf(start);
	const to = text.indexOf(end);
	if (from === -1 || to < from) throw new Error(`${PAGE} has no block mutation written by ${WRITER}`);
	const block = text.slice(from + start.length, to);
	// The commit whose code the run mutated (MUTATION_COMMIT, when it is scored later), else the current one.
	const commit = process.env.MUTATION_COMMIT ?? execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
	const runs = new Map([...block.matchAll(/^- \*\*(run \d+)\*\*: (.*)$/gm)].map((match) => [match[1], match[2]]));
	const run = `run ${Math.max(0, ...[...runs.keys()].map((key) => Number(key.slice(4)))) + 1}`;
	runs.set(run, `${new Date().toISOString().slice(0, 10)}, on ${commit}; ${scope}.`);
	const tag = (line) => line.replace(/^\| ([^|]+) \| /, `| $1 | ${run} | `);
	const files = merged(rowsByKey(block, FILE_HEADER), fileLines.map(tag));
	const modules = moduleRows(files);
	const cited = new Set([...modules, ...files].map((line) => line.split(' | ')[1]));
	const body = [
		'A score is detected / (detected + undetected), after the mutants recorded as equivalent. Each row is the last run',
		'that mutated it; a run narrowed to some tests gives a lower bound of the whole suite\'s score.',
		'',
		...[...runs].filter(([key]) => cited.has(key)).map(([key, what]) => `- **${key}**: ${what}`),
		'',
		MODULE_HEADER,
		'|---|---|---|---|---|---|---|',
		...modules,
		'',
		'<details><summary>Per file</summary>',
		'',
		FILE_HEADER,
		'|---|---|---|---|---|',
		...files,
		'',
		'</details>',
	].join('\n');
	writeFileSync(PAGE, `${text.slice(0, from + start.length)}\n${body}\n${text.slice(to)}`);
}

function main() {
	if (!existsSync(REPORT)) {
		console.error(`No report at ${relative(ROOT, REPORT)}: run \`npm run test:mutation\` first.`);
		process.exit(2);
	}
	const report = JSON.parse(readFileSync(REPORT, 'utf8'));
	const equivalents = existsSync(EQUIVALENTS) ? JSON.parse(readFileSync(EQUIVALENTS, 'utf8')) : [];
	const { rows, survivors, unused } = tally(report, equivalents);
	const fileLines = [...rows.values()].sort((a, b) => a.file.localeCompare(b.file))
		.map((row) => `| ${row.file} | ${row.detected} | ${row.undetected} | ${row.equivalent} |`);
	const { lines, failed } = judge(rows);
	console.log(['| module | files | detected | score | threshold | verdict |', '|---|---|---|---|---|---|', ...lines].join('\n'));
	if (survivors.length > 0) console.log(`\nSurvivors not triaged (${survivors.length}): kill each with a test at its rule's edge, or record it in test/mutation/equivalents.json with the reason.\n${survivors.join('\n')}`);
	for (const entry of unused) console.log(`Equivalent no longer met (the code changed: review it): ${entry.file} ${entry.mutator} ${JSON.stringify(entry.line)}`);
	if (process.env.UPDATE_DOCS === '1') writeDocs(fileLines, process.env.MUTATION_SCOPE ?? `${rows.size} files`);
	if (failed || (process.argv.includes('--strict') && survivors.length > 0)) process.exit(1);
}

main();
