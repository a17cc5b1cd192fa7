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

/** A shipped file's path relative to the root, with forward slashes. */
function shippedPath(path: string): string {
	return relative(ROOT, path).split(sep).join('/');
}

/** What a file exports: its own declarations, and what it re-exports (`export … from`, or `export { x }` of an import). */
export function exportsOf(path: string, text: string): { declared: string[]; reexported: Array<{ name: string; from: string }> } {
	const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
	const imported = new Map<string, string>();
	const declared: string[] = [];
	const reexported: Array<{ name: string; from: string }> = [];
	const exported = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
	for (const statement of source.statements) {
		if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
			const from = statement.moduleSpecifier.text;
			const clause = statement.importClause;
			if (clause?.name) imported.set(clause.name.text, from);
			const bindings = clause?.namedBindings;
			if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) imported.set(element.name.text, from);
			if (bindings && ts.isNamespaceImport(bindings)) imported.set(bindings.name.text, from);
		} else if (ts.isExportDeclaration(statement)) {
			const from = statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) ? statement.moduleSpecifier.text : undefined;
			const elements = statement.exportClause && ts.isNamedExports(statement.exportClause) ? statement.exportClause.elements : [];
			if (from !== undefined && elements.length === 0) reexported.push({ name: '*', from });
			for (const element of elements) {
				const local = (element.propertyName ?? element.name).text;
				const origin = from ?? imported.get(local);
				if (origin !== undefined) reexported.push({ name: element.name.text, from: origin });
				else declared.push(element.name.text);
			}
		} else if (exported(statement)) {
			if (ts.isVariableStatement(statement)) {
				for (const declaration of statement.declarationList.declarations) declared.push(declaration.name.getText(source));
			} else if ('name' in statement && statement.name && ts.isIdentifier(statement.name as ts.Node)) {
				declared.push((statement.name as ts.Identifier).text);
			}
		}
	}
	return { declared, reexported };
}

const VOCABULARY = 'nodes/shared/jobVocabulary.ts';

/**
 * Where a rule may be imported from: a name of the vocabulary is exported by jobVocabulary.ts only, and nothing
 * re-exports a module of nodes/shared but an index. Returns "<file> exports <name> …" for each break.
 */
export function importPointViolations(files: Array<{ path: string; text: string }>): string[] {
	const vocabularyFile = files.find((file) => shippedPath(file.path) === VOCABULARY);
	const vocabulary = new Set(vocabularyFile ? exportsOf(vocabularyFile.path, vocabularyFile.text).declared : []);
	const found: string[] = [];
	for (const { path, text } of files) {
		const file = shippedPath(path);
		if (file === VOCABULARY) continue;
		const { declared, reexported } = exportsOf(path, text);
		for (const name of declared) if (vocabulary.has(name)) found.push(`${file} exports ${name}, a rule of jobVocabulary`);
		for (const { name, from } of reexported) {
			const target = from.startsWith('.') ? shippedPath(resolve(dirname(path), from)) : from;
			if (vocabulary.has(name) || target === VOCABULARY.replace(/\.ts$/, '')) found.push(`${file} exports ${name}, a rule of jobVocabulary`);
			else if (target.startsWith('nodes/shared/') && !file.endsWith('/index.ts')) found.push(`${file} re-exports ${name} from ${from}`);
		}
	}
	return found;
}

describe('one import point per rule', () => {
	const files = [...sourceFiles(join(ROOT, 'nodes')), ...sourceFiles(join(ROOT, 'credentials'))].map((path) => ({ path, text: readFileSync(path, 'utf8') }));

	test('the vocabulary is exported by jobVocabulary only; only an index re-exports a module of nodes/shared', () => {
		expect(importPointViolations(files)).toEqual([]);
	});

	test('the check catches a vocabulary rule exported elsewhere, by name or renamed, and a re-export that is not an index', () => {
		const vocabulary = { path: join(ROOT, VOCABULARY), text: 'export function isUuid(text: string) { return true; }\nexport const MAX = 1;' };
		const at = (file: string, text: string) => importPointViolations([vocabulary, { path: join(ROOT, file), text }]);
		expect(at('nodes/shared/transport/requestBuilders.ts', "export { isUuid } from '../jobVocabulary';")).toEqual([
			'nodes/shared/transport/requestBuilders.ts exports isUuid, a rule of jobVocabulary',
		]);
		expect(at('nodes/JobExecution/helpers/x.ts', "import { isUuid } from '../../shared/jobVocabulary';\nexport { isUuid };")).toEqual([
			'nodes/JobExecution/helpers/x.ts exports isUuid, a rule of jobVocabulary',
		]);
		expect(at('nodes/shared/x.ts', 'export const MAX = 2;')).toEqual(['nodes/shared/x.ts exports MAX, a rule of jobVocabulary']);
		expect(at('nodes/shared/jobOutput.ts', "export { asJobArray as list } from './jobList';")).toEqual([
			'nodes/shared/jobOutput.ts re-exports list from ./jobList',
		]);
		expect(at('nodes/shared/jobOutput.ts', "export * from './jobList';")).toEqual(['nodes/shared/jobOutput.ts re-exports * from ./jobList']);
		expect(at('nodes/shared/transport/index.ts', "export * from './answer';\nexport { isUuid as u } from '../jobVocabulary';")).toEqual([
			'nodes/shared/transport/index.ts exports u, a rule of jobVocabulary',
		]);
		expect(at('nodes/shared/x.ts', "import { isUuid } from './jobVocabulary';\nexport function own() { return isUuid(''); }")).toEqual([]);
	});
});

const ACTIONS = join(ROOT, 'nodes/JobExecution/actions');

/**
 * The single registration: every `<resource>/*.operation.ts` is passed to its resource's defineResource, every
 * resource is listed in resources.ts, and no file but registry.ts writes an Operation field or an operation's
 * display rule (they are derived). tsc checks the rest: a module without option, properties or execute, or listed
 * under a key that is not its option value, does not compile.
 */
export function registrationProblems(files: Array<{ path: string; text: string }>): string[] {
	const found: string[] = [];
	const byPath = new Map(files.map((file) => [shippedPath(file.path), file.text]));
	const resourcesText = byPath.get('nodes/JobExecution/actions/resources.ts') ?? '';
	for (const [file, text] of byPath) {
		const match = /^nodes\/JobExecution\/actions\/(\w+)\/(\w+)\.operation\.ts$/.exec(file);
		if (match) {
			const [, folder, name] = match;
			const resourceFile = [...byPath.keys()].find((path) => path.startsWith(`nodes/JobExecution/actions/${folder}/`) && path.endsWith('.resource.ts'));
			const resourceText = resourceFile ? (byPath.get(resourceFile) ?? '') : '';
			const imported = new RegExp(`import \\* as (\\w+) from '\\./${name}\\.operation'`).exec(resourceText);
			const passed = /defineResource\([^)]*\{([^}]*)\}\s*\)/s.exec(resourceText)?.[1].split(',').map((entry) => entry.trim().split(':').pop()?.trim());
			if (!imported || !passed?.includes(imported[1])) found.push(`${file} is not passed to defineResource in ${resourceFile ?? `a ${folder}/*.resource.ts`}`);
		}
		const resource = /^nodes\/JobExecution\/actions\/\w+\/(\w+)\.resource\.ts$/.exec(file);
		if (resource && !resourcesText.includes(`/${resource[1]}.resource'`)) found.push(`${file} is not listed in actions/resources.ts`);
		if (file !== 'nodes/JobExecution/actions/registry.ts' && /name: 'operation'|operation: \[/.test(text)) {
			found.push(`${file} writes an Operation field or an operation's display rule (registry.ts derives them)`);
		}
	}
	return found;
}

describe('an operation registered once', () => {
	test('every operation and resource is registered once, and nothing but the registry writes what it derives', () => {
		const files = sourceFiles(join(ROOT, 'nodes')).map((path) => ({ path, text: readFileSync(path, 'utf8') }));
		expect(files.filter(({ path }) => path.endsWith('.operation.ts')).length).toBeGreaterThanOrEqual(5);
		expect(registrationProblems(files)).toEqual([]);
	});

	test('the check catches an operation left out, a resource left out, and a hand-written display rule', () => {
		const resourceText = "import { defineResource } from '../registry';\nimport * as a from './a.operation';\nexport const r = defineResource({ name: 'R', value: 'r' }, { a });";
		const files = [
			{ path: join(ACTIONS, 'r/R.resource.ts'), text: resourceText },
			{ path: join(ACTIONS, 'r/a.operation.ts'), text: 'export const option = {};' },
			{ path: join(ACTIONS, 'resources.ts'), text: "import { r } from './r/R.resource';" },
		];
		expect(registrationProblems(files)).toEqual([]);
		expect(registrationProblems([...files, { path: join(ACTIONS, 'r/b.operation.ts'), text: '' }])).toEqual([
			'nodes/JobExecution/actions/r/b.operation.ts is not passed to defineResource in nodes/JobExecution/actions/r/R.resource.ts',
		]);
		expect(registrationProblems([...files, { path: join(ACTIONS, 's/S.resource.ts'), text: '' }])).toEqual([
			'nodes/JobExecution/actions/s/S.resource.ts is not listed in actions/resources.ts',
		]);
		const ownRule = "export const description = updateDisplayOptions({ show: { resource: ['r'], operation: ['a'] } }, properties);";
		expect(registrationProblems([files[0], { path: files[1].path, text: ownRule }, files[2]])).toEqual([
			"nodes/JobExecution/actions/r/a.operation.ts writes an Operation field or an operation's display rule (registry.ts derives them)",
		]);
	});
});
