// The few calls of n8n's own REST API (the editor's) the demo and the e2e need: log in, read a workflow's executions,
// test a credential as the editor's Test button does.
import { createRequire } from 'module';
import { join } from 'path';

import type { InstalledHost } from './install';
import type { RunData } from './n8n';
import type { Owner } from './workspace';

// n8n binds the session cookie to this header's value.
const BROWSER_ID = 'job-execution-demo';

export interface ExecutionSummary {
	id: string;
	status: string;
}

export class N8nRestClient {
	private constructor(
		private readonly url: string,
		private readonly cookie: string,
		private readonly host: InstalledHost,
	) {}

	static async login(url: string, owner: Owner, host: InstalledHost): Promise<N8nRestClient> {
		const response = await fetch(`${url}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'browser-id': BROWSER_ID },
			body: JSON.stringify({ emailOrLdapLoginId: owner.email, password: owner.password }),
		});
		await response.arrayBuffer();
		const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0];
		if (!response.ok || !cookie) throw new Error(`n8n refused the login (HTTP ${response.status})`);
		return new N8nRestClient(url, cookie, host);
	}

	private async get(path: string): Promise<unknown> {
		const response = await fetch(`${this.url}${path}`, { headers: { cookie: this.cookie, 'browser-id': BROWSER_ID } });
		if (!response.ok) throw new Error(`GET ${path}: HTTP ${response.status}`);
		return ((await response.json()) as { data: unknown }).data;
	}

	// What the editor's credential Test button does: POST /rest/credentials/test with the values as typed.
	async testCredential(id: string, type: string, data: Record<string, unknown>): Promise<{ status: string; message: string }> {
		const response = await fetch(`${this.url}/rest/credentials/test`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', cookie: this.cookie, 'browser-id': BROWSER_ID },
			body: JSON.stringify({ credentials: { id, name: 'under test', type, data } }),
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`POST /rest/credentials/test: HTTP ${response.status} ${text.slice(0, 500)}`);
		return (JSON.parse(text) as { data: { status: string; message: string } }).data;
	}

	async executions(workflowId: string): Promise<ExecutionSummary[]> {
		const data = (await this.get(`/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}`)) as { results: ExecutionSummary[] };
		return data.results;
	}

	// The execution record as n8n stores it (flatted text), e.g. to check that no secret was saved in it.
	async storedData(executionId: string): Promise<string> {
		return ((await this.get(`/rest/executions/${executionId}`)) as { data: string }).data;
	}

	async runData(executionId: string): Promise<RunData> {
		const execution = (await this.get(`/rest/executions/${executionId}`)) as { data: string };
		// Stored in the `flatted` format; parsed with the host's own copy of that package.
		const flatted = createRequire(join(this.host.dir, 'package.json'))('flatted') as { parse(text: string): { resultData: { runData: RunData } } };
		return flatted.parse(execution.data).resultData.runData;
	}
}
