/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	setupFiles: ['<rootDir>/test/setup.ts'],
	// Type errors are caught by `npm run typecheck`; tests only transpile, which keeps them fast.
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	testTimeout: 30000,
};
