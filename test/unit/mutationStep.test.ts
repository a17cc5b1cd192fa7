/**
 * CI's mutation step (`npm run test:mutation -- --changed-lines-since <base>`, scripts/changedLines.cjs): the lines a
 * change adds or changes, read from a real `git diff -U0` of a repository made for the test, and the tests their
 * mutants meet (test/mutation/ownTests.json).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

interface Range {
	file: string;
	from: number;
	to: number;
}
// The script CI runs, loaded as it is (CommonJS, no types).
const { linesAdded, testsOf } = createRequire(__filename)('../../scripts/changedLines.cjs') as {
	linesAdded: (diff: string, keep: (file: string) => boolean) => Range[];
	testsOf: (files: string[], map: { own: Record<string, string[]>; otherwise: string[] }) => string[];
};

const numbered = (count: number, tag = 'line') => Array.from({ length: count }, (_, n) => `${tag} ${n + 1}`);

describe('the lines a change adds or changes (a real git diff)', () => {
	let repo: string;
	const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
	const write = (path: string, lines: string[]) => {
		mkdirSync(dirname(join(repo, path)), { recursive: true });
		writeFileSync(join(repo, path), `${lines.join('\n')}\n`);
	};
	beforeAll(() => {
		repo = mkdtempSync(join(tmpdir(), 'changed-lines-'));
		git('init', '-q');
		git('config', 'user.email', 'test@example.com');
		git('config', 'user.name', 'test');
		write('nodes/a.ts', numbered(20));
		write('nodes/gone.ts', numbered(3));
		write('nodes/old.d.ts', numbered(3));
		git('add', '-A');
		git('commit', '-qm', 'base');
		const a = numbered(20);
		a.splice(4, 1, 'changed 5'); // one line changed: `+5` (no count)
		a.splice(10, 0, 'new A', 'new B', 'new C'); // three added after line 10: 11-13
		a.splice(17, 2); // two removed: a hunk of no new line
		write('nodes/a.ts', a);
		write('nodes/added.ts', numbered(4));
		write('nodes/old.d.ts', ['changed']);
		unlinkSync(join(repo, 'nodes/gone.ts'));
		git('add', '-A');
		git('commit', '-qm', 'change');
	});
	afterAll(() => rmSync(repo, { recursive: true, force: true }));

	test('each run of new lines, in the new file\'s numbering; removed lines, deleted files and files not kept give none', () => {
		const diff = git('diff', '-U0', '--no-color', '--no-renames', 'HEAD~1');
		const ranges = linesAdded(diff, (file) => !file.endsWith('.d.ts'));
		expect(ranges).toStrictEqual([
			{ file: 'nodes/a.ts', from: 5, to: 5 },
			{ file: 'nodes/a.ts', from: 11, to: 13 },
			{ file: 'nodes/added.ts', from: 1, to: 4 },
		]);
		// The new file's lines are those: what Stryker's `file:from-to` must name.
		const text = readFileSync(join(repo, 'nodes/a.ts'), 'utf8').split('\n');
		expect(text.slice(10, 13)).toStrictEqual(['new A', 'new B', 'new C']);
		expect(text[4]).toBe('changed 5');
	});

	test('no change, no line', () => {
		expect(linesAdded(git('diff', '-U0', '--no-color', 'HEAD', 'HEAD'), () => true)).toStrictEqual([]);
	});
});

describe('the tests a changed file\'s mutants meet (test/mutation/ownTests.json)', () => {
	const map = {
		own: { 'nodes/x/': ['t/folder'], 'nodes/x/deep.ts': ['t/deep'], 'nodes/y.ts': ['t/y', 't/folder'] },
		otherwise: ['t/unit/**'],
	};
	test('the file\'s own entry, else its folder\'s, else the fallback; each test once', () => {
		expect(testsOf(['nodes/x/deep.ts'], map)).toStrictEqual(['t/deep']);
		expect(testsOf(['nodes/x/other.ts', 'nodes/y.ts'], map)).toStrictEqual(['t/folder', 't/y']);
		expect(testsOf(['nodes/y.tsx', 'nodes/xx.ts'], map)).toStrictEqual(['t/unit/**']);
	});

	test('every test the project\'s map names exists, and every file or folder it names is shipped code', () => {
		const root = join(__dirname, '../..');
		const project = JSON.parse(readFileSync(join(root, 'test/mutation/ownTests.json'), 'utf8')) as { own: Record<string, string[]> };
		for (const [shipped, tests] of Object.entries(project.own)) {
			expect(() => readFileSync(join(root, shipped.replace(/\/$/, '/index.ts')))).not.toThrow();
			for (const test of tests) expect(() => readFileSync(join(root, test))).not.toThrow();
		}
	});
});
