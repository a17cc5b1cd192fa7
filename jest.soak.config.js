/** @type {import('jest').Config} Soak (`npm run test:soak`): long load proofs (10,000-job churn, 1,000,000-job state). */
const base = require('./jest.config');

module.exports = {
	...base,
	testMatch: ['<rootDir>/test/soak/**/*.soak.test.ts'],
	testPathIgnorePatterns: ['/node_modules/'],
	testTimeout: 10 * 60_000,
	// One file per core, not the default tier's one more than cores: soak files keep the CPU busy and measure CPU and memory.
	maxWorkers: '100%',
};
