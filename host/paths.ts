// Paths of the project, whether this runs compiled (dist/host) or from source (ts-jest).
import { existsSync, readFileSync } from 'fs';
import { dirname, join } from 'path';

export const PACKAGE_NAME = 'n8n-nodes-job-execution';

function findProjectRoot(from: string): string {
	for (let dir = from; ; dir = dirname(dir)) {
		const manifest = join(dir, 'package.json');
		if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === PACKAGE_NAME) return dir;
		if (dirname(dir) === dir) throw new Error(`cannot find the ${PACKAGE_NAME} project above ${from}`);
	}
}

export const projectRoot = findProjectRoot(__dirname);
