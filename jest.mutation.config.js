const base = require('./jest.config');

// MUTATION_TESTS (comma-separated paths under test/) narrows the tests a module's mutants meet, for a quick run of one
// mechanism against its own tests (`MUTATION_TESTS=test/unit/deadlineClock.test.ts npm run test:mutation -- --mutate
// nodes/shared/transport/deadlineClock.ts`): a score from fewer tests is a lower bound of the whole suite's.
const only = (process.env.MUTATION_TESTS ?? '').split(',').map((path) => path.trim()).filter(Boolean);

/** @type {import('jest').Config} The default tier as StrykerJS runs it (`npm run test:mutation`): the same tests, one
 * worker per Stryker process (Stryker runs its own processes side by side), and no release stamp (a mutant's run is
 * never a release's). */
module.exports = {
	...base,
	...(only.length > 0 ? { testMatch: only.map((path) => `<rootDir>/${path}`) } : {}),
	maxWorkers: 1,
	reporters: ['default'],
	cacheDirectory: '<rootDir>/.cache/jest-mutation',
};
