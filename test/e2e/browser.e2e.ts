/**
 * The README's quick start in a real browser: `npm start` as a user runs it (in its own data folder and ports),
 * then Debian's Chromium logs in with the printed login, adds a Job Execution node (its credential must be the
 * native one), opens the printed navigation URL (200), opens the trigger example and picks from its Flow Name list
 * (version 2: the names of the jobs the service lists), tests a credential with a wrong key (the node's own message,
 * never the key), and finally SIGTERM to the npm process must stop n8n and the service. Issue 49: version 2.1's
 * Timeout shows its unit when added; a workflow in Asia/Kolkata shows a failed job's step and reason and its times
 * with +05:30.
 */
import { spawn } from 'child_process';
import type { ChildProcess } from 'child_process';
import { existsSync, readFileSync, rmSync } from 'fs';
import { join } from 'path';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

import { freePort } from '../../host/n8n';
import { projectRoot } from '../../host/paths';
import { EXAMPLE_IDS, NATIVE_CREDENTIAL_ID } from '../../host/workspace';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const WRONG_KEY = 'wrong-relay-key-browser-e2e-4b1f';
const log = (line: string) => process.stderr.write(`[browser e2e] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Printed {
	editor: string;
	email: string;
	password: string;
	navigationUrl: string;
	nativeToken: string;
}

// What `npm start` prints once ready, read the way a user reads the terminal.
function readPrinted(output: string): Printed {
	const pick = (pattern: RegExp, what: string) => {
		const match = pattern.exec(output);
		if (!match) throw new Error(`npm start did not print ${what}:\n${output.slice(-3000)}`);
		return match;
	};
	const login = pick(/login:\s+(\S+) \/ (\S+)/, 'the login');
	return {
		editor: pick(/editor:\s+(http\S+)/, 'the editor URL')[1],
		email: login[1],
		password: login[2],
		navigationUrl: pick(/a flow in your browser: (http\S+)/, 'a navigation URL')[1],
		nativeToken: pick(/native API: Bearer (\S+)\)/, 'the native token')[1],
	};
}

async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await probe())) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await sleep(500);
	}
}

async function answers(url: string): Promise<boolean> {
	try {
		await (await fetch(url, { signal: AbortSignal.timeout(2000) })).arrayBuffer();
		return true;
	} catch {
		return false;
	}
}

async function signIn(page: Page, printed: Printed): Promise<void> {
	await page.goto(`${printed.editor}/signin`);
	await page.locator('input[name="emailOrLdapLoginId"], input[type="email"]').first().fill(printed.email);
	await page.locator('input[name="password"]').fill(printed.password);
	await page.keyboard.press('Enter');
	await page.waitForURL((url) => !url.pathname.includes('signin'), { timeout: 60_000 });
}

// As a user adds a first step: the node creator, search "Job Execution", the trigger "On jobs reaching a status".
async function credentialOfNewNode(page: Page, printed: Printed): Promise<string> {
	await page.goto(`${printed.editor}/workflow/new`);
	await page.locator('[data-test-id="canvas-add-button"]').click();
	await page.locator('[data-test-id="node-creator-search-bar"]').waitFor();
	await page.keyboard.type('Job Execution');
	await page.locator('[data-test-id="node-creator-item-name"]').filter({ hasText: /^Job Execution$/ }).first().click();
	await page.getByText('On jobs reaching a status').first().click();
	const selected = page.locator('[data-test-id="node-credentials-select"] input').first();
	await selected.waitFor({ timeout: 30_000 });
	await until('a preselected credential', async () => (await selected.inputValue()) !== '', 15_000);
	return await selected.inputValue();
}

// The relay credential's modal: a wrong Relay API Key, Save (n8n tests it on save), then "More details".
async function wrongKeyTestMessage(page: Page, printed: Printed): Promise<string> {
	await page.goto(`${printed.editor}/home/credentials/jobexec-relay`);
	const modal = page.locator('[data-test-id="editCredential-modal"]');
	await modal.locator('[data-test-id="parameter-input-apiKey"] input').first().fill(WRONG_KEY);
	await modal.locator('[data-test-id="credential-save-button"]').click();
	await modal.getByText(/Couldn.t connect with these settings/).waitFor({ timeout: 60_000 });
	const details = modal.getByText('More details');
	if (await details.count()) await details.first().click();
	// The service's message, once shown (the test then checks it carries no key).
	await modal.getByText(/refused the credentials/i).first().waitFor({ timeout: 30_000 });
	return await modal.innerText();
}

// The trigger example (version 2) as a user opens it: its node (as host/screenshot.ts opens nodes), then the Flow
// Name filter's "From List", until a listed name shows. When none does, a screenshot and the page's text say why.
async function flowNameListed(page: Page, printed: Printed, name: string): Promise<void> {
	await page.goto(`${printed.editor}/workflow/${EXAMPLE_IDS['trigger-on-completed']}`);
	await page.locator('.vue-flow__node').filter({ hasText: 'Job finished' }).dblclick({ force: true });
	const input = page.locator('[data-test-id="rlc-input"]').first();
	const listed = page.getByText(name, { exact: true }).first();
	try {
		// A click that lands while the panel is still opening opens no list: it is clicked again until the name shows.
		await until(`"${name}" in the Flow Name list`, async () => {
			if (await listed.isVisible()) return true;
			await input.click({ force: true });
			return await listed.waitFor({ timeout: 10_000 }).then(() => true, () => false);
		}, 60_000);
	} catch (error) {
		await page.screenshot({ path: join(projectRoot, '.cache', 'browser-e2e-flow-names.png') });
		throw new Error(`"${name}" is not listed; the page shows: ${(await page.locator('body').innerText()).slice(0, 3000)}\n${String(error)}`);
	}
}

/** A workflow saved through the editor's own REST API, with the page's session (the page must be on the editor). */
async function saveWorkflow(page: Page, workflow: object): Promise<string> {
	const id = await page.evaluate(async (body) => {
		const headers = { 'content-type': 'application/json', 'browser-id': (globalThis as unknown as { localStorage: { getItem(key: string): string | null } }).localStorage.getItem('n8n-browserId') ?? '' };
		const response = await fetch('/rest/workflows', { method: 'POST', headers, body: JSON.stringify(body) });
		return ((await response.json()) as { data?: { id?: string } }).data?.id;
	}, workflow);
	if (typeof id !== 'string') throw new Error('the editor did not save the workflow');
	return id;
}

/** What 2.1's Timeout fields hold, as their inputs show it (an options field's value is its input's, not text). */
async function timeoutFields(page: Page): Promise<{ amount: string; unit: string } | undefined> {
	const field = (name: string) => page.locator(`[data-test-id="parameter-input-${name}"] input`).first();
	if (!(await field('unit').count())) return undefined;
	return { amount: await field('amount').inputValue(), unit: await field('unit').inputValue() };
}

/** Every link on the page into this package's repository, as the browser would open it. */
async function repositoryLinks(page: Page): Promise<string[]> {
	return await page.locator('a[href*="n8n-nodes-job-execution/n8n-nodes-job-execution"]').evaluateAll((links) => links.map((link) => (link as unknown as { href: string }).href));
}

const REPOSITORY = 'https://github.com/n8n-nodes-job-execution/n8n-nodes-job-execution';

const describeWithChromium = existsSync(CHROMIUM) ? describe : describe.skip;
if (!existsSync(CHROMIUM)) log(`skipped: ${CHROMIUM} is missing (apt-get install -y chromium; .ci/run installs it)`);

describeWithChromium('the README quick start in a browser (n8n 2.41.1)', () => {
	const dataDir = join(projectRoot, '.n8n-host', `browser-e2e-${process.pid}`);
	let npm: ChildProcess | undefined;
	let output = '';
	let exited: Promise<number | null>;
	let browser: Browser | undefined;
	let page: Page;
	let printed: Printed;
	let ports: { n8n: number; server: number };
	let landing = '';
	let overviewName = '';

	beforeAll(async () => {
		ports = { n8n: await freePort(), server: await freePort() };
		const started = Date.now();
		// What the README says to run, with ports and a data folder of its own so a running demo is not touched.
		npm = spawn('npm', ['start', '--', '--port', String(ports.n8n), '--server-port', String(ports.server), '--data-dir', dataDir], {
			cwd: projectRoot,
			env: Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(JEST_|NODE_ENV$)/.test(key))),
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		exited = new Promise((resolve) => npm?.once('exit', (code) => resolve(code)));
		npm.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
		npm.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
		await until('npm start to be ready', () => /Ctrl-C stops everything/.test(output) || npm?.exitCode !== null, 9 * 60_000);
		if (npm.exitCode !== null) throw new Error(`npm start exited (${npm.exitCode}):\n${output.slice(-4000)}`);
		log(`npm start ready in ${Math.round((Date.now() - started) / 1000)} s`);
		printed = readPrinted(output);
		browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
		page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
	}, 10 * 60_000);

	afterAll(async () => {
		await browser?.close();
		if (npm && npm.exitCode === null) {
			npm.kill('SIGTERM');
			await Promise.race([exited, sleep(60_000)]);
		}
		rmSync(dataDir, { recursive: true, force: true });
	}, 120_000);

	it('prints the editor and login; the terminal holds no stack trace', () => {
		expect(printed.editor).toBe(`http://127.0.0.1:${ports.n8n}`);
		expect(output).not.toMatch(/^\s+at \S+ \(/m);
		// The relay's Submit asks for a Flow ID: the demo's flows are printed with theirs.
		expect(output).toContain('/Shared/Flows/sales.flow  3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10');
	});

	it('the printed login reaches the editor, with the example workflows', async () => {
		await signIn(page, printed);
		// What the README says a newcomer meets: where sign-in lands, and the sidebar's way to the workflow list.
		// Where it settles (any other path is reported by the next test, with the path).
		const landings = ['/home/workflows', '/assistant'];
		await page.waitForURL((url) => landings.includes(url.pathname.replace(/\/$/, '')), { timeout: 30_000 }).catch(() => undefined);
		landing = new URL(page.url()).pathname;
		const overview = page.locator('a[href$="/home/workflows"], a[href$="/home"]').first();
		overviewName = (await overview.getAttribute('aria-label')) ?? (await overview.getAttribute('title')) ?? (await overview.innerText()).trim();
		log(`after sign-in: ${landing}; the sidebar's link to the workflow list: "${overviewName}"`);
		await page.goto(`${printed.editor}/home/workflows`);
		await page.getByText('Job Execution: submit, wait, branch on status').first().waitFor({ timeout: 30_000 });
	});

	it('the README says where sign-in lands and how to reach the workflow list', () => {
		const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
		// Seen on 2.41.1: the workflow list. The README also covers the Assistant page a newcomer has reported.
		expect(['/home/workflows', '/assistant']).toContain(landing.replace(/\/$/, ''));
		expect(readme).toMatch(/the editor opens on the workflow list\s+\(`\/home\/workflows`\)/);
		expect(overviewName).toMatch(/overview/i);
		expect(readme).toMatch(/\*\*Overview\*\* house\s+icon/);
		expect(readme).toMatch(/a \*\*Retry\*\* button/);
	});

	it("a workflow's ⋯ menu has Import → From file, as the README says", async () => {
		await page.goto(`${printed.editor}/workflow/new`);
		await page.locator('[data-test-id="workflow-menu"]').first().click();
		await page.getByText('Import', { exact: true }).first().hover();
		await page.getByText('From file', { exact: true }).first().waitFor({ timeout: 15_000 });
		expect(readFileSync(join(projectRoot, 'README.md'), 'utf8')).toMatch(/\*\*⋯\*\* menu at the top right →\s+\*\*Import\*\* → \*\*From file\*\*/);
		await page.keyboard.press('Escape');
	});

	it('a new Job Execution node preselects the native credential', async () => {
		expect(await credentialOfNewNode(page, printed)).toBe('Job Execution API (reference server)');
	});

	let triggerDocsLinks: string[] = [];

	it('the trigger example (version 2) offers the flow names the service lists in its Flow Name filter', async () => {
		// A job of the sales flow, submitted as another system would: the service lists it.
		const submitted = await fetch(`${new URL(printed.navigationUrl).origin}/api/v1/jobs`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', authorization: `Bearer ${printed.nativeToken}` },
			body: JSON.stringify({ flowFileName: '/Shared/Flows/sales.flow', runProfileName: 'default', notificationEnabled: false, parameters: [] }),
		});
		expect(submitted.status).toBe(200);
		await flowNameListed(page, printed, 'sales');
		triggerDocsLinks = await repositoryLinks(page);
	});

	it("issue 36 row 3: the trigger's Docs link opens the README's Trigger part (n8n uses documentationUrl as it is)", () => {
		log(`links into the repository with the trigger open: ${triggerDocsLinks.join(', ')}`);
		expect(triggerDocsLinks).toContain(`${REPOSITORY}#trigger`);
		expect(triggerDocsLinks.filter((href) => href.includes('utm_'))).toEqual([]);
	});

	it("issue 36 row 9: npm start's service refuses a flow it does not hold, as a real service does", async () => {
		const refused = await fetch(`${new URL(printed.navigationUrl).origin}/api/v1/jobs`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', authorization: `Bearer ${printed.nativeToken}` },
			body: JSON.stringify({ flowFileName: '/Shared/Flows/sales-typo.flow', runProfileName: 'default', notificationEnabled: false, parameters: [] }),
		});
		expect(refused.status).toBe(400);
		expect(await refused.text()).toMatch(/unknown flow/);
	});

	it('the navigation URL opens in the browser → HTTP 200 and the flow named', async () => {
		const response = await page.goto(printed.navigationUrl);
		expect(response?.status()).toBe(200);
		expect(await page.locator('body').innerText()).toMatch(/sales/);
	});

	it('version 2 offers the run profiles the service has run: Submit\'s Run Profile, From List', async () => {
		const workflow = {
			name: 'Browser e2e: Run Profile list (removed afterwards)',
			nodes: [
				{
					id: 'v2-submit',
					name: 'Submit on version 2',
					type: 'n8n-nodes-job-execution.jobExecution',
					typeVersion: 2,
					position: [0, 0],
					credentials: { jobExecutionApi: { id: NATIVE_CREDENTIAL_ID, name: 'Job Execution API (reference server)' } },
					parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'submit', flowFileName: '/Shared/Flows/sales.flow', runProfileName: { __rl: true, mode: 'list', value: '' } },
				},
			],
			connections: {},
			settings: {},
		};
		// A job of the run profile "nightly" (the demo's examples run only "default"), submitted to the demo's service as any client would: the list must offer it.
		const submitted = await fetch(`http://127.0.0.1:${ports.server}/api/v1/jobs`, {
			method: 'POST',
			headers: { authorization: `Bearer ${printed.nativeToken}`, 'content-type': 'application/json' },
			body: JSON.stringify({ flowFileName: '/Shared/Flows/sales.flow', runProfileName: 'nightly', notificationEnabled: false }),
		});
		expect(submitted.status).toBeLessThan(300);
		// The editor's own REST API, with the page's session: the page must be on the editor (not the navigation URL).
		await page.goto(`${printed.editor}/home/workflows`);
		const id = await saveWorkflow(page, workflow);
		expect(id).toEqual(expect.any(String));
		await page.goto(`${printed.editor}/workflow/${id}`);
		await page.locator('.vue-flow__node').filter({ hasText: 'Submit on version 2' }).dblclick({ force: true });
		await page.locator('[data-test-id="rlc-input"]').first().click({ force: true });
		const item = page.locator('[data-test-id="rlc-item"]').filter({ hasText: /^\s*nightly\s*$/ });
		try {
			await item.first().waitFor({ timeout: 30_000 });
		} catch (error) {
			await page.screenshot({ path: join(dataDir, '..', `browser-e2e-run-profile-list-${process.pid}.png`) }).catch(() => undefined);
			log(`no "nightly" in the Run Profile list; the page shows: ${(await page.locator('body').innerText()).slice(0, 3000)}`);
			throw error;
		}
		log(`Run Profile list: ${(await page.locator('[data-test-id="rlc-item"]').allInnerTexts()).join(', ')}`);
	});

	it("issue 36 rows 3 and 4, issue 49: version 2.1's Docs link opens the README's Operations part; its Timeout shows its amount and unit together, version 2's stays seconds", async () => {
		const node = (id: string, name: string, typeVersion: number, waitSettings: object, position: [number, number]) => ({
			id,
			name,
			type: 'n8n-nodes-job-execution.jobExecution',
			typeVersion,
			position,
			credentials: { jobExecutionApi: { id: NATIVE_CREDENTIAL_ID, name: 'Job Execution API (reference server)' } },
			parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'submit', flowFileName: '/Shared/Flows/sales.flow', runProfileName: { __rl: true, mode: 'name', value: 'default' }, waitForCompletion: true, waitSettings },
		});
		// One workflow per version: each opens with only its node's panel to look at.
		const workflowOf = async (only: object, name: string) => await saveWorkflow(page, { name, nodes: [only], connections: {}, settings: {} });
		await page.goto(`${printed.editor}/home/workflows`);
		const newer = await workflowOf(node('v21', 'Newer submit', 2.1, { timeoutAfter: { values: { amount: 2, unit: 'minutes' } } }, [0, 0]), 'Browser e2e: Timeout on 2.1 (removed with the data folder)');
		const older = await workflowOf(node('v2', 'Older submit', 2, { timeout: 120 }, [0, 0]), 'Browser e2e: Timeout on 2 (removed with the data folder)');
		// `shows`: the version's own Timeout field, waited for before the panel is read.
		const panelOf = async (workflowId: string, name: string, shows: string) => {
			await page.goto(`${printed.editor}/home/workflows`);
			await page.goto(`${printed.editor}/workflow/${workflowId}`);
			await page.locator('.vue-flow__node').filter({ hasText: name }).dblclick({ force: true });
			await page.getByText('Wait Settings', { exact: true }).first().waitFor({ timeout: 30_000 });
			await page.getByText(shows).first().waitFor({ timeout: 30_000 });
			await page.locator(`a[href*="${new URL(REPOSITORY).pathname}"]`).first().waitFor({ timeout: 30_000 });
			const text = await page.locator('body').innerText();
			expect(text).toContain(`${name}\nDocs`);
			return { text, links: await repositoryLinks(page), timeout: await timeoutFields(page) };
		};
		const v21 = await panelOf(newer, 'Newer submit', 'Amount');
		log(`2.1 panel links: ${v21.links.join(', ')}`);
		expect(v21.links).toContain(`${REPOSITORY}#operations`);
		expect(v21.links.filter((href) => href.includes('utm_'))).toEqual([]);
		// One Timeout setting, its Amount and its Unit (Minutes, as saved) shown together: the values are in the
		// fields' inputs, not in the page's text (the Amount with two decimals: its numberPrecision).
		const timeout = v21.text.slice(v21.text.indexOf('Timeout'));
		expect(timeout).toMatch(/^Timeout\b[\s\S]*\bAmount\b[\s\S]*\bUnit\b/);
		expect(v21.timeout).toEqual({ amount: '2.00', unit: 'Minutes' });
		expect(v21.text).not.toContain('Timeout Unit');
		expect(v21.text).not.toContain('Timeout (Seconds)');
		const v2 = await panelOf(older, 'Older submit', 'Timeout (Seconds)');
		expect(v2.text).toContain('Timeout (Seconds)');
		expect(v2.text).not.toContain('Timeout Unit');
	});

	it('issue 49: adding Timeout to a new node\'s Wait Settings shows its unit at once (1 hour), as n8n\'s Limit Wait Time does', async () => {
		const blank = {
			id: 'v21-blank',
			name: 'Fresh submit',
			type: 'n8n-nodes-job-execution.jobExecution',
			typeVersion: 2.1,
			position: [0, 0],
			credentials: { jobExecutionApi: { id: NATIVE_CREDENTIAL_ID, name: 'Job Execution API (reference server)' } },
			parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'submit', flowFileName: '/Shared/Flows/sales.flow', runProfileName: { __rl: true, mode: 'name', value: 'default' }, waitForCompletion: true, waitSettings: {} },
		};
		await page.goto(`${printed.editor}/home/workflows`);
		const id = await saveWorkflow(page, { name: 'Browser e2e: adding Timeout (removed with the data folder)', nodes: [blank], connections: {}, settings: {} });
		await page.goto(`${printed.editor}/workflow/${id}`);
		await page.locator('.vue-flow__node').filter({ hasText: 'Fresh submit' }).dblclick({ force: true });
		// Wait Settings' own "Add Setting" list (each collection has one; every list's options stay in the page, hidden):
		// the innermost block holding the Wait Settings label and an add list.
		await page.getByText('Wait Settings', { exact: true }).first().waitFor({ timeout: 30_000 });
		const waitSettings = page.locator('div').filter({ has: page.getByText('Wait Settings', { exact: true }) }).filter({ has: page.locator('[data-test-id="collection-parameter-add"]') }).last();
		const option = page.locator('[data-test-id="collection-parameter-option"]:visible').filter({ hasText: /^\s*Timeout\s*$/ });
		try {
			// A click that lands while the panel is still opening opens no list: it is clicked again until Timeout shows.
			await until('Timeout in the Wait Settings list', async () => {
				if (await option.count()) return true;
				await waitSettings.locator('[data-test-id="collection-parameter-add"]').first().click();
				return await option.first().waitFor({ timeout: 5_000 }).then(() => true, () => false);
			}, 60_000);
			await option.first().click();
			await page.locator('[data-test-id="parameter-input-unit"] input').first().waitFor({ timeout: 30_000 });
		} catch (error) {
			await page.screenshot({ path: join(dataDir, '..', `browser-e2e-add-timeout-${process.pid}.png`) }).catch(() => undefined);
			log(`Timeout was not added; the page shows: ${(await page.locator('body').innerText()).slice(0, 3000)}`);
			throw error;
		}
		const text = await page.locator('body').innerText();
		const added = text.slice(text.indexOf('Timeout'));
		const fields = await timeoutFields(page);
		log(`after adding Timeout: ${added.slice(0, 200).replace(/\n+/g, ' | ')}; its fields: ${JSON.stringify(fields)}`);
		expect(added).toMatch(/^Timeout\b[\s\S]*\bAmount\b[\s\S]*\bUnit\b/);
		expect(fields).toEqual({ amount: '1.00', unit: 'Hours' });
		await page.keyboard.press('Escape');
	});

	it('issue 49: in a workflow whose time zone is Asia/Kolkata, a failed job shows the step and why, and its times with +05:30', async () => {
		const submit = {
			id: 'v21-kolkata',
			name: 'Submit in Kolkata',
			type: 'n8n-nodes-job-execution.jobExecution',
			typeVersion: 2.1,
			position: [220, 0],
			credentials: { jobExecutionApi: { id: NATIVE_CREDENTIAL_ID, name: 'Job Execution API (reference server)' } },
			parameters: {
				authentication: 'jobExecutionApi', resource: 'job', operation: 'submit', flowFileName: '/Shared/Flows/inventory-load.flow', runProfileName: { __rl: true, mode: 'name', value: 'default' },
				waitForCompletion: true, waitSettings: { pollInterval: 1, onJobFailure: 'returnData' },
			},
		};
		const start = { id: 'kolkata-start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} };
		const connections = { Start: { main: [[{ node: submit.name, type: 'main', index: 0 }]] } };
		await page.goto(`${printed.editor}/home/workflows`);
		const id = await saveWorkflow(page, { name: 'Browser e2e: a failed job in Kolkata (removed with the data folder)', nodes: [start, submit], connections, settings: { timezone: 'Asia/Kolkata' } });
		await page.goto(`${printed.editor}/workflow/${id}`);
		// The Start node's own Execute workflow button: the canvas pane lies over it for the pointer, so the click is
		// sent to the button itself.
		const execute = page.locator(`[data-test-id="execute-workflow-button-${start.name}"]`).first();
		await execute.waitFor({ timeout: 30_000 });
		await execute.dispatchEvent('click');
		await page.locator('.vue-flow__node').filter({ hasText: submit.name }).dblclick({ force: true });
		const reason = page.getByText(/target table INVENTORY is locked by another session/).first();
		try {
			await reason.waitFor({ timeout: 120_000 });
		} catch (error) {
			await page.screenshot({ path: join(dataDir, '..', `browser-e2e-kolkata-${process.pid}.png`) }).catch(() => undefined);
			log(`no failure reason in the output; the page shows: ${(await page.locator('body').innerText()).slice(0, 3000)}`);
			throw error;
		}
		const text = await page.locator('body').innerText();
		log(`the output of a failed job in Kolkata: ${text.slice(text.indexOf('failureReason'), text.indexOf('failureReason') + 400).replace(/\n+/g, ' | ')}`);
		// The step and why, without the log line's time stamp, thread and level.
		expect(text).toMatch(/Step 2 failed: Node node_\d+ \([^)]+\) failed: target table INVENTORY is locked by another session/);
		expect(text).not.toMatch(/\[worker-1\] INFO Step 2 failed/);
		// Start and end in the workflow's zone, with its offset.
		expect(text.match(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+05:30/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
		expect(text).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/);
	});

	it("a credential test with a wrong key → the node's message, not the key", async () => {
		const shown = await wrongKeyTestMessage(page, printed);
		log(`credential modal after a failed test: ${shown.slice(0, 600).replace(/\n+/g, ' | ')}`);
		expect(shown).not.toContain(WRONG_KEY);
		expect(shown).toMatch(/refused the credentials/i);
		// What the README names: n8n tests on save, shows Retry and the service's message.
		expect(shown).toMatch(/\bRetry\b/);
	});

	it('keys and jobs live in the data folder, n8n temporary files too', () => {
		const keys = JSON.parse(readFileSync(join(dataDir, 'demo-keys.json'), 'utf8')) as { nativeToken: string };
		expect(keys.nativeToken).toBe(printed.nativeToken);
		expect(existsSync(join(dataDir, 'tmp'))).toBe(true);
	});

	it('SIGTERM to the npm process stops n8n and the service', async () => {
		npm?.kill('SIGTERM');
		const code = await Promise.race([exited, sleep(60_000).then(() => 'still running')]);
		expect(code).not.toBe('still running');
		await until('n8n and the service to stop answering', async () => !(await answers(printed.editor)) && !(await answers(printed.navigationUrl)), 30_000);
	}, 120_000);
});
