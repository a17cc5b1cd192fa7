/** @type {import('jest').Config} Queue mode: the packed package in n8n main + workers on Redis and PostgreSQL (`npm run test:queue`). */
module.exports = {
	testEnvironment: 'node',
	// jest's transform cache in the project's ignored .cache/, not /tmp/jest_<uid>.
	cacheDirectory: '<rootDir>/.cache/jest',
	roots: ['<rootDir>/test/queue'],
	testMatch: ['**/*.queue.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
	// First use installs n8n, Redis and PostgreSQL; the scenarios wait for n8n's minute-long poll and wait cycles.
	testTimeout: 15 * 60_000,
	maxWorkers: 1,
};
