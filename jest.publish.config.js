/** @type {import('jest').Config} Publish checks (`npm run test:publish`): the packed tarball through n8n's scanner, the
 * lint and Cloud eligibility through n8n's CLI, the publish guard, `npm start`. They run n8n's tools in child processes,
 * which keeps `npm test` from its two minutes: their own tier, which CI runs after the default tier. */
const base = require('./jest.config');

module.exports = {
	...base,
	testMatch: ['<rootDir>/test/publish/**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/'],
	// The release stamp belongs to the default tier's complete run.
	reporters: ['default'],
};
