// `npm run test:mutation [-- --mutate <file or glob> …]`: StrykerJS over the shipped code (stryker.config.mjs), or over
// the files named, then scripts/mutation-score.cjs judges the report per module. Stryker's incremental record
// (incrementalFile in stryker.config.mjs) makes a rerun test again only the mutants whose code or tests changed.
// `--changed-since <rev>` mutates only the shipped files changed since that commit (nothing to do: exit 0).
'use strict';
const { execFileSync, spawnSync } = require('node:child_process');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const SHIPPED = /^(nodes|credentials|server)\/.*(?<!\.d)\.ts$/;

function changedSince(rev) {
	const out = execFileSync('git', ['diff', '--name-only', '--diff-filter=AM', rev, '--', 'nodes', 'credentials', 'server'], { cwd: ROOT, encoding: 'utf8' });
	return out.split('\n').filter((file) => SHIPPED.test(file));
}

function strykerArgs(argv) {
	const at = argv.indexOf('--changed-since');
	if (at === -1) return { args: argv, scope: argv.includes('--mutate') ? `the files named (${argv[argv.indexOf('--mutate') + 1]})` : 'the whole shipped code' };
	const files = changedSince(argv[at + 1]);
	const rest = [...argv.slice(0, at), ...argv.slice(at + 2)];
	return { args: files.length === 0 ? undefined : [...rest, '--mutate', files.join(',')], scope: `${files.length} files changed since ${argv[at + 1]}` };
}

const { args, scope: files } = strykerArgs(process.argv.slice(2));
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
const judged = spawnSync(process.execPath, [join(__dirname, 'mutation-score.cjs')], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, MUTATION_SCOPE: scope, MUTATION_FILES: named } });
process.exit(judged.status ?? 1);
