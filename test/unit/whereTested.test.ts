/**
 * docs/where-tested.md maps each behaviour to the file that tests it. The map is built here from the test files
 * themselves (each file's leading comment and its top-level describe titles), so it cannot drift: a new, renamed or
 * re-described test file fails this test until the page is rewritten (`UPDATE_DOCS=1 npx jest
 * test/unit/whereTested.test.ts` writes it).
 */
import { readdirSync, readFileSync, statSync } from 'fs';
import { join, relative } from 'path';

import * as ts from 'typescript';

import { markers, writeMeasuredBlock } from '../../testkit/measuredBlock';

const ROOT = join(__dirname, '../..');
const PAGE = join(ROOT, 'docs/where-tested.md');
const WRITER = 'test/unit/whereTested.test.ts';

const TIERS: Array<{ title: string; command: string; matches: (path: string) => boolean }> = [
	{ title: 'Default tier', command: 'npm test', matches: (path) => /\.test\.ts$/.test(path) && !/\.soak\.test\.ts$/.test(path) && !path.startsWith('test/soak/') && !path.startsWith('test/publish/') },
	{ title: 'Publish checks', command: 'npm run test:publish', matches: (path) => path.startsWith('test/publish/') && /\.test\.ts$/.test(path) },
	{ title: 'Soak tier', command: 'npm run test:soak', matches: (path) => /\.soak\.test\.ts$/.test(path) },
	{ title: 'Real n8n hosts', command: 'npm run test:e2e', matches: (path) => /\.e2e\.ts$/.test(path) },
	{ title: 'Queue mode', command: 'npm run test:queue', matches: (path) => /\.queue\.ts$/.test(path) },
];

function testFiles(directory: string): string[] {
	return readdirSync(directory)
		.flatMap((name) => {
			const path = join(directory, name);
			return statSync(path).isDirectory() ? testFiles(path) : [relative(ROOT, path)];
		})
		.filter((path) => TIERS.some((tier) => tier.matches(path)))
		.sort();
}

/** The first sentence of the file's leading comment, on one line. */
function summary(text: string): string {
	const comment = /^\s*(\/\*\*[\s\S]*?\*\/|(?:\/\/[^\n]*\n)+)/.exec(text)?.[1] ?? '';
	const plain = comment.replace(/^\/\*\*|\*\/$/g, '').replace(/^\s*(\*|\/\/) ?/gm, '').replace(/\s+/g, ' ').trim();
	const sentence = /^(.*?\.)(\s|$)/.exec(plain)?.[1] ?? plain;
	const short = sentence.length <= 240 ? sentence : `${sentence.slice(0, sentence.lastIndexOf(' ', 239))} …`;
	return short.replace(/\|/g, '\\|');
}

/** Titles of the top-level describe blocks, as written (template literals keep their placeholders). */
function describeTitles(path: string, text: string): string[] {
	const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
	const titles: string[] = [];
	for (const statement of source.statements) {
		if (!ts.isExpressionStatement(statement) || !ts.isCallExpression(statement.expression)) continue;
		const call = statement.expression;
		const callee = call.expression.getText(source);
		const argument = call.arguments[0];
		if (!/^describe(\.each\(.*\))?$/s.test(callee) && !callee.startsWith('describe')) continue;
		if (argument && (ts.isStringLiteral(argument) || ts.isNoSubstitutionTemplateLiteral(argument))) titles.push(argument.text);
		else if (argument && ts.isTemplateExpression(argument)) titles.push(argument.getText(source).slice(1, -1));
	}
	return titles.map((title) => title.replace(/\|/g, '\\|'));
}

function page(): string {
	const files = testFiles(join(ROOT, 'test'));
	return TIERS.map((tier) => {
		const rows = files
			.filter(tier.matches)
			.map((path) => {
				const text = readFileSync(join(ROOT, path), 'utf8');
				const titles = describeTitles(path, text);
				return `| \`${path}\` | ${summary(text) || '—'}${titles.length ? `<br>${titles.map((t) => `“${t}”`).join(' · ')}` : ''} |`;
			});
		return [`### ${tier.title} (\`${tier.command}\`)`, '', '| File | What it tests |', '|---|---|', ...rows].join('\n');
	}).join('\n\n');
}

test('docs/where-tested.md lists every test file with what it tests', () => {
	const expected = page();
	if (process.env.UPDATE_DOCS === '1') writeMeasuredBlock(PAGE, 'where-tested', WRITER, expected);
	const text = readFileSync(PAGE, 'utf8');
	const { start, end } = markers('where-tested', WRITER);
	const from = text.indexOf(start);
	expect(from).toBeGreaterThan(-1);
	expect(text.slice(from + start.length, text.indexOf(end)).trim()).toBe(expected);
});
