/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	setupFiles: ['<rootDir>/test/setup.ts'],
	// Type errors are caught by `npm run typecheck`; tests only transpile, which keeps them fast.
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	testTimeout: 30000,
	// A complete green run records the tree it tested; `npm publish` refuses any other (scripts/release-stamp.cjs).
	reporters: ['default', '<rootDir>/scripts/jest-release-stamp.cjs'],
};
