/**
 * The README and the pages under docs/ name only what exists: every link to a heading or a file resolves, every
 * repository path in backticks exists, every `npm run <script>` is a script of package.json, every flag given to
 * `npm start`, `npm run start:queue` or `npm run server` is one those commands read, and every node or credential
 * setting written in italics (*Start From*, *Batching → Concurrency*) is a display name the nodes show.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import { JobExecutionApi } from '../../credentials/JobExecutionApi.credentials';
import { JobExecutionRelayApi } from '../../credentials/JobExecutionRelayApi.credentials';
import { JobExecution } from '../../nodes/JobExecution/JobExecution.node';
import { JobExecutionTrigger } from '../../nodes/JobExecutionTrigger/JobExecutionTrigger.node';

const ROOT = resolve(__dirname, '../..');

export interface Project {
	root: string;
	scripts: Set<string>;
	// Flags each long-running command reads, by the command as a page writes it.
	flags: Record<string, Set<string>>;
	settingNames: Set<string>;
}

// Settings of n8n itself that pages name in italics: not this package's, so not in its descriptions.
const N8N_SETTINGS = new Set(['Execute step', 'Description', 'Instructions', 'Interface']);

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
export function anchorsOf(markdown: string): Set<string> {
	const seen = new Map<string, number>();
	const anchors = new Set<string>();
	for (const match of withoutCode(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
		const base = match[1]
			.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
			.toLowerCase()
			.replace(/[^\p{L}\p{N}\s_-]/gu, '')
			.replace(/ /g, '-');
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		anchors.add(count === 0 ? base : `${base}-${count}`);
	}
	return anchors;
}

// Fenced code blocks hold commands and JSON, not headings or prose.
function withoutCode(markdown: string): string {
	return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

const RUNTIME_FOLDERS = new Set(['dist', 'dist-bench', 'node_modules', '.n8n-host', '.cache']);

function isRepositoryPath(root: string, path: string): boolean {
	const first = path.split('/')[0];
	// Folders made at run time (builds, caches, n8n's data) are named but not committed.
	if (path.includes('*') || path.includes('<') || path.includes('…') || RUNTIME_FOLDERS.has(first)) return false;
	return path.includes('/') ? existsSync(join(root, first)) : /\.(md|json|js|cjs|mjs|ts|yml)$/.test(path) && existsSync(join(root, path));
}

function checkLinks(file: string, markdown: string, read: (path: string) => string | undefined): string[] {
	const problems: string[] = [];
	for (const match of withoutCode(markdown).matchAll(/\]\(([^)\s]+)\)/g)) {
		const target = match[1];
		if (/^(https?:|mailto:)/.test(target)) continue;
		const [path, anchor] = target.split('#', 2);
		const targetFile = path === '' ? file : join(dirname(file), path);
		const text = path === '' ? markdown : read(targetFile);
		if (text === undefined) {
			problems.push(`${file}: link to a missing file ${target}`);
			continue;
		}
		if (anchor !== undefined && !anchorsOf(text).has(anchor)) problems.push(`${file}: link to a missing heading ${target}`);
	}
	return problems;
}

function checkNames(project: Project, file: string, markdown: string): string[] {
	const problems: string[] = [];
	for (const match of markdown.matchAll(/`([^`\n]+)`/g)) {
		const path = match[1].replace(/[.,:;]$/, '');
		if (/^[\w.-]+(\/[\w.@-]+)*\/?$/.test(path) && path.includes('.') || /^[\w.-]+\/[\w.@/-]*$/.test(path)) {
			if (isRepositoryPath(project.root, path) && !existsSync(join(project.root, path))) problems.push(`${file}: names a missing file ${path}`);
		}
	}
	for (const match of markdown.matchAll(/\bnpm run(?: -s)? ([\w:-]+)/g)) {
		if (!project.scripts.has(match[1])) problems.push(`${file}: names a missing npm script ${match[1]}`);
	}
	for (const match of markdown.matchAll(/\bnpm (start|run -s server|run server|run start:queue|run demo) -- ((?:--?[\w-]+(?:[ =][^\s`-][^\s`]*)? ?)+)/g)) {
		const command = match[1].replace(' -s', '');
		for (const flag of match[2].match(/--[\w-]+/g) ?? []) {
			if (!project.flags[command]?.has(flag)) problems.push(`${file}: names a flag ${flag} that \`npm ${command}\` does not read`);
		}
	}
	for (const match of withoutCode(markdown).matchAll(/(?<![*\w])\*([A-Z][^*\n]*?)\*(?![*\w])/g)) {
		for (const name of match[1].split(' → ')) {
			if (!project.settingNames.has(name) && !N8N_SETTINGS.has(name)) problems.push(`${file}: names a setting *${name}* the nodes do not show`);
		}
	}
	return problems;
}

/** Every problem of one page, as "<file>: …"; `read` gives a file's text (or undefined when it is missing). */
export function pageProblems(project: Project, file: string, markdown: string, read: (path: string) => string | undefined): string[] {
	return [...checkLinks(file, markdown, read), ...checkNames(project, file, markdown)];
}

// A property, an option, a collection or a resource locator's mode of the nodes' descriptions: what the editor
// shows is its display name, or an option's name.
interface Described {
	displayName?: string;
	name?: string;
	value?: unknown;
	options?: readonly Described[];
	values?: readonly Described[];
	modes?: readonly Described[];
}

function displayNames(properties: readonly Described[] | undefined, into: Set<string>): Set<string> {
	for (const property of properties ?? []) {
		if (property.displayName) into.add(property.displayName);
		if ('value' in property && property.name) into.add(property.name);
		displayNames(property.options, into);
		displayNames(property.values, into);
		displayNames(property.modes, into);
	}
	return into;
}

function flagsIn(file: string): Set<string> {
	return new Set(readFileSync(join(ROOT, file), 'utf8').match(/--[a-z][\w-]+/g) ?? []);
}

function realProject(): Project {
	const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
	const names = new Set<string>();
	for (const node of [new JobExecution(), new JobExecutionTrigger()]) displayNames(node.description.properties, names);
	for (const credential of [new JobExecutionApi(), new JobExecutionRelayApi()]) displayNames(credential.properties, names);
	const start = flagsIn('host/start.ts');
	return {
		root: ROOT,
		scripts: new Set(Object.keys(manifest.scripts)),
		flags: { start, 'run start:queue': start, 'run server': flagsIn('server/main.ts'), 'run demo': new Set() },
		settingNames: names,
	};
}

// A linked folder exists with no headings of its own.
const readPage = (path: string) => (!existsSync(path) ? undefined : statSync(path).isDirectory() ? '' : readFileSync(path, 'utf8'));
const pages = ['README.md', 'CHANGELOG.md', 'BENCHMARKS.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

describe('the README and docs/ name only what exists', () => {
	const project = realProject();

	it.each(pages)('%s → no missing heading, file, script, flag or setting', (page) => {
		expect(pageProblems(project, join(ROOT, page), readFileSync(join(ROOT, page), 'utf8'), readPage).map((problem) => relative(ROOT, problem))).toEqual([]);
	});

	it('every page under docs/ is reachable from the README in one click', () => {
		const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
		const linked = new Set([...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((match) => match[1]));
		expect(pages.filter((page) => page.startsWith('docs/') && !linked.has(page))).toEqual([]);
	});

	it('the README stays a five-minute read: under 250 lines', () => {
		expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThan(250);
	});
});

describe('the check can fail', () => {
	const project = realProject();
	const page = join(ROOT, 'docs', 'example.md');
	const problemsOf = (markdown: string) => pageProblems(project, page, markdown, readPage);

	it.each([
		['a heading that does not exist', 'See [limits](using-the-nodes.md#no-such-heading).', 'link to a missing heading using-the-nodes.md#no-such-heading'],
		['a heading on the same page that does not exist', '# Here\n\nSee [there](#there).', 'link to a missing heading #there'],
		['a linked file that does not exist', 'See [gone](gone.md).', 'link to a missing file gone.md'],
		['a repository file that does not exist', 'Run `test/unit/noSuchTest.test.ts`.', 'names a missing file test/unit/noSuchTest.test.ts'],
		['an npm script that does not exist', 'Run `npm run test:everything`.', 'names a missing npm script test:everything'],
		['a flag npm start does not read', 'Run `npm start -- --n8n-version 2.41.1 --turbo`.', 'names a flag --turbo that `npm start` does not read'],
		['a node setting that does not exist', 'Set *Start From* to *Replay Everything*.', 'names a setting *Replay Everything* the nodes do not show'],
		['a renamed option path', 'Use *Batching → Parallelism*.', 'names a setting *Parallelism* the nodes do not show'],
	])('%s → reported', (_what, markdown, expected) => {
		expect(problemsOf(markdown).map((problem) => problem.replace(`${page}: `, ''))).toEqual([expected]);
	});

	it('what exists → nothing reported', () => {
		const markdown = '# Here\n\nSee [here](#here), [limits](using-the-nodes.md#limits), `test/unit/docs.test.ts`, `npm run test:soak`, `npm start -- --n8n-version 1.123.81 --verbose`, *Start From* and *Batching → Concurrency*.';
		expect(problemsOf(markdown)).toEqual([]);
	});

	it('headings get GitHub anchors', () => {
		expect([...anchorsOf("## Linting and n8n's strict mode\n## Proven by `npm run test:queue`\n## A\n## A")]).toEqual([
			'linting-and-n8ns-strict-mode',
			'proven-by-npm-run-testqueue',
			'a',
			'a-1',
		]);
	});
});

// The links the package itself ships (codex "Docs" links in n8n's editor, credential documentation URLs, the
// homepage) point into this repository: each must land on a README heading or a docs file and heading that exist.
const REPOSITORY_URL = 'https://github.com/n8n-nodes-job-execution/n8n-nodes-job-execution';

function shippedLinkProblem(url: string, read: (path: string) => string | undefined): string | undefined {
	if (!url.startsWith(REPOSITORY_URL)) return `${url}: not this repository`;
	const rest = url.slice(REPOSITORY_URL.length);
	const match = /^(?:\/blob\/main\/([^#]+))?(?:#(.*))?$/.exec(rest);
	if (!match) return `${url}: not a README or docs link`;
	const file = match[1] ?? 'README.md';
	const text = read(join(ROOT, file));
	if (text === undefined) return `${url}: missing file ${file}`;
	if (match[2] !== undefined && !anchorsOf(text).has(match[2])) return `${url}: missing heading #${match[2]} in ${file}`;
	return undefined;
}

function shippedDocumentationUrls(): string[] {
	const urls: string[] = [];
	for (const codex of ['nodes/JobExecution/JobExecution.node.json', 'nodes/JobExecutionTrigger/JobExecutionTrigger.node.json']) {
		const resources = (JSON.parse(readFileSync(join(ROOT, codex), 'utf8')) as { resources: Record<string, Array<{ url: string }>> }).resources;
		for (const links of Object.values(resources)) urls.push(...links.map((link) => link.url));
	}
	urls.push(new JobExecutionApi().documentationUrl, new JobExecutionRelayApi().documentationUrl);
	urls.push((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { homepage: string }).homepage.replace(/#readme$/, ''));
	return urls;
}

describe('documentation links the package ships', () => {
	it.each(shippedDocumentationUrls())('%s → an existing README or docs heading', (url) => {
		expect(shippedLinkProblem(url, readPage)).toBeUndefined();
	});

	it.each([
		[`${REPOSITORY_URL}#the-job-execution-node`, 'missing heading #the-job-execution-node in README.md'],
		[`${REPOSITORY_URL}/blob/main/docs/nowhere.md`, 'missing file docs/nowhere.md'],
		[`${REPOSITORY_URL}/blob/main/docs/using-the-nodes.md#no-such-heading`, 'missing heading #no-such-heading in docs/using-the-nodes.md'],
		['https://example.com/docs', 'not this repository'],
	])('the check can fail: %s → reported', (url, expected) => {
		expect(shippedLinkProblem(url, readPage)).toBe(`${url}: ${expected}`);
	});
});
