// n8n's own scanner (`@n8n/scan-community-package`, what n8n's verification runs) on this package, locally:
// its exported analyser with its own configuration on the two legs it scans after the provenance check, the
// packed tarball (compiled `.js` and the published package.json) and the source (nodes/, credentials/,
// package.json). The provenance leg needs a published version: CI publishes with provenance (publish.yml).
//   node scripts/scan-package.mjs               pack this project, scan the tarball and the source
//   node scripts/scan-package.mjs --dir DIR     scan an unpacked package folder (the tarball leg)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The scanner makes a temp folder when it is loaded: inside ours, removed at the end.
const workDir = mkdtempSync(join(tmpdir(), 'job-execution-scan-'));
process.env.TMPDIR = workDir;
const { analyzePackage, SOURCE_FILE_PATTERNS } = await import('@n8n/scan-community-package/scanner/scanner.mjs');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TARBALL_PATTERNS = ['**/*.js', 'package.json'];

function packAndUnpack(workDir) {
	const packed = JSON.parse(
		execFileSync('npm', ['pack', '--json', '--pack-destination', workDir, '--loglevel=error'], { cwd: root, encoding: 'utf8' }),
	);
	const unpacked = join(workDir, 'package');
	mkdirSync(unpacked);
	execFileSync('tar', ['-xzf', join(workDir, packed[0].filename), '-C', unpacked, '--strip-components=1']);
	return { unpacked, filename: packed[0].filename, files: packed[0].files.length };
}

async function scanLeg(label, dir, patterns) {
	const result = await analyzePackage(dir, patterns);
	if (result.passed) {
		process.stdout.write(`scan ${label}: passed, 0 findings\n`);
		return true;
	}
	process.stdout.write(`scan ${label}: FAILED (${result.message})\n${result.details ?? ''}\n`);
	return false;
}

async function main(args) {
	const dirIndex = args.indexOf('--dir');
	if (dirIndex >= 0) return scanLeg(`package folder ${args[dirIndex + 1]}`, args[dirIndex + 1], TARBALL_PATTERNS);
	const { unpacked, filename, files } = packAndUnpack(workDir);
	const tarballPassed = await scanLeg(`tarball ${filename} (${files} files)`, unpacked, TARBALL_PATTERNS);
	const sourcePassed = await scanLeg('source (nodes/, credentials/, package.json)', root, SOURCE_FILE_PATTERNS);
	return tarballPassed && sourcePassed;
}

try {
	process.exitCode = (await main(process.argv.slice(2))) ? 0 : 1;
} finally {
	rmSync(workDir, { recursive: true, force: true });
}
