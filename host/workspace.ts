// Puts the package, credentials and workflows into an n8n user folder the way a user's n8n would have them.
import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { basename, dirname, join } from 'path';

import type { N8nInstance } from './n8n';
import { n8nCommandOk } from './n8n';
import { PACKAGE_NAME, projectRoot } from './paths';

// `npm pack` of the built project: exactly the files users get from the registry.
export function packProject(): string {
	const destination = mkdtempSync(join(tmpdir(), 'job-execution-pack-'));
	const packed = JSON.parse(
		execFileSync('npm', ['pack', '--json', '--pack-destination', destination, '--loglevel=error'], { cwd: projectRoot, encoding: 'utf8' }),
	) as Array<{ filename: string }>;
	return join(destination, packed[0].filename);
}

// As n8n's community-package install does: unpacked under <user folder>/.n8n/nodes/node_modules/<name>.
export function installPackage(tarball: string, userFolder: string): void {
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const target = join(nodesDir, 'node_modules', PACKAGE_NAME);
	rmSync(target, { recursive: true, force: true });
	mkdirSync(target, { recursive: true });
	execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
	const version = (JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as { version: string }).version;
	writeFileSync(join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [PACKAGE_NAME]: version } }, null, 2));
}

// Pack, install, and remove the tarball's temp folder (a run of `npm start` or the demo leaves nothing in /tmp).
export function installPackedProject(userFolder: string): void {
	const tarball = packProject();
	try {
		installPackage(tarball, userFolder);
	} finally {
		rmSync(dirname(tarball), { recursive: true, force: true });
	}
}

export interface CredentialRecord {
	id: string;
	name: string;
	type: 'jobExecutionApi' | 'jobExecutionRelayApi' | 'httpBearerAuth';
	data: Record<string, string | boolean>;
	// n8n's editor preselects, in a new node, the usable credential updated last.
	updatedAt?: string;
}

export interface ServiceAccess {
	url: string;
	nativeToken: string;
	relayApiKey: string;
	userApiKey: string;
}

// The ids the example workflows refer to.
export const NATIVE_CREDENTIAL_ID = 'jobexec-native';
export const RELAY_CREDENTIAL_ID = 'jobexec-relay';
// The bearer token MCP clients (AI agents) present to the MCP example's server trigger.
export const MCP_BEARER_CREDENTIAL_ID = 'jobexec-mcp-bearer';

export function mcpBearerCredential(token: string): CredentialRecord {
	return { id: MCP_BEARER_CREDENTIAL_ID, name: 'MCP clients (bearer token)', type: 'httpBearerAuth', data: { token } };
}

// A new node preselects the credential with the latest updatedAt (n8n-editor-ui 2.41.1, useCanvasOperations:
// `reduce((e, t) => e.updatedAt > t.updatedAt ? e : t)` over the node's credentials; a tie picks the later type, the
// relay). The native one is made a second newer, so a first node asks for a flow path, as the examples do.
export function serviceCredentials(service: ServiceAccess, now = Date.now()): CredentialRecord[] {
	return [
		{
			id: NATIVE_CREDENTIAL_ID,
			name: 'Job Execution API (reference server)',
			type: 'jobExecutionApi',
			data: { baseUrl: service.url, authType: 'bearerToken', token: service.nativeToken },
			updatedAt: new Date(now).toISOString(),
		},
		{
			id: RELAY_CREDENTIAL_ID,
			name: 'Job Execution Relay API (reference server)',
			type: 'jobExecutionRelayApi',
			data: { relayUrl: service.url, apiKey: service.relayApiKey, userApiKey: service.userApiKey },
			updatedAt: new Date(now - 1000).toISOString(),
		},
	];
}

/** A node as n8n's workflow export writes it. */
export interface NodeRecord {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	webhookId?: string;
	onError?: 'continueRegularOutput';
	executeOnce?: boolean;
}

export interface WorkflowRecord {
	id: string;
	name: string;
	active: boolean;
	nodes: unknown[];
	connections: unknown;
	settings?: unknown;
}

const MAX_WORKFLOW_ID_LENGTH = 16;

// Stable ids, so a re-import replaces the workflow instead of adding a copy, and `n8n execute --id` can name it.
export const EXAMPLE_IDS: Record<string, string> = {
	'submit-and-wait': 'jobExecExSubmit1',
	'trigger-on-completed': 'jobExecExTrigger',
	'get-many-and-forward': 'jobExecExGetMany',
	'get-job-and-navigation-url': 'jobExecExGetNav1',
	'mcp-server-for-agents': 'jobExecExMcpSrv1',
	'submit-and-wait-durably': 'jobExecExDurable',
};

export function exampleWorkflows(): WorkflowRecord[] {
	const dir = join(projectRoot, 'examples');
	return readdirSync(dir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => {
			const id = EXAMPLE_IDS[basename(file, '.json')];
			if (!id) throw new Error(`examples/${file} has no id in host/workspace.ts`);
			return { ...(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Omit<WorkflowRecord, 'id' | 'active'>), id, active: false };
		});
}

export async function importIntoN8n(n8n: N8nInstance, credentials: CredentialRecord[], workflows: WorkflowRecord[]): Promise<void> {
	// n8n 1.x silently never saves the static data (a trigger's state) of a workflow whose id is longer.
	const tooLong = workflows.find((workflow) => workflow.id.length > MAX_WORKFLOW_ID_LENGTH);
	if (tooLong) throw new Error(`workflow id "${tooLong.id}" is longer than ${MAX_WORKFLOW_ID_LENGTH} characters`);
	const dir = mkdtempSync(join(tmpdir(), 'job-execution-import-'));
	try {
		if (credentials.length > 0) {
			// n8n encrypts the plain `data` with the instance's key on import; the file is removed right after.
			writeFileSync(join(dir, 'credentials.json'), JSON.stringify(credentials), { mode: 0o600 });
			await n8nCommandOk(n8n, ['import:credentials', `--input=${join(dir, 'credentials.json')}`]);
		}
		if (workflows.length > 0) {
			const workflowDir = join(dir, 'workflows');
			mkdirSync(workflowDir);
			for (const workflow of workflows) writeFileSync(join(workflowDir, `${workflow.id}.json`), JSON.stringify(workflow));
			await n8nCommandOk(n8n, ['import:workflow', '--separate', `--input=${workflowDir}`]);
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

export async function activateWorkflow(n8n: N8nInstance, workflowId: string): Promise<void> {
	await n8nCommandOk(n8n, n8n.host.spec.activateArgs(workflowId));
}

export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

// Loopback-only instances of `npm start` and the demo: a fixed, printed login is the point.
export const DEMO_OWNER: Owner = { email: 'demo@example.com', password: 'JobExecution1', firstName: 'Job', lastName: 'Builder' };

// The first user of a fresh instance; afterwards the setup endpoint refuses, which is fine.
export async function createOwner(n8nUrl: string, owner: Owner): Promise<'created' | 'exists'> {
	const response = await fetch(`${n8nUrl}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': 'job-execution-setup' },
		body: JSON.stringify(owner),
	});
	const text = await response.text();
	if (response.ok) return 'created';
	if (response.status === 400 && /already/i.test(text)) return 'exists';
	throw new Error(`n8n refused the owner account (HTTP ${response.status}): ${text.slice(0, 500)}`);
}
