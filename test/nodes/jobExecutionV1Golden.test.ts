/**
 * Version 1 stays as it was: the action node at typeVersion 1 runs a fixed set of cases through n8n's engine against
 * the reference server, and its output equals what the node gave before version 2 existed, keys in the same order
 * (recorded from main at b2f109e into fixtures/v1-golden.json; job ids are replaced by their order of first appearance).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { runActionNode } from '../../testkit/engine';
import type { RunNodeOptions } from '../../testkit/engine';
import { BROKEN, INTERFACES, SALES, startFixture } from '../../testkit/fixtures';
import type { Fixture, Interface } from '../../testkit/fixtures';

// The simulated log is seeded by the job id: ids in a fixed sequence make the logs the same on every run.
let mockUuids = 0;
jest.mock('crypto', () => ({
	...jest.requireActual<object>('crypto'),
	randomUUID: () => `00000000-0000-4000-8000-${String(++mockUuids).padStart(12, '0')}`,
}));

const GOLDEN = join(__dirname, 'fixtures/v1-golden.json');
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** Job ids vary between runs: each becomes <job N> by first appearance; the server's own URL becomes <url>. */
function normalized(value: unknown, url: string, flowIds: string[]): unknown {
	const ids = new Map<string, string>(flowIds.map((id) => [id, id]));
	const text = JSON.stringify(value).split(url).join('<url>');
	return JSON.parse(text.replace(UUID, (id) => (ids.has(id) ? ids.get(id)! : (ids.set(id, `<job ${ids.size - flowIds.length + 1}>`), ids.get(id)!))));
}

/**
 * Where every object's keys appear, in order, by path: `toEqual` ignores key order, which users see (n8n's table and
 * JSON views, and expressions over Object.keys); the recorded output keeps the order the node wrote them in.
 */
function keyOrders(value: unknown, path = '$', into: string[] = []): string[] {
	if (Array.isArray(value)) value.forEach((entry, index) => keyOrders(entry, `${path}[${index}]`, into));
	else if (value !== null && typeof value === 'object') {
		into.push(`${path}: ${Object.keys(value).join(', ')}`);
		for (const [key, entry] of Object.entries(value)) keyOrders(entry, `${path}.${key}`, into);
	}
	return into;
}

type Case = { name: string; run: (fx: Fixture, node: (parameters: IDataObject, extra?: Partial<RunNodeOptions>) => Promise<IDataObject[]>) => Promise<unknown> };

const CASES: Case[] = [
	{ name: 'submit', run: async (fx, node) => await node({ operation: 'submit', ...fx.flow(SALES), runProfileName: 'default', notificationEnabled: true }) },
	{
		name: 'submit and wait, simplified, log parsed',
		run: async (fx, node) => {
			// The job ends a minute after it was submitted, whenever the submission arrives: the same times on every run.
			const timer = setInterval(() => fx.server.store.count() > 0 && fx.clock.advance(60_000), 10);
			try {
				const options = { simplify: true, parseLog: true };
				return await node({ operation: 'submit', ...fx.flow(SALES), runProfileName: 'default', waitForCompletion: true, waitSettings: { pollInterval: 1 }, options });
			} finally {
				clearInterval(timer);
			}
		},
	},
	{
		name: 'get, get status only, get simplified, wait, get many',
		run: async (fx, node) => {
			const [{ jobId }] = await node({ operation: 'submit', ...fx.flow(SALES), runProfileName: 'default' });
			const [broken] = await node({ operation: 'submit', ...fx.flow(BROKEN), runProfileName: 'nightly' });
			const running = await node({ operation: 'get', jobId });
			fx.clock.advance(60_000);
			return {
				running,
				get: await node({ operation: 'get', jobId: { __rl: true, mode: 'id', value: jobId } }),
				statusOnly: await node({ operation: 'get', jobId, options: { statusOnly: true } }),
				simplified: await node({ operation: 'get', jobId, options: { simplify: true } }),
				parsed: await node({ operation: 'get', jobId, options: { parseLog: true } }),
				wait: await node({ operation: 'waitForCompletion', jobId: broken.jobId, waitSettings: { onJobFailure: 'returnData' } }),
				getMany: await node({ operation: 'getMany', returnAll: true }),
				getManyFiltered: await node({ operation: 'getMany', limit: 1, filters: { flowName: 'sales', executionStatus: ['COMPLETED'] }, options: { simplify: true } }),
				history: await node({ operation: 'getMany', scope: 'history', filters: { runProfileName: 'nightly' } }),
			};
		},
	},
	{ name: 'navigation url', run: async (_fx, node) => await node({ resource: 'flow', operation: 'getNavigationUrl', flowFileName: SALES.path, runProfile: 'default', nodeId: 'node_3' }) },
];

const recording = process.env.RECORD_V1_GOLDEN === '1';
const recorded: Record<string, unknown> = recording ? {} : (JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, unknown>);

describe.each(INTERFACES)('version 1 over the %s interface', (kind: Interface) => {
	let fx: Fixture;
	beforeEach(async () => {
		mockUuids = 0;
		fx = await startFixture(kind);
	});
	afterEach(async () => {
		await fx.server.close();
	});
	afterAll(() => {
		if (recording && kind === INTERFACES[INTERFACES.length - 1]) writeFileSync(GOLDEN, `${JSON.stringify(recorded, null, '\t')}\n`);
	});

	test.each(CASES)('$name equals the recorded output, every object\'s keys in the recorded order', async ({ name, run }) => {
		const node = async (parameters: IDataObject, extra: Partial<RunNodeOptions> = {}) => {
			const result = await runActionNode({
				credentials: fx.credentials,
				typeVersion: 1,
				...extra,
				parameters: { authentication: fx.authentication, resource: 'job', ...parameters } as RunNodeOptions['parameters'],
			});
			if (result.error) return [{ error: result.error.message, description: result.error.description ?? null }];
			return result.items.map((item) => ({ ...item.json, pairedItem: item.pairedItem }) as IDataObject);
		};
		const output = normalized(await run(fx, node), fx.server.url, [SALES.id, BROKEN.id]);
		const key = `${kind}: ${name}`;
		if (recording) recorded[key] = output;
		else {
			expect(recorded[key]).toBeDefined();
			expect(output).toEqual(recorded[key]);
			expect(keyOrders(output)).toEqual(keyOrders(recorded[key]));
		}
	});
});
