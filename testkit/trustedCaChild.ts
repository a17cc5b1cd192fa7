/**
 * Node runs in a child Node.js process started with NODE_EXTRA_CA_CERTS, the way a user makes n8n trust a private
 * certificate authority: Node reads that variable once, at start, so a test process cannot take it up later. The
 * child runs the TypeScript sources through the compiler's transpileModule (no build needed), runs each step in
 * order and prints their outcomes on one `RESULT {json}` line. The servers stay in the parent, which may move their
 * clocks while the child waits.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters } from 'n8n-workflow';

import type { CredentialsMap } from './engine';

export type ChildStep =
	| { kind: 'action'; parameters: INodeParameters; credentials: CredentialsMap; typeVersion?: number }
	| { kind: 'trigger'; parameters: INodeParameters; credentials: CredentialsMap }
	| { kind: 'listSearch'; parameters: INodeParameters; credentials: CredentialsMap }
	| { kind: 'credentialTest'; type: string; data: ICredentialDataDecryptedObject };

export interface StepOutcome {
	items?: IDataObject[];
	error?: string;
	description?: string;
	/** A credential test's status and message. */
	status?: string;
	message?: string;
}

// Transpiled files are kept in the temp folder by the hash of their source: a second run skips the compiler.
const BOOTSTRAP = `
const fs = require('fs');
const version = require('typescript/package.json').version;
let ts;
const path = require('path');
const crypto = require('crypto');
const cache = path.join(require('os').tmpdir(), 'job-execution-transpiled');
fs.mkdirSync(cache, { recursive: true });
require.extensions['.ts'] = (module, filename) => {
	const source = fs.readFileSync(filename, 'utf8');
	const kept = path.join(cache, crypto.createHash('sha256').update(version + '\\0' + filename + '\\0' + source).digest('hex') + '.js');
	let outputText;
	try {
		outputText = fs.readFileSync(kept, 'utf8');
	} catch {
		ts ??= require('typescript');
		outputText = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true }, fileName: filename }).outputText;
		const temp = kept + '.' + process.pid;
		fs.writeFileSync(temp, outputText);
		fs.renameSync(temp, kept);
	}
	module._compile(outputText, filename);
};
// '.ts' before '.json': "JobExecution.node" must resolve to the node's source, not to its codex file beside it.
for (const extension of ['.json', '.node']) {
	const handler = require.extensions[extension];
	delete require.extensions[extension];
	require.extensions[extension] = handler;
}
require('./testkit/trustedCaChild.ts').main(process.argv[process.argv.length - 1]);
`;

/** Runs the steps in a child that trusts `caFile` (NODE_EXTRA_CA_CERTS); rejects when it dies or passes `timeoutMs`. */
export async function runTrustingCa(steps: ChildStep[], caFile: string, timeoutMs = 60_000): Promise<StepOutcome[]> {
	const child = spawn(process.execPath, ['-e', BOOTSTRAP, JSON.stringify(steps)], {
		cwd: resolve(__dirname, '..'),
		env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile, N8N_LOG_LEVEL: 'silent' },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
	const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
	const code = await new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
	clearTimeout(timer);
	const line = stdout.split('\n').find((text) => text.startsWith('RESULT '));
	if (code !== 0 || !line) throw new Error(`the child exited ${code}: ${stderr}`);
	return JSON.parse(line.slice('RESULT '.length)) as StepOutcome[];
}

function failed(error: unknown): StepOutcome {
	const e = error as Error & { description?: string };
	return { error: e.message, description: e.description ?? undefined };
}

async function runStep(step: ChildStep): Promise<StepOutcome> {
	// Loaded here, in the child only: the parent needs none of n8n-core for spawning.
	const { runActionNode, testCredentialAsN8nDoes } = await import('./engine');
	const { createPoller } = await import('./poller');
	const { searchList } = await import('./listSearch');
	try {
		switch (step.kind) {
			case 'action': {
				const result = await runActionNode({ parameters: step.parameters, credentials: step.credentials, typeVersion: step.typeVersion });
				return result.error ? failed(result.error) : { items: result.json };
			}
			case 'trigger': {
				const emitted = await createPoller(step.parameters, step.credentials).poll();
				return { items: (emitted ?? []).map((item) => item.json) };
			}
			case 'listSearch': {
				const found = await searchList('searchJobs', step.parameters, step.credentials);
				return { items: found.results as unknown as IDataObject[] };
			}
			default: {
				const result = await testCredentialAsN8nDoes(step.type, step.data);
				return { status: result.status, message: result.message };
			}
		}
	} catch (error) {
		return failed(error);
	}
}

export async function main(argument: string): Promise<void> {
	const outcomes: StepOutcome[] = [];
	for (const step of JSON.parse(argument) as ChildStep[]) outcomes.push(await runStep(step));
	process.stdout.write(`RESULT ${JSON.stringify(outcomes)}\n`);
	process.exit(0);
}
