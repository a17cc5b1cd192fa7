// The lines a diff adds or changes, as runs, and the tests their mutants meet: CI's mutation step (scripts/mutation.cjs).
'use strict';

/**
 * Every run of lines a unified diff (`git diff -U0`) adds or changes in the new version of a file `keep` accepts, as
 * `{ file, from, to }`: from each hunk's `+c,d` (d lines from line c; d left out means one, 0 means lines only removed).
 * A file deleted (`+++ /dev/null`) has no new lines.
 */
function linesAdded(diff, keep) {
	const ranges = [];
	let file;
	for (const line of diff.split('\n')) {
		if (line.startsWith('+++ ')) file = line.startsWith('+++ b/') ? line.slice(6) : undefined;
		const hunk = /^@@ -\S+ \+(\d+)(?:,(\d+))? @@/.exec(line);
		if (!hunk || file === undefined || !keep(file)) continue;
		const from = Number(hunk[1]);
		const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
		if (count > 0) ranges.push({ file, from, to: from + count - 1 });
	}
	return ranges;
}

/**
 * The tests the mutants of `files` meet (test/mutation/ownTests.json): each file's own, named by the longest entry
 * that is the file or a folder holding it, or `otherwise`; each test once.
 */
function testsOf(files, { own, otherwise }) {
	const entryOf = (file) => Object.keys(own).filter((prefix) => file === prefix || (prefix.endsWith('/') && file.startsWith(prefix))).sort((a, b) => b.length - a.length)[0];
	return [...new Set(files.flatMap((file) => (entryOf(file) === undefined ? otherwise : own[entryOf(file)])))];
}

module.exports = { linesAdded, testsOf };
