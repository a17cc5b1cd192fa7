// `npm run screenshot` (with `npm start` running): the editor as a user sees it, for the README.
// Uses Debian's Chromium (apt-get install chromium); playwright-core drives it and downloads nothing.
import { join } from 'path';
import { chromium } from 'playwright-core';
import type { Page } from 'playwright-core';

import { projectRoot } from './paths';
import { DEMO_OWNER, EXAMPLE_IDS, NATIVE_CREDENTIAL_ID } from './workspace';

const shot = (name: string) => join(projectRoot, 'docs', name);
const NODE_TYPE = 'n8n-nodes-job-execution.jobExecution';
const nativeCredential = { jobExecutionApi: { id: NATIVE_CREDENTIAL_ID, name: 'Job Execution API (reference server)' } };

// A throw-away workflow of version 2 nodes (what a new node is), made and removed through the editor's own REST API with the page's session.
const SCRATCH_WORKFLOW = {
	name: 'Screenshot scratch (removed afterwards)',
	nodes: [
		{ id: 's1', name: 'Submit a job', type: NODE_TYPE, typeVersion: 2, position: [0, 0], credentials: nativeCredential, parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'submit', flowFileName: '/Shared/Flows/sales.flow', runProfileName: { __rl: true, mode: 'list', value: 'default' } } },
		{ id: 's2', name: 'Get a job', type: NODE_TYPE, typeVersion: 2, position: [300, 0], credentials: nativeCredential, parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'get', jobId: { __rl: true, mode: 'list', value: '' } } },
	],
	connections: {},
	settings: {},
};

async function editorApi(page: Page, method: string, path: string, body?: unknown): Promise<{ data?: { id?: string } }> {
	return await page.evaluate(
		async ([method, path, body]) => {
			const response = await fetch(path, {
				method,
				headers: { 'content-type': 'application/json', 'browser-id': (globalThis as unknown as { localStorage: { getItem(key: string): string | null } }).localStorage.getItem('n8n-browserId') ?? '' },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
			if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status}`);
			return (await response.json()) as { data?: { id?: string } };
		},
		[method, path, body] as const,
	);
}

async function openNode(page: Page, name: string): Promise<void> {
	await page.locator('.vue-flow__node').filter({ hasText: name }).dblclick({ force: true });
	await page.waitForTimeout(2500);
}

// The example run: the canvas with each node's item count, then the Submit node's output.
async function exampleShots(page: Page, editor: string): Promise<void> {
	await page.goto(`${editor}/workflow/${EXAMPLE_IDS['submit-and-wait']}`);
	await page.locator('.vue-flow__node').first().waitFor({ timeout: 30_000 });
	await page.getByRole('button', { name: /execute workflow/i }).first().click({ force: true });
	await page.getByText(/executed successfully/i).first().waitFor({ timeout: 60_000 });
	await page.waitForTimeout(1000);
	await page.screenshot({ path: shot('editor-workflow.png') });
	await openNode(page, 'Submit and wait');
	await page.screenshot({ path: shot('editor-node.png') });
}

// A new Submit node: the Credential dropdown (both kinds listed) and the notice; a Get node with its Job ID list open.
async function scratchShots(page: Page, editor: string): Promise<void> {
	const created = await editorApi(page, 'POST', '/rest/workflows', SCRATCH_WORKFLOW);
	const id = created.data?.id;
	if (!id) throw new Error('n8n did not return the scratch workflow id');
	try {
		await page.goto(`${editor}/workflow/${id}`);
		await page.locator('.vue-flow__node').first().waitFor({ timeout: 30_000 });
		await openNode(page, 'Submit a job');
		await page.locator('[data-test-id="node-credentials-select"]').first().click({ force: true });
		await page.waitForTimeout(1500);
		await page.screenshot({ path: shot('editor-credential.png') });
		await page.keyboard.press('Escape');
		await page.waitForTimeout(500);
		// The node panel's close button (top right of the 1440×810 viewport).
		await page.mouse.click(1395, 45);
		await page.waitForTimeout(1000);
		await openNode(page, 'Get a job');
		await page.locator('[data-test-id="rlc-input"]').first().click({ force: true });
		await page.getByText(/ · (COMPLETED|RUNNING|QUEUED|ERROR|CANCELLED) · /).first().waitFor({ timeout: 30_000 });
		await page.waitForTimeout(1000);
		await page.screenshot({ path: shot('editor-job-id-list.png') });
	} finally {
		await editorApi(page, 'POST', `/rest/workflows/${id}/archive`).catch(() => undefined);
		await editorApi(page, 'DELETE', `/rest/workflows/${id}`).catch(() => undefined);
	}
}

async function main(): Promise<void> {
	const editor = process.argv[2] ?? 'http://127.0.0.1:5678';
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
		// The closed network refuses Chromium's own background connections; without these it stalls on them.
		args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
	});
	try {
		const page = await browser.newPage({ viewport: { width: 1440, height: 810 } });
		await page.goto(`${editor}/signin`);
		await page.locator('input[name="emailOrLdapLoginId"], input[type="email"]').first().fill(DEMO_OWNER.email);
		await page.locator('input[name="password"]').fill(DEMO_OWNER.password);
		await page.keyboard.press('Enter');
		await page.waitForURL((url) => !url.pathname.includes('signin'), { timeout: 30_000 });
		await exampleShots(page, editor);
		await scratchShots(page, editor);
		process.stderr.write('wrote docs/editor-workflow.png, editor-node.png, editor-credential.png and editor-job-id-list.png\n');
	} finally {
		await browser.close();
	}
}

main().catch((err: unknown) => {
	process.stderr.write(`error: ${(err as Error).message}\n`);
	process.exit(1);
});
