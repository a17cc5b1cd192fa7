// The reference server's modules import one another without a circle (type imports included), and only
// routeTable.ts decides 404 and 405.
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';

const SERVER = join(__dirname, '../../server');
const files = readdirSync(SERVER).filter((name) => name.endsWith('.ts'));
const source = (name: string) => readFileSync(join(SERVER, name), 'utf8');
const importsOf = (name: string) => [...source(name).matchAll(/from '\.\/([A-Za-z]+)'/g)].map((m) => `${m[1]}.ts`);

describe('server modules', () => {
	it('have no import circle', () => {
		const graph = new Map(files.map((name) => [name, importsOf(name)]));
		const circles: string[] = [];
		const walk = (name: string, path: string[]) => {
			if (path.includes(name)) {
				circles.push([...path.slice(path.indexOf(name)), name].join(' -> '));
				return;
			}
			for (const next of graph.get(name) ?? []) walk(next, [...path, name]);
		};
		for (const name of files) walk(name, []);
		expect(circles).toEqual([]);
	});

	it('decide 404 and 405 in one place', () => {
		const deciding = files.filter((name) => /message\(40[45],/.test(source(name)));
		expect(deciding).toEqual(['routeTable.ts']);
	});
});
