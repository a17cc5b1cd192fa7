const os = require('os');

const cpuCount = () => (typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);

/** @type {import('jest').Config} The default tier (`npm test`): unit, server and node tests; fast on every change. */
module.exports = {
	testEnvironment: 'node',
	// jest's transform cache in the project's ignored .cache/, not /tmp/jest_<uid>.
	cacheDirectory: '<rootDir>/.cache/jest',
	// The haste map sees the shipped and shared code too, so `npx jest --findRelatedTests nodes/shared/jobSummary.ts`
	// finds the tests that import it; only test/ holds tests (testMatch).
	roots: ['<rootDir>/test', '<rootDir>/nodes', '<rootDir>/credentials', '<rootDir>/server', '<rootDir>/testkit'],
	testMatch: ['<rootDir>/test/**/*.test.ts'],
	// Soak tests (`npm run test:soak`), the publish checks (`npm run test:publish`) and e2e (`npm run test:e2e`) have
	// their own configs.
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/soak/', '\\.soak\\.test\\.ts$', '<rootDir>/test/publish/'],
	setupFiles: ['<rootDir>/test/setup.ts'],
	// Type errors are caught by `npm run typecheck`; tests only transpile, which keeps them fast.
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	testTimeout: 30000,
	// One worker more than cores (jest's default keeps one core free, which on a 2-core machine runs every file in a
	// row): many node and server tests wait on sockets and timers, and a third file fills those waits; a fourth only
	// made the files on the CPU share it (more CPU time in all, and no sooner done). A count, not a percentage: jest
	// reads a percentage past 100 % as a count.
	maxWorkers: cpuCount() + 1,
	// A complete green run records the tree it tested; `npm publish` refuses any other (scripts/release-stamp.cjs).
	reporters: ['default', '<rootDir>/scripts/jest-release-stamp.cjs'],
};
