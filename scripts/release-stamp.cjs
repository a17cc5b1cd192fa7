// The publish guard. A full, green `npm test` writes a stamp of the tree it tested (sources, tests, the built
// dist/ and what the tarball carries); `npm publish` (prepublishOnly, and prepack, which npm runs on publish even
// with .npmrc's ignore-scripts because publishConfig turns scripts back on) refuses when the tree differs.
'use strict';
const { createHash } = require('crypto');
const { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } = require('fs');
const { join, relative, sep } = require('path');

const root = join(__dirname, '..');
const STAMP = join(root, 'dist', '.release-stamp.json');
// Everything a test run or the tarball depends on. dist/ is cleaned by every build, so a rebuild drops the stamp.
const TREE = [
	'package.json', 'package-lock.json', 'README.md', 'LICENSE', 'index.ts', 'tsconfig.json', 'gulpfile.js',
	'jest.config.js', 'nodes', 'credentials', 'server', 'test', 'testkit', 'examples', 'dist/index.js', 'dist/index.d.ts',
	'dist/nodes', 'dist/credentials',
];

function filesUnder(path) {
	if (!existsSync(path)) return [];
	if (!statSync(path).isDirectory()) return [path];
	return readdirSync(path).sort().flatMap((name) => filesUnder(join(path, name)));
}

function treeHash() {
	const hash = createHash('sha256');
	for (const file of TREE.flatMap((entry) => filesUnder(join(root, entry)))) {
		hash.update(relative(root, file).split(sep).join('/')).update('\0').update(readFileSync(file)).update('\0');
	}
	return hash.digest('hex');
}

function writeStamp(testsPassed) {
	writeFileSync(STAMP, JSON.stringify({ tree: treeHash(), testsPassed, at: new Date().toISOString() }, null, 2) + '\n');
}

function removeStamp() {
	rmSync(STAMP, { force: true });
}

// Returns the reason to refuse, or null when the current tree is the one a full test run passed.
function refusal() {
	if (!existsSync(STAMP)) return 'no passing `npm test` run is recorded for this build (dist/.release-stamp.json is missing)';
	const stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
	if (stamp.tree !== treeHash()) return `the tree changed since the passing \`npm test\` of ${stamp.at}`;
	return null;
}

if (require.main === module) {
	const reason = refusal();
	if (reason) {
		process.stderr.write(`Refusing to publish: ${reason}. Run \`npm run lint && npm test\`, then publish.\n`);
		process.exit(1);
	}
	process.stderr.write('Publish guard: this exact tree passed the full `npm test`.\n');
}

module.exports = { refusal, removeStamp, treeHash, writeStamp };
