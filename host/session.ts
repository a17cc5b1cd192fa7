// One ready set-up shared by `npm start`, `npm run demo` and the end-to-end tests: a real n8n with this package
// loaded, credentials for both interfaces pointing at a running reference server.
import { randomBytes } from 'crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';

import { startReferenceServer } from '../server';
import type { ReferenceServer, ReferenceServerOptions } from '../server';
import { hostSpec } from './hosts';
import { ensureHost } from './install';
import type { Log } from './install';
import { freePort } from './n8n';
import type { N8nInstance } from './n8n';
import type { ServiceAccess } from './workspace';
import { importIntoN8n, installPackedProject, mcpBearerCredential, serviceCredentials } from './workspace';

export interface SessionOptions {
	hostVersion: string;
	userFolder: string;
	log: Log;
	n8nPort?: number;
	serverPort?: number;
	brokerPort?: number;
	// Settings for every n8n command of this session (queue mode: Postgres, Redis).
	n8nEnv?: Record<string, string>;
	server?: Omit<ReferenceServerOptions, 'host' | 'port' | 'nativeAuth'>;
}

export interface Session {
	n8n: N8nInstance;
	server: ReferenceServer;
	service: ServiceAccess;
	// The bearer token MCP clients present to the MCP example's server trigger (credential "MCP clients (bearer token)").
	mcpToken: string;
	// True when the user folder was created now (nothing of the user's to keep).
	freshUserFolder: boolean;
	close(): Promise<void>;
}

// Kept beside n8n's data: credentials imported with one key cannot be read with another.
function encryptionKeyOf(userFolder: string): string {
	const file = join(userFolder, 'encryption-key');
	if (!existsSync(file)) writeFileSync(file, randomBytes(24).toString('base64url'), { mode: 0o600 });
	return readFileSync(file, 'utf8').trim();
}

interface DemoKeys {
	nativeToken: string;
	relayApiKey: string;
	userApiKey: string;
	mcpToken: string;
}

// The service's keys and the MCP token, kept beside n8n's data: a saved MCP client or curl line works after a restart.
function demoKeysOf(userFolder: string): DemoKeys {
	const file = join(userFolder, 'demo-keys.json');
	const fresh = (): DemoKeys => ({
		nativeToken: randomBytes(18).toString('base64url'),
		relayApiKey: randomBytes(18).toString('base64url'),
		userApiKey: randomBytes(18).toString('base64url'),
		mcpToken: randomBytes(18).toString('base64url'),
	});
	if (existsSync(file)) {
		const kept = JSON.parse(readFileSync(file, 'utf8')) as Partial<DemoKeys>;
		const keys = { ...fresh(), ...kept };
		if (Object.values(keys).every((value) => typeof value === 'string' && value !== '')) return keys;
	}
	const keys = fresh();
	writeFileSync(file, JSON.stringify(keys, null, 2), { mode: 0o600 });
	return keys;
}

export async function openSession(options: SessionOptions): Promise<Session> {
	const { log } = options;
	const host = await ensureHost(hostSpec(options.hostVersion), log);

	const freshUserFolder = !existsSync(join(options.userFolder, 'encryption-key'));
	mkdirSync(options.userFolder, { recursive: true });
	const n8n: N8nInstance = {
		host,
		userFolder: options.userFolder,
		encryptionKey: encryptionKeyOf(options.userFolder),
		port: options.n8nPort ?? (await freePort()),
		brokerPort: options.brokerPort ?? (await freePort()),
		env: options.n8nEnv,
	};

	log('loading the package into n8n as a community package (npm pack, unpacked under .n8n/nodes)');
	installPackedProject(options.userFolder);

	const { nativeToken, relayApiKey, userApiKey, mcpToken } = demoKeysOf(options.userFolder);
	const server = await startReferenceServer({
		relayApiKey,
		userApiKey,
		...options.server,
		host: '127.0.0.1',
		port: options.serverPort ?? 0,
		nativeAuth: { type: 'bearer', token: nativeToken },
	});
	const service: ServiceAccess = { url: server.url, nativeToken, relayApiKey: server.relayApiKey, userApiKey: server.userApiKey };
	try {
		log('importing the credentials for the native and the relay API, and the MCP clients\' bearer token');
		await importIntoN8n(n8n, [...serviceCredentials(service), mcpBearerCredential(mcpToken)], []);
	} catch (err) {
		await server.close();
		throw err;
	}
	return { n8n, server, service, mcpToken, freshUserFolder, close: () => server.close() };
}
