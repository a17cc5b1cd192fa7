/**
 * n8n's own nodes, the way a user has them: `n8n-nodes-base` from the pinned n8n host the project installs
 * (`host/install.ts`, reused from ~/.cache/n8n-nodes-job-execution; installed on first use like `npm start`
 * does). They run in the same in-process engine as our nodes (`test/harness/engine.ts`). As inside n8n, where
 * n8n-nodes-base and the engine share one n8n-workflow and one n8n-core, their imports of those two resolve to
 * the engine's copies (the same versions as the host's, checked here).
 */
import { readFileSync } from 'fs';
import Module, { createRequire } from 'module';
import { join } from 'path';

import { DataDeduplicationService } from 'n8n-core';
import type { ICredentialType, INodeType, IVersionedNodeType } from 'n8n-workflow';

import { ensureHost } from '../../host/install';
import { hostSpec } from '../../host/hosts';
import { credentialTypes, nodeClasses } from '../../testkit/engine';
import { InMemoryProcessedDataStore } from './processedDataStore';

export const HOST_VERSION = '2.41.1';
export const HTTP_REQUEST = 'n8n-nodes-base.httpRequest';
export const WAIT = 'n8n-nodes-base.wait';
export const IF = 'n8n-nodes-base.if';
export const REMOVE_DUPLICATES = 'n8n-nodes-base.removeDuplicates';
export const SCHEDULE_TRIGGER = 'n8n-nodes-base.scheduleTrigger';

const NODES: Record<string, [file: string, className: string]> = {
	[HTTP_REQUEST]: ['nodes/HttpRequest/HttpRequest.node.js', 'HttpRequest'],
	[WAIT]: ['nodes/Wait/Wait.node.js', 'Wait'],
	[IF]: ['nodes/If/If.node.js', 'If'],
	[REMOVE_DUPLICATES]: ['nodes/Transform/RemoveDuplicates/RemoveDuplicates.node.js', 'RemoveDuplicates'],
	[SCHEDULE_TRIGGER]: ['nodes/Schedule/ScheduleTrigger.node.js', 'ScheduleTrigger'],
};
const CREDENTIALS: Record<string, [file: string, className: string]> = {
	httpBearerAuth: ['credentials/HttpBearerAuth.credentials.js', 'HttpBearerAuth'],
	httpCustomAuth: ['credentials/HttpCustomAuth.credentials.js', 'HttpCustomAuth'],
};
const SHARED_WITH_ENGINE = ['n8n-workflow', 'n8n-core'];

/** What n8n's database keeps for "Remove Items Processed in Previous Executions" (see processedDataStore.ts). */
export const processedData = new InMemoryProcessedDataStore();

let loaded: Promise<string> | undefined;

function versionOf(packageDir: string): string {
	return (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Makes n8n-nodes-base's `require('n8n-workflow' | 'n8n-core')` return the engine's copies. */
function shareEngineModules(hostModules: string): void {
	for (const name of SHARED_WITH_ENGINE) {
		const engineVersion = versionOf(join(require.resolve(`${name}/package.json`), '..'));
		const hostVersion = versionOf(join(hostModules, name));
		if (engineVersion !== hostVersion) throw new Error(`${name}: the engine has ${engineVersion}, the n8n ${HOST_VERSION} host ${hostVersion}`);
	}
	const engineEntry = new Map(SHARED_WITH_ENGINE.map((name) => [name, require.resolve(name)]));
	const resolver = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
	const original = resolver._resolveFilename;
	resolver._resolveFilename = function (request: string, ...rest: unknown[]) {
		return engineEntry.get(request) ?? original.call(this, request, ...rest);
	};
}

async function load(): Promise<string> {
	const host = await ensureHost(hostSpec(HOST_VERSION), (line) => process.stderr.write(`${line}\n`));
	const hostModules = join(host.dir, 'node_modules');
	const base = join(hostModules, 'n8n-nodes-base');
	shareEngineModules(hostModules);
	const loadFromHost = createRequire(join(base, 'package.json'));
	for (const [type, [file, className]] of Object.entries(NODES)) {
		const exported = loadFromHost(join(base, 'dist', file)) as Record<string, new () => INodeType | IVersionedNodeType>;
		nodeClasses[type] = new exported[className]() as INodeType;
	}
	for (const [type, [file, className]] of Object.entries(CREDENTIALS)) {
		const exported = loadFromHost(join(base, 'dist', file)) as Record<string, new () => ICredentialType>;
		credentialTypes[type] = new exported[className]();
	}
	// n8n's server sets this up at start with its database-backed store.
	await DataDeduplicationService.init(processedData);
	return `n8n-nodes-base ${versionOf(base)} from ${host.dir}`;
}

/** Registers n8n's HTTP Request, Wait, If, Remove Duplicates and Schedule Trigger nodes with the engine, once. */
export function loadN8nBaseNodes(): Promise<string> {
	loaded ??= load();
	return loaded;
}
