/** What the figures were measured on: they only compare with figures from the same machine. */
import { existsSync, readFileSync } from 'fs';
import { cpus, loadavg, release, totalmem, type as osType, arch } from 'os';
import { dirname, join } from 'path';

/** The manifest of package `name` as a module in `from` (a directory; default this one) would load it. */
function packageManifest(name: string, from?: string): { directory: string; version: string } {
	let directory = dirname(require.resolve(name, from ? { paths: [from] } : undefined));
	for (;;) {
		const manifest = join(directory, 'package.json');
		if (existsSync(manifest)) {
			const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
			if (parsed.name === name) return { directory, version: parsed.version ?? 'unknown' };
		}
		const parent = dirname(directory);
		if (parent === directory) return { directory, version: 'unknown' };
		directory = parent;
	}
}
const packageVersion = (name: string, from?: string) => packageManifest(name, from).version;

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
	// n8n's request helper sends through @n8n/backend-network, whose own axios may differ from the top-level one.
	const network = packageManifest('@n8n/backend-network', packageManifest('n8n-core').directory);
	return [
		`CPU: ${cpuList[0]?.model.trim() ?? 'unknown'}, ${cpuList.length} cores; memory ${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
		`OS: ${distribution()}${osType()} ${release()} ${arch()}`,
		`Node ${process.version}; n8n-workflow ${packageVersion('n8n-workflow')}, n8n-core ${packageVersion('n8n-core')} (its request helper: @n8n/backend-network ${network.version}, axios ${packageVersion('axios', network.directory)}), autocannon ${packageVersion('autocannon')}`,
	];
}

export function loadAverage(): string {
	return loadavg()
		.map((value) => value.toFixed(2))
		.join(' / ');
}
