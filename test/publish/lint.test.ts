// n8n Cloud eligibility: strict mode with node-cli's template at the root (`n8n-node cloud-support` says eligible),
// the template's rules on the shipped code with or without ESLint's per-folder config lookup, and the non-shipped
// folders linted by their own configuration (so `npm run lint` checks them, and a planted mistake fails it).
import { spawnSync } from 'child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'fs';
import { join, relative } from 'path';

import { projectRoot } from '../../host/paths';

const NOT_SHIPPED = ['server', 'host', 'test', 'testkit', 'bench', 'scripts'];
const LOOKUP_FLAG = 'unstable_config_lookup_from_file';

// Jest sets NODE_ENV=test, which makes eslint-plugin-n8n-nodes-base check made-up file names.
const env = (extra: Record<string, string> = {}) => ({ ...process.env, NODE_ENV: undefined, FORCE_COLOR: undefined, NO_COLOR: '1', ...extra });

interface Finding { file: string; rule: string | null }

interface LintRequest { flags: string[]; files?: string[]; texts?: Array<{ path: string; code: string }> }

/**
 * ESLint's own API in one child (the configs are ES modules; loading ESLint and typescript-eslint is most of the
 * cost): each request lints files, or texts at given paths, with its flags, and lists its findings.
 */
function eslint(requests: LintRequest[]): Finding[][] {
	const script = `
		const { ESLint } = require('eslint');
		const requests = JSON.parse(process.argv[1]);
		(async () => {
			const all = [];
			for (const request of requests) {
				const eslint = new ESLint({ cwd: process.cwd(), flags: request.flags });
				const results = request.files ? await eslint.lintFiles(request.files) : [];
				for (const t of request.texts ?? []) results.push(...(await eslint.lintText(t.code, { filePath: t.path })));
				all.push(results.flatMap((r) => r.messages.map((m) => ({ file: require('path').relative(process.cwd(), r.filePath), rule: m.ruleId }))));
			}
			process.stdout.write(JSON.stringify(all));
		})().catch((e) => { process.stderr.write(String(e.stack)); process.exit(2); });`;
	const result = spawnSync('node', ['-e', script, JSON.stringify(requests)], { cwd: projectRoot, env: env(), encoding: 'utf8', timeout: 240_000 });
	if (result.status !== 0) throw new Error(`eslint child failed: ${result.stderr}`);
	return JSON.parse(result.stdout) as Finding[][];
}

const PLANTED = 'export const home = process.env.HOME;\nconst unused = 1;\n';

// An ESLint suppression comment: `//` or `/*` then the directive.
const DIRECTIVE = new RegExp(['\\/[/*]\\s*eslint', 'disable'].join('-'));

const normalised = (text: string) => text.replace(/\s+/g, ' ').trim();

describe("n8n Cloud eligibility (node-cli's strict mode)", () => {
	it('`n8n-node cloud-support` prints eligible: strict mode on, the root eslint.config.mjs is the template', () => {
		const template = readFileSync(join(projectRoot, 'node_modules/@n8n/node-cli/dist/template/templates/shared/default/eslint.config.mjs'), 'utf8');
		expect(normalised(readFileSync(join(projectRoot, 'eslint.config.mjs'), 'utf8'))).toBe(normalised(template));
		const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { n8n: { strict: unknown }; scripts: Record<string, string> };
		expect(manifest.n8n.strict).toBe(true);
		const status = spawnSync('npx', ['--no-install', 'n8n-node', 'cloud-support'], { cwd: projectRoot, env: env(), encoding: 'utf8', timeout: 60_000 });
		expect(`${status.stdout}${status.stderr}`).toMatch(/Status: eligible for n8n Cloud verification/);
	}, 60_000);

	it('`npm run lint` turns on the per-folder config lookup, and every non-shipped folder has its own config', () => {
		const { scripts } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
		expect(scripts.lint).toBe(`ESLINT_FLAGS=${LOOKUP_FLAG} n8n-node lint`);
		for (const folder of NOT_SHIPPED) expect(existsSync(join(projectRoot, folder, 'eslint.config.mjs'))).toBe(true);
		for (const folder of ['nodes', 'credentials']) expect(existsSync(join(projectRoot, folder, 'eslint.config.mjs'))).toBe(false);
		expect(readFileSync(join(projectRoot, '.ci/run'), 'utf8')).toMatch(/^npm run lint$/m);
	});

	// Both lints in one child: the shipped code as n8n would lint it, and the planted mistakes with the lookup flag.
	let shipped: Finding[];
	let planted: Finding[];
	beforeAll(() => {
		[shipped, planted] = eslint([
			{ flags: [], files: ['index.ts', 'nodes', 'credentials', 'package.json'] },
			{
				flags: [LOOKUP_FLAG],
				texts: [{ path: 'nodes/JobExecution/planted.ts', code: PLANTED }, ...NOT_SHIPPED.map((folder) => ({ path: `${folder}/planted.ts`, code: PLANTED }))],
			},
		]);
	}, 240_000);

	it('the shipped code passes the template with no flag at all (as n8n would lint it)', () => {
		expect(shipped).toEqual([]);
	});

	it('a planted global in a node fails the template; a planted unused variable in each non-shipped folder fails its lint', () => {
		const findings = planted;
		const rulesOf = (file: string) => findings.filter((f) => f.file === file).map((f) => f.rule);
		expect(rulesOf('nodes/JobExecution/planted.ts')).toEqual(
			expect.arrayContaining(['@n8n/community-nodes/no-restricted-globals', '@typescript-eslint/no-unused-vars']),
		);
		for (const folder of NOT_SHIPPED) expect(rulesOf(`${folder}/planted.ts`)).toEqual(['@typescript-eslint/no-unused-vars']);
	});

	it('no eslint-disable anywhere in the repository', () => {
		const offenders: string[] = [];
		const walk = (dir: string): void => {
			for (const name of readdirSync(dir)) {
				if (['node_modules', '.git', 'dist', 'dist-bench', 'coverage', '.n8n-host', '.cache'].includes(name)) continue;
				const path = join(dir, name);
				if (statSync(path).isDirectory()) walk(path);
				else if (/\.(ts|js|mjs|cjs)$/.test(name) && DIRECTIVE.test(readFileSync(path, 'utf8'))) offenders.push(relative(projectRoot, path));
			}
		};
		walk(projectRoot);
		expect(offenders).toEqual([]);
	});
});
