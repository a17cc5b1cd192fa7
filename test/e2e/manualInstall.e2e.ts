/**
 * The README's manual install, as a self-hosting user runs it: `npm install <package>` in a fresh `~/.n8n/nodes`,
 * with the packed tarball standing in for the registry's copy, on Node 20 (the system's) and on Node 24 (the 2.41.1
 * host's). It must succeed and install the package alone: n8n-workflow is an optional peer, provided by n8n, so npm
 * does not fetch it (its isolated-vm does not build on Node 20). A copy without the optional marking shows npm would.
 */
import { spawnSync } from 'child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { delimiter, dirname, join } from 'path';

import { hostSpec } from '../../host/hosts';
import { ensureHost, npmEnv } from '../../host/install';
import { PACKAGE_NAME } from '../../host/paths';
import { packProject } from '../../host/workspace';

const log = (line: string) => process.stderr.write(`[e2e] ${line}\n`);

let workDir: string;
let tarball: string;
beforeAll(() => {
	workDir = mkdtempSync(join(tmpdir(), 'job-execution-manual-install-'));
	tarball = packProject();
});
afterAll(() => {
	rmSync(workDir, { recursive: true, force: true });
	rmSync(dirname(tarball), { recursive: true, force: true });
});

// A fresh user: its own HOME (no .npmrc: install scripts on, as npm's default), its own npm cache, `node` on PATH.
function npmAsUser(nodeBin: string, home: string, args: string[]) {
	const env = {
		...process.env,
		HOME: home,
		PATH: [dirname(nodeBin), process.env.PATH ?? ''].join(delimiter),
		npm_config_cache: join(home, '.npm'),
		npm_config_userconfig: join(home, '.npmrc'),
		npm_config_ignore_scripts: undefined,
		npm_config_update_notifier: 'false',
		NODE_ENV: undefined,
		// npm's compile cache (Node 22+) and temp files stay in this user's folder.
		TMPDIR: join(home, 'tmp'),
	};
	mkdirSync(env.TMPDIR, { recursive: true });
	const nodesDir = join(home, '.n8n', 'nodes');
	mkdirSync(nodesDir, { recursive: true });
	const version = spawnSync('node', ['--version'], { cwd: nodesDir, env, encoding: 'utf8' }).stdout.trim();
	const result = spawnSync('npm', args, { cwd: nodesDir, env, encoding: 'utf8', timeout: 10 * 60_000 });
	return { version, nodesDir, status: result.status, output: `${result.stdout}${result.stderr}` };
}

const NODES: Array<[string, () => Promise<string>, RegExp]> = [
	['Node 20 (the system Node, n8n 1.x)', async () => process.execPath, /^v20\./],
	['Node 24 (n8n 2.41.1)', async () => (await ensureHost(hostSpec('2.41.1'), log)).nodeBin, /^v24\./],
];

describe.each(NODES)('npm install n8n-nodes-job-execution in ~/.n8n/nodes on %s', (_label, nodeBinOf, expectedVersion) => {
	it('installs the package and nothing else', async () => {
		const home = mkdtempSync(join(workDir, 'home-'));
		const { version, nodesDir, status, output } = npmAsUser(await nodeBinOf(), home, ['install', tarball]);
		expect(version).toMatch(expectedVersion);
		log(`${version}: npm install → exit ${status}\n${output.trim()}`);
		expect(status).toBe(0);
		expect(readdirSync(join(nodesDir, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual([PACKAGE_NAME]);
		const installed = JSON.parse(readFileSync(join(nodesDir, 'node_modules', PACKAGE_NAME, 'package.json'), 'utf8')) as { n8n: { nodes: string[] } };
		for (const file of installed.n8n.nodes) expect(readdirSync(join(nodesDir, 'node_modules', PACKAGE_NAME, dirname(file)))).toContain(file.split('/').pop());
		expect((JSON.parse(readFileSync(join(nodesDir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies).toHaveProperty(PACKAGE_NAME);
	}, 10 * 60_000);
});

describe('the check can fail', () => {
	it('without peerDependenciesMeta, npm would install n8n-workflow and its tree too (dry run, Node 20)', () => {
		const copy = join(workDir, 'required-peer');
		mkdirSync(copy);
		spawnSync('tar', ['-xzf', tarball, '-C', copy, '--strip-components=1']);
		const manifest = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8')) as Record<string, unknown>;
		delete manifest.peerDependenciesMeta;
		writeFileSync(join(copy, 'package.json'), JSON.stringify(manifest, null, 2));
		const home = mkdtempSync(join(workDir, 'home-'));
		const { status, output } = npmAsUser(process.execPath, home, ['install', '--dry-run', '--install-links', copy]);
		expect(status).toBe(0);
		expect(output).toMatch(/add n8n-workflow /);
		expect(output).toMatch(/add isolated-vm /);
	}, 10 * 60_000);
});

describe('npm on Node 24 as the host install runs it', () => {
	// npm 11 turns on Node's compile cache on Node 22+: the host install's npm environment turns it off.
	it('leaves nothing in the temp folder (and would leave node-compile-cache/ without NODE_DISABLE_COMPILE_CACHE)', async () => {
		const nodeBin = (await ensureHost(hostSpec('2.41.1'), log)).nodeBin;
		const path = [dirname(nodeBin), process.env.PATH ?? ''].join(delimiter);
		const tmpOf = (name: string) => {
			const dir = join(workDir, name);
			mkdirSync(dir);
			return dir;
		};
		const quiet = tmpOf('tmp-host-install');
		spawnSync('npm', ['--version'], { env: { ...npmEnv(path), TMPDIR: quiet }, encoding: 'utf8' });
		expect(readdirSync(quiet)).toEqual([]);
		const cached = tmpOf('tmp-default');
		spawnSync('npm', ['--version'], { env: { ...npmEnv(path), NODE_DISABLE_COMPILE_CACHE: undefined, TMPDIR: cached }, encoding: 'utf8' });
		expect(readdirSync(cached)).toEqual(['node-compile-cache']);
	}, 10 * 60_000);
});
