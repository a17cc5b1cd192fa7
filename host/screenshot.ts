// `npm run screenshot` (with `npm start` running): the editor showing an example workflow, for the README.
// Uses Debian's Chromium (apt-get install chromium); playwright-core drives it and downloads nothing.
import { join } from 'path';
import { chromium } from 'playwright-core';

import { projectRoot } from './paths';
import { DEMO_OWNER, EXAMPLE_IDS } from './workspace';

async function main(): Promise<void> {
	const editor = process.argv[2] ?? 'http://127.0.0.1:5678';
	const shot = (name: string) => join(projectRoot, 'docs', name);
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
		await page.goto(`${editor}/workflow/${EXAMPLE_IDS['submit-and-wait']}`);
		await page.locator('.vue-flow__node').first().waitFor({ timeout: 30_000 });
		// Run it (the canvas then shows each node's item count), then open the node: the job in its output panel.
		await page.getByRole('button', { name: /execute workflow/i }).first().click({ force: true });
		await page.getByText(/executed successfully/i).first().waitFor({ timeout: 60_000 });
		await page.waitForTimeout(1000);
		await page.screenshot({ path: shot('editor-workflow.png') });
		await page.locator('.vue-flow__node').filter({ hasText: 'Submit and wait' }).dblclick({ force: true });
		await page.waitForTimeout(2500);
		await page.screenshot({ path: shot('editor-node.png') });
		process.stderr.write(`wrote docs/editor-workflow.png and docs/editor-node.png\n`);
	} finally {
		await browser.close();
	}
}

main().catch((err: unknown) => {
	process.stderr.write(`error: ${(err as Error).message}\n`);
	process.exit(1);
});
