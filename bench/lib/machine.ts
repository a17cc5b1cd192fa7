/** What the figures were measured on: they only compare with figures from the same machine. */
import { existsSync, readFileSync } from 'fs';
import { cpus, loadavg, release, totalmem, type as osType, arch } from 'os';
import { dirname, join } from 'path';

function packageVersion(name: string): string {
	let directory = dirname(require.resolve(name));
	for (;;) {
		const manifest = join(directory, 'package.json');
		if (existsSync(manifest)) {
			const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
			if (parsed.name === name) return parsed.version ?? 'unknown';
		}
		const parent = dirname(directory);
		if (parent === directory) return 'unknown';
		directory = parent;
	}
}

function distribution(): string {
	try {
		const match = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'));
		return match ? `${match[1]}, ` : '';
	} catch {
		return '';
	}
}

export function describeMachine(): string[] {
	const cpuList = cpus();
	return [
		`CPU: ${cpuList[0]?.model.trim() ?? 'unknown'}, ${cpuList.length} cores; memory ${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
		`OS: ${distribution()}${osType()} ${release()} ${arch()}`,
		`Node ${process.version}; n8n-workflow ${packageVersion('n8n-workflow')}, n8n-core ${packageVersion('n8n-core')}, axios ${packageVersion('axios')}, autocannon ${packageVersion('autocannon')}`,
	];
}

export function loadAverage(): string {
	return loadavg()
		.map((value) => value.toFixed(2))
		.join(' / ');
}
