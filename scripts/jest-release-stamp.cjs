// Jest reporter: after a complete, green run of every suite (no path or name filter), records the tree it
// tested for the publish guard (scripts/release-stamp.cjs).
'use strict';
const { writeStamp } = require('./release-stamp.cjs');

class ReleaseStampReporter {
	constructor(globalConfig) {
		this.globalConfig = globalConfig;
	}

	onRunComplete(_contexts, results) {
		const config = this.globalConfig;
		const filtered = Boolean(config.testPathPattern || config.testNamePattern || config.onlyChanged || config.onlyFailures || config.findRelatedTests || config.shard);
		const green = results.success && !results.wasInterrupted && results.numFailedTests === 0 && results.numRuntimeErrorTestSuites === 0;
		if (green && !filtered && results.numTotalTests > 0) writeStamp(results.numPassedTests);
	}
}

module.exports = ReleaseStampReporter;
