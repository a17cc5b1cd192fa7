// @ts-check
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(fileURLToPath(import.meta.url));

// Sandboxes live outside the tree (a copy of the project under it would be linted as the project's own files), below
// a folder whose node_modules links to the project's: code, tests and tsc in a sandbox resolve packages by walking up.
const SANDBOXES_HOME = join(tmpdir(), 'job-execution-mutation');
mkdirSync(SANDBOXES_HOME, { recursive: true });
rmSync(join(SANDBOXES_HOME, 'node_modules'), { force: true });
symlinkSync(join(ROOT, 'node_modules'), join(SANDBOXES_HOME, 'node_modules'), 'dir');

/**
 * The mutation tier (`npm run test:mutation`, docs/development.md "Mutation testing"): StrykerJS changes the shipped
 * code one small edit at a time and runs the tests that cover that edit; a mutant no test notices is a gap in the
 * tests, or an edit that changes nothing (recorded with its reason in test/mutation/equivalents.json).
 * scripts/mutation-score.cjs reads the report and judges each module against its threshold.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
const config = {
	mutate: [
		'nodes/**/*.ts',
		'credentials/**/*.ts',
		'server/**/*.ts',
		'!**/*.d.ts',
	],
	testRunner: 'jest',
	jest: {
		configFile: 'jest.mutation.config.js',
		// Only the tests that import a mutated file run for its mutants (jest's haste map sees nodes/, server/, …).
		enableFindRelatedTests: true,
	},
	// Per-test coverage: a mutant runs only the tests that reach it.
	coverageAnalysis: 'perTest',
	// Server tests start dist/server/main.js as a child process and the fuzzer loads dist/: both are built from the
	// instrumented sources inside the sandbox, and a child reads the active mutant from its environment.
	// The project's own tsc by its path: the sandbox lies outside the tree, where npx would look for a package `tsc`.
	buildCommand: `node ${join(ROOT, 'node_modules/typescript/bin/tsc')} -p tsconfig.json`,
	ignorePatterns: ['dist', 'dist-bench', '.cache', 'reports', '.n8n-host', 'coverage', '*.tgz'],
	// The record of the last run: a rerun tests again only the mutants whose code or tests changed.
	incremental: true,
	incrementalFile: 'test/mutation/stryker-incremental.json',
	reporters: ['clear-text', 'progress', 'json'],
	jsonReporter: { fileName: 'reports/mutation/mutation.json' },
	clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
	// Two cores: Stryker's processes side by side, each jest with one worker.
	concurrency: 2,
	timeoutMS: 20000,
	timeoutFactor: 2,
	// Judged per module by scripts/mutation-score.cjs, not by Stryker's single overall break.
	thresholds: { high: 90, low: 85, break: null },
	tempDirName: join(SANDBOXES_HOME, 'sandboxes'),
	cleanTempDir: 'always',
};
export default config;
