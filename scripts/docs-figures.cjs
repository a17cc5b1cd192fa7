// `npm run docs:figures`: the one run that writes the figures the docs quote. It builds, runs the default tier with
// UPDATE_DOCS=1 (the tests that measure a figure write it between its markers: testkit/measuredBlock.ts), then writes
// how long that run took and how many tests it ran into the README. A plain `npm test` writes no tracked file. When
// the run fails, the pages are put back as they were: a figure from a failing run is never kept.
// The soak tier's figure (the trigger churn) is written by `UPDATE_DOCS=1 npm run test:soak`.
'use strict';
const { spawnSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { availableParallelism, loadavg, tmpdir } = require('node:os');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const PAGES = ['README.md', 'docs/guarantees.md', 'docs/where-tested.md'].map((page) => join(ROOT, page));
const WRITER = 'npm run docs:figures';

function run(command, args, env) {
	const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
	return result.status ?? 1;
}

function writeBlock(file, name, body) {
	const text = readFileSync(file, 'utf8');
	const start = `<!-- measured:${name}:start (written by ${WRITER}; edit outside the markers) -->`;
	const end = `<!-- measured:${name}:end -->`;
	const from = text.indexOf(start);
	const to = text.indexOf(end);
	if (from === -1 || to < from) throw new Error(`${file} has no block ${name} written by ${WRITER}`);
	writeFileSync(file, `${text.slice(0, from + start.length)}\n${body.trim()}\n${text.slice(to)}`);
}

function minutes(ms) {
	const seconds = Math.round(ms / 1000);
	return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

const before = new Map(PAGES.map((page) => [page, readFileSync(page, 'utf8')]));
const scratch = mkdtempSync(join(tmpdir(), 'docs-figures-'));
const results = join(scratch, 'jest.json');
const load = loadavg()[0];
const started = Date.now();
let status = run('npm', ['run', 'build', '--silent']);
if (status === 0) status = run(process.execPath, [require.resolve('jest/bin/jest'), '--json', `--outputFile=${results}`], { UPDATE_DOCS: '1' });
const elapsedMs = Date.now() - started;
if (status !== 0) {
	for (const [page, text] of before) writeFileSync(page, text);
	rmSync(scratch, { recursive: true, force: true });
	process.stderr.write('docs:figures: the run failed; the pages are left as they were\n');
	process.exit(status);
}
const report = readFileSync(results, 'utf8');
const { numTotalTests, numTotalTestSuites } = JSON.parse(report);
// DOCS_FIGURES_JSON=<file> keeps jest's report (per-file times) for whoever wants to look at them.
if (process.env.DOCS_FIGURES_JSON) writeFileSync(process.env.DOCS_FIGURES_JSON, report);
rmSync(scratch, { recursive: true, force: true });
const figure =
	`\`npm test\` (build, then ${numTotalTests.toLocaleString('en')} tests in ${numTotalTestSuites} files) took ${minutes(elapsedMs)} ` +
	`on a ${availableParallelism()}-core machine at load ${load.toFixed(1)} (written by \`npm run docs:figures\`).`;
writeBlock(join(ROOT, 'README.md'), 'test-time', figure);
process.stdout.write(`${figure}\n`);
