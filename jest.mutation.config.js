const base = require('./jest.config');

/** @type {import('jest').Config} The default tier as StrykerJS runs it (`npm run test:mutation`): the same tests, one
 * worker per Stryker process (Stryker runs its own processes side by side), and no release stamp (a mutant's run is
 * never a release's). */
module.exports = {
	...base,
	maxWorkers: 1,
	reporters: ['default'],
	// A mutant's sandbox holds its own .cache; the transform cache stays there too.
	cacheDirectory: '<rootDir>/.cache/jest-mutation',
};
