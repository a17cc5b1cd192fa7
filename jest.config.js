/** @type {import('jest').Config} The default tier (`npm test`): unit, server and node tests; fast on every change. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['<rootDir>/test/**/*.test.ts'],
	// Soak tests (`npm run test:soak`) and e2e (`npm run test:e2e`) have their own configs.
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/soak/', '\\.soak\\.test\\.ts$'],
	setupFiles: ['<rootDir>/test/setup.ts'],
	// Type errors are caught by `npm run typecheck`; tests only transpile, which keeps them fast.
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	testTimeout: 30000,
};
