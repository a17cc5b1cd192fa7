/**
 * Issue 48's done-when, ten times: a server in its own pid namespace paused with SIGSTOP (3 requests sent 0 to 9 ms
 * before the pause, so it stops at a different point of its write path each run), its lock taken over, then woken.
 * Every run: 0 acknowledged jobs lost, the woken owner refuses every job and says why. Needs root for unshare.
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { writeMeasuredBlock } from '../../testkit/measuredBlock';
import { expectOneWriter, pausedOwnerRun, pidNamespaceUnavailable } from '../server/pausedOwner';

const unavailable = pidNamespaceUnavailable();
if (unavailable) process.stderr.write(`test/soak/pausedOwner.soak.test.ts SKIPPED: ${unavailable}\n`);
const RUNS = 10;

describe(`an owner paused in its own pid namespace, ${RUNS} runs${unavailable ? ` (SKIPPED: ${unavailable})` : ''}`, () => {
	(unavailable ? test.skip : test)('every run: 0 acknowledged jobs lost, the woken owner refuses every job saying why', async () => {
		let acknowledged = 0;
		let lost = 0;
		let refusedAfterWake = 0;
		for (let i = 0; i < RUNS; i++) {
			const dir = mkdtempSync(join(tmpdir(), 'jes-paused-'));
			try {
				const run = await pausedOwnerRun(dir, i);
				acknowledged += run.acknowledged.length;
				lost += run.lost.length;
				refusedAfterWake += run.answers.filter((a) => a.server === 'owner' && a.afterWake && a.status === 400).length;
				expectOneWriter(run);
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		}
		const figure =
			`An owner in its own pid namespace paused (SIGSTOP) with requests in flight, its lock taken over, then woken, ${RUNS} runs: ` +
			`${lost} of ${acknowledged} acknowledged jobs lost; the woken owner refused ${refusedAfterWake} of ${refusedAfterWake} jobs sent to it, saying why.`;
		process.stdout.write(`${figure}\n`);
		writeMeasuredBlock(join(__dirname, '../../docs/reference-service.md'), 'paused-owner', 'UPDATE_DOCS=1 npm run test:soak (test/soak/pausedOwner.soak.test.ts)', figure);
	});
});
