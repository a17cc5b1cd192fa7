/**
 * Issue 48, with real processes: a server in its own pid namespace (a container) paused with SIGSTOP, its lock taken
 * over by a second server, then woken: no acknowledged job is lost, the woken owner refuses every job and says why,
 * and its release leaves the successor's lock. One run here; ten in test/soak/pausedOwner.soak.test.ts. Needs root
 * for unshare: skipped otherwise, saying why in the test's name and on stderr.
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { expectOneWriter, pausedOwnerRun, pidNamespaceUnavailable } from './pausedOwner';

const unavailable = pidNamespaceUnavailable();
if (unavailable) process.stderr.write(`test/server/pausedOwner.test.ts SKIPPED: ${unavailable}\n`);

describe(`an owner paused in its own pid namespace${unavailable ? ` (SKIPPED: ${unavailable})` : ''}`, () => {
	(unavailable ? test.skip : test)('SIGSTOP, takeover, SIGCONT: 0 acknowledged jobs lost, the woken owner refuses every job saying why, one server acknowledging', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'jes-paused-'));
		try {
			const run = await pausedOwnerRun(dir, 1);
			expectOneWriter(run);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
