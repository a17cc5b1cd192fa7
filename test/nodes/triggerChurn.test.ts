/**
 * Seeded churn through the real trigger code and the real server: random submissions, time jumps, polls that
 * fail midway (the spec's 400 for a server error, and dropped connections), n8n restarts and option changes.
 * Ground truth comes from the server: every job that finished after the baseline fires exactly once with its
 * final status, and no (job, status) pair ever fires twice.
 */
import axios from 'axios';

import { mulberry32 } from '../../server/random';
import { startFaultyFront } from '../harness/faultyFront';
import { credentialsFor, INTERFACES, startFixture } from '../harness/fixtures';
import type { Interface } from '../harness/fixtures';
import { createPoller } from '../harness/poller';

const CHURN_CATALOG = {
	flows: [
		{ flowFileName: '/Shared/Flows/a.flow', flowId: '11111111-1111-4111-8111-111111111111', steps: 1, stepMs: 700, outcome: 'COMPLETED' as const },
		{ flowFileName: '/Shared/Flows/b.flow', flowId: '22222222-2222-4222-8222-222222222222', steps: 3, stepMs: 400, outcome: 'ERROR' as const },
		{ flowFileName: '/Shared/Flows/c.flow', flowId: '33333333-3333-4333-8333-333333333333', steps: 5, stepMs: 900, outcome: 'CANCELLED' as const },
		{ flowFileName: '/Shared/Flows/d.flow', flowId: '44444444-4444-4444-8444-444444444444', steps: 2, stepMs: 1500, outcome: 'COMPLETED' as const },
	],
};


test.each(INTERFACES)('churn over the %s interface: 0 missed, 0 duplicated', async (kind: Interface) => {
	const random = mulberry32(kind === 'native' ? 20261121 : 11212026);
	const fx = await startFixture(kind, { catalog: CHURN_CATALOG, concurrency: 6 });
	const front = await startFaultyFront(fx.server.url, []);
	const http = axios.create({ baseURL: fx.server.url, headers: { Authorization: 'Bearer native-token-c0ffee' } });
	const poller = createPoller({ authentication: fx.authentication, triggerOn: 'anyChange' }, credentialsFor(front.url));
	const fired = new Map<string, number>();
	const finalFired = new Map<string, string>();
	const record = (events: Awaited<ReturnType<typeof poller.poll>>) => {
		for (const item of events ?? []) {
			const key = `${item.json.id} ${item.json.executionStatus}`;
			fired.set(key, (fired.get(key) ?? 0) + 1);
			if (['COMPLETED', 'ERROR', 'CANCELLED'].includes(item.json.executionStatus as string)) {
				finalFired.set(item.json.id as string, item.json.executionStatus as string);
			}
		}
	};
	let failedPolls = 0;
	let restarts = 0;
	try {
		await poller.poll(); // baseline
		const submitted: string[] = [];
		for (let round = 0; round < 120; round++) {
			const burst = random() < 0.1 ? 25 : Math.floor(random() * 4);
			for (let i = 0; i < burst; i++) {
				const flow = CHURN_CATALOG.flows[Math.floor(random() * CHURN_CATALOG.flows.length)];
				const { data } = await http.post('/api/v1/jobs', { flowFileName: flow.flowFileName, runProfileName: 'default' });
				submitted.push(data.jobId);
			}
			fx.clock.advance(Math.floor(random() * 2500));
			const roll = random();
			if (roll < 0.08) front.inject(['pass', { status: 400 }]); // the spec's "server error" 400, mid-poll
			else if (roll < 0.1) front.inject(['drop', 'drop', 'drop', 'drop']); // every retry of a read fails
			if (random() < 0.1) {
				restarts++;
				poller.restart();
			}
			const events = await poller.poll().catch(() => {
				failedPolls++;
				return undefined;
			});
			record(events ?? null);
		}
		// Drain at the same pace as the service works, so no more than 100 jobs end between two polls.
		for (let i = 0; i < 2000 && fx.server.store.list('active').length > 0; i++) {
			fx.clock.advance(1000);
			record(await poller.poll());
		}
		fx.clock.advance(1000);
		record(await poller.poll());
		const duplicated = [...fired.values()].filter((count) => count > 1).length;
		const missed = submitted.filter((id) => finalFired.get(id) !== fx.server.store.status(id)!.executionStatus).length;
		process.stdout.write(
			`trigger churn (${kind}): ${submitted.length} jobs, ${fired.size} events, ${failedPolls} failed polls, ${restarts} restarts, ${missed} missed, ${duplicated} duplicated\n`,
		);
		expect(failedPolls).toBeGreaterThan(0);
		expect(restarts).toBeGreaterThan(0);
		expect(missed).toBe(0);
		expect(duplicated).toBe(0);
	} finally {
		await front.close();
		await fx.server.close();
	}
}, 120_000);
