// `npm run test:mutation [-- --mutate <file or glob> …]`: StrykerJS over the shipped code (stryker.config.mjs), or over
// the files named, then scripts/mutation-score.cjs judges the report per module. Stryker's incremental record
// (incrementalFile in stryker.config.mjs) makes a rerun test again only the mutants whose code or tests changed.
// `--changed-since <rev>` mutates only the shipped files changed since that commit (nothing to do: exit 0);
// `--changed-lines-since <rev>` only the lines changed since it, each file against its own tests
// (test/mutation/ownTests.json), with a record of its own: CI's step. `--strict` fails on any survivor not triaged.
'use strict';
const { execFileSync, spawnSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { linesAdded, testsOf } = require('./changedLines.cjs');

const ROOT = join(__dirname, '..');
const SHIPPED = /^(nodes|credentials|server)\/.*(?<!\.d)\.ts$/;
/** Changed lines past which CI's step would outlast its share of the 90 minutes: run it by hand, then move the base. */
const MAX_CHANGED_LINES = 200;

function gitDiff(rev, options) {
	return execFileSync('git', ['diff', ...options, '--no-renames', '--diff-filter=AM', rev, '--', 'nodes', 'credentials', 'server'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
}

function changedSince(rev) {
	return gitDiff(rev, ['--name-only']).split('\n').filter((file) => SHIPPED.test(file));
}

function changedLineRanges(rev) {
	return linesAdded(gitDiff(rev, ['-U0', '--no-color']), (file) => SHIPPED.test(file));
}

function ownTests(files) {
	return testsOf(files, JSON.parse(readFileSync(join(ROOT, 'test/mutation/ownTests.json'), 'utf8'))).join(',');
}

function changedLinesRun(rev, rest) {
	const ranges = changedLineRanges(rev);
	const lines = ranges.reduce((sum, range) => sum + range.to - range.from + 1, 0);
	const scope = `${lines} lines of ${new Set(ranges.map((range) => range.file)).size} files changed since ${rev}`;
	if (lines > MAX_CHANGED_LINES) {
		console.error(`Mutation testing: ${scope}, more than ${MAX_CHANGED_LINES}: run \`npm run test:mutation -- --changed-lines-since ${rev}\` by hand, triage its survivors, then move test/mutation/ci-base.`);
		process.exit(1);
	}
	process.env.MUTATION_TESTS ||= ownTests(ranges.map((range) => range.file));
	// A record of its own, outside the tree: this run never rewrites a tracked file.
	const record = join(tmpdir(), 'job-execution-mutation', `changed-lines-${process.pid}.json`);
	const mutate = ranges.map((range) => `${range.file}:${range.from}-${range.to}`).join(',');
	return { args: ranges.length === 0 ? undefined : [...rest, '--mutate', mutate, '--incrementalFile', record], scope };
}

function strykerArgs(argv) {
	const lines = argv.indexOf('--changed-lines-since');
	if (lines !== -1) return changedLinesRun(argv[lines + 1], [...argv.slice(0, lines), ...argv.slice(lines + 2)]);
	const at = argv.indexOf('--changed-since');
	if (at === -1) return { args: argv, scope: argv.includes('--mutate') ? `the files named (${argv[argv.indexOf('--mutate') + 1]})` : 'the whole shipped code' };
	const files = changedSince(argv[at + 1]);
	const rest = [...argv.slice(0, at), ...argv.slice(at + 2)];
	return { args: files.length === 0 ? undefined : [...rest, '--mutate', files.join(',')], scope: `${files.length} files changed since ${argv[at + 1]}` };
}

const argv = process.argv.slice(2);
const strict = argv.includes('--strict');
const { args, scope: files } = strykerArgs(argv.filter((arg) => arg !== '--strict'));
const tests = process.env.MUTATION_TESTS ? `against ${process.env.MUTATION_TESTS} only (a lower bound)` : 'against every test that reaches a mutant';
const scope = `${files}, ${tests}`;
if (args === undefined) {
	console.log(`Mutation testing: ${files}, nothing to mutate.`);
	process.exit(0);
}
const stryker = spawnSync('npx', ['stryker', 'run', ...args], { cwd: ROOT, stdio: 'inherit' });
if (stryker.status !== 0) process.exit(stryker.status ?? 1);
// Stryker's report also carries the files of earlier runs kept in its incremental record: only the files named are judged.
const named = args.includes('--mutate') ? args[args.indexOf('--mutate') + 1] : '';
const judged = spawnSync(process.execPath, [join(__dirname, 'mutation-score.cjs'), ...(strict ? ['--strict'] : [])], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, MUTATION_SCOPE: scope, MUTATION_FILES: named } });
process.exit(judged.status ?? 1);
