/**
 * The same items reaching Submit again as new work, inside a real n8n (`n8n execute`), with Retry On Fail on: a back
 * edge runs Submit twice in one execution with the same item objects, and the workflow runs twice. Submit's retry
 * memory must not take either for a retry: one job per item per Submit run, counted at the server.
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { HOSTS } from '../../host/hosts';
import { executeWorkflow, nodeItems } from '../../host/n8n';
import type { ExecutedWorkflow } from '../../host/n8n';
import { openSession } from '../../host/session';
import type { Session } from '../../host/session';
import { importIntoN8n } from '../../host/workspace';
import { backEdgeLoopWorkflow, LOOP_WORKFLOW_ID } from './workflows';

const versions = (process.env.E2E_N8N_VERSIONS ?? Object.keys(HOSTS).join(',')).split(',').filter(Boolean);
const log = (line: string) => process.stderr.write(`[e2e same items] ${line}\n`);
const SALES = '/Shared/Flows/sales.flow';

const outcome = (executed: ExecutedWorkflow) => ({ code: executed.code, error: executed.run ? executed.run.data.resultData.error?.message : executed.output.slice(-3000) });

describe.each(versions)('the same items through Submit again, in n8n %s', (version) => {
	let session: Session;
	let userFolder: string;

	beforeAll(async () => {
		userFolder = mkdtempSync(join(tmpdir(), `job-execution-e2e-same-items-${version}-`));
		session = await openSession({ hostVersion: version, userFolder, log, server: { stepMs: 300 } });
		await importIntoN8n(session.n8n, [], [backEdgeLoopWorkflow(SALES)]);
	}, 20 * 60_000);

	afterAll(async () => {
		await session?.close();
		rmSync(userFolder, { recursive: true, force: true });
	});

	// Jobs created since `before`, per item (each job carries its item's number as parameter "item").
	const jobsPerItem = (before: Set<string>) => {
		const perItem = [0, 0];
		for (const job of session.server.store.all()) if (!before.has(job.id)) perItem[Number(job.parameters[0]?.value)]++;
		return perItem;
	};
	const known = () => new Set(session.server.store.all().map((job) => job.id));

	test('a back edge runs Submit twice in one execution with the same items: each run submits each item; a second execution again', async () => {
		const before = known();
		const executed = await executeWorkflow(session.n8n, LOOP_WORKFLOW_ID);
		expect(outcome(executed)).toEqual({ code: 0, error: undefined });
		const runs = executed.run?.data.resultData.runData['Submit in the loop'] ?? [];
		expect(runs).toHaveLength(2);
		expect(jobsPerItem(before)).toEqual([2, 2]);
		expect(new Set(nodeItems(executed, 'Submit in the loop').map((json) => json.jobId)).size).toBe(4);
		const again = await executeWorkflow(session.n8n, LOOP_WORKFLOW_ID);
		expect(outcome(again)).toEqual({ code: 0, error: undefined });
		log(`back edge, two executions: jobs per item ${jobsPerItem(before).join('/')}`);
		expect(jobsPerItem(before)).toEqual([4, 4]);
	});
});
