/**
 * The rooms of the shipped code and who may import whom: a node folder imports only from itself and from
 * `nodes/shared/`; `nodes/shared/` imports only from itself; credentials import only from `nodes/shared/`. Shipped
 * code imports no package but `n8n-workflow` (and Node's built-ins through the `node:` prefix). No shipped function
 * is longer than 60 lines.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

import * as ts from 'typescript';

const ROOT = resolve(__dirname, '../..');

function sourceFiles(directory: string): string[] {
	return readdirSync(directory).flatMap((name) => {
		const path = join(directory, name);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return path.endsWith('.ts') ? [path] : [];
	});
}

/** The room of a file: `nodes/<folder>` or `credentials`. */
function roomOf(path: string): string {
	const parts = relative(ROOT, path).split(sep);
	return parts[0] === 'nodes' ? `nodes/${parts[1]}` : parts[0];
}

const ALLOWED: Record<string, (room: string) => boolean> = {
	'nodes/shared': (room) => room === 'nodes/shared',
	credentials: (room) => room === 'nodes/shared' || room === 'credentials',
};

/** Every import of a file that breaks the rule, as "<file> imports <specifier>". */
export function violations(path: string, text: string): string[] {
	const from = roomOf(path);
	const allowed = ALLOWED[from] ?? ((room: string) => room === from || room === 'nodes/shared');
	const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s+'([^']+)'/g)].map((match) => match[1]);
	return specifiers
		.filter((specifier) => {
			if (!specifier.startsWith('.')) return specifier !== 'n8n-workflow' && !specifier.startsWith('node:');
			return !allowed(roomOf(resolve(dirname(path), specifier)));
		})
		.map((specifier) => `${relative(ROOT, path)} imports ${specifier}`);
}

describe('who may import whom', () => {
	test('no shipped file imports across rooms or any package but n8n-workflow', () => {
		const files = [...sourceFiles(join(ROOT, 'nodes')), ...sourceFiles(join(ROOT, 'credentials'))];
		expect(files.length).toBeGreaterThan(20);
		expect(files.flatMap((path) => violations(path, readFileSync(path, 'utf8')))).toEqual([]);
	});

	test('the check catches a trigger importing from the action node, and shared importing a node', () => {
		const trigger = join(ROOT, 'nodes/JobExecutionTrigger/x.ts');
		const shared = join(ROOT, 'nodes/shared/x.ts');
		expect(violations(trigger, "import { a } from '../JobExecution/transport';")).toEqual([
			'nodes/JobExecutionTrigger/x.ts imports ../JobExecution/transport',
		]);
		expect(violations(shared, "import type { b } from '../JobExecution/helpers/settle';")).toHaveLength(1);
		expect(violations(shared, "export { c } from './jobVocabulary';\nimport axios from 'axios';")).toEqual(['nodes/shared/x.ts imports axios']);
		expect(violations(trigger, "import { d } from '../shared/jobVocabulary';\nimport { e } from './jobStatusTracker';")).toEqual([]);
	});
});

const MAX_FUNCTION_LINES = 60;

/** Functions (declarations, methods, arrows) longer than the limit, as "<file>:<line> <name> (<n> lines)". */
export function longFunctions(path: string, text: string, limit = MAX_FUNCTION_LINES): string[] {
	const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const visit = (node: ts.Node): void => {
		if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
			const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
			const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
			const name = node.name?.getText() ?? '(anonymous)';
			if (lines > limit) found.push(`${relative(ROOT, path)}:${first + 1} ${name} (${lines} lines)`);
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}

describe('short functions', () => {
	test(`no function in nodes/ or credentials/ is longer than ${MAX_FUNCTION_LINES} lines`, () => {
		const files = [...sourceFiles(join(ROOT, 'nodes')), ...sourceFiles(join(ROOT, 'credentials'))];
		expect(files.flatMap((path) => longFunctions(path, readFileSync(path, 'utf8')))).toEqual([]);
	});

	test('the check finds a long function', () => {
		const body = Array.from({ length: 61 }, (_, n) => `\tconst v${n} = ${n};`).join('\n');
		expect(longFunctions(join(ROOT, 'nodes/x.ts'), `function long() {\n${body}\n}`)).toEqual(['nodes/x.ts:1 long (63 lines)']);
	});
});
