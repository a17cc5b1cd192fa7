// Jest reporter: after a complete, green run of every suite (no path or name filter), records the tree it
// tested for the publish guard (scripts/release-stamp.cjs).
'use strict';
const { removeStamp, writeStamp } = require('./release-stamp.cjs');

class ReleaseStampReporter {
	constructor(globalConfig) {
		this.globalConfig = globalConfig;
	}

	onRunComplete(_contexts, results) {
		const config = this.globalConfig;
		const filtered = Boolean(config.testPathPattern || config.testNamePattern || config.onlyChanged || config.onlyFailures || config.findRelatedTests || config.shard);
		// results.success is only set after the reporters ran: judge from the counts.
		const green =
			!results.wasInterrupted && !results.runExecError && !results.snapshot.failure &&
			results.numFailedTests === 0 && results.numFailedTestSuites === 0 && results.numRuntimeErrorTestSuites === 0;
		if (filtered) return;
		// A failing full run withdraws an earlier stamp of the same tree.
		if (green && results.numTotalTests > 0) writeStamp(results.numPassedTests);
		else removeStamp();
	}
}

module.exports = ReleaseStampReporter;
