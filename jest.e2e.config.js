/** @type {import('jest').Config} End-to-end: the packed package inside real n8n hosts (`npm run test:e2e`). */
module.exports = {
	testEnvironment: 'node',
	// jest's transform cache in the project's ignored .cache/, not /tmp/jest_<uid>.
	cacheDirectory: '<rootDir>/.cache/jest',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	// Installing a host on a cold machine takes minutes; each n8n command takes seconds.
	testTimeout: 10 * 60_000,
	maxWorkers: 1,
};
