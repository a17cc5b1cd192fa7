/**
 * The example workflows users import from examples/: every parameter is one the node knows, and our nodes in
 * each example run, in connection order, through the engine against the reference server.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

import { ACTION_NODE_TYPE, nodeClasses, runActionNode, TRIGGER_NODE_TYPE } from '../../testkit/engine';
import { startFixture } from '../../testkit/fixtures';
import type { Fixture } from '../../testkit/fixtures';
import { createPoller } from '../../testkit/poller';

const dir = join(__dirname, '../../examples');
const examples = readdirSync(dir)
	.filter((file) => file.endsWith('.json'))
	.map((file) => ({ file, workflow: JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: INode[]; connections: IDataObject } }));

const ours = (node: INode) => node.type === ACTION_NODE_TYPE || node.type === TRIGGER_NODE_TYPE;
// n8n adds the poll schedule to every polling trigger.
const ADDED_BY_N8N = new Set(['pollTimes']);

describe.each(examples)('example $file', ({ workflow }) => {
	let fx: Fixture;
	beforeAll(async () => {
		fx = await startFixture('native');
	});
	afterAll(async () => {
		await fx.server.close();
	});

	test('uses only parameters the nodes define', () => {
		const used = workflow.nodes.filter(ours);
		expect(used.length).toBeGreaterThan(0);
		for (const node of used) {
			const known = new Set(nodeClasses[node.type].description.properties.map((property) => property.name));
			for (const name of Object.keys(node.parameters)) {
				if (!ADDED_BY_N8N.has(name)) expect([node.name, name, known.has(name)]).toEqual([node.name, name, true]);
			}
		}
	});

	test('runs against the reference server', async () => {
		// A finished job exists, so triggers and lists have something to show.
		const seed = await runActionNode({
			credentials: fx.credentials,
			parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'submit', flowFileName: '/Shared/Flows/sales.flow', runProfileName: 'default' },
		});
		expect(seed.error).toBeUndefined();
		fx.clock.advance(60_000);
		const stop = setInterval(() => fx.clock.advance(1000), 20);
		try {
			let items: IDataObject[] = [{}];
			for (const node of workflow.nodes.filter(ours)) {
				if (node.type === TRIGGER_NODE_TYPE) {
					const polled = await createPoller(node.parameters, fx.credentials).poll('manual');
					items = (polled ?? []).map((item) => item.json);
				} else {
					const result = await runActionNode({ credentials: fx.credentials, parameters: node.parameters as INodeParameters, items });
					expect([node.name, result.error?.message]).toEqual([node.name, undefined]);
					items = result.json;
				}
				expect([node.name, items.length > 0]).toEqual([node.name, true]);
			}
		} finally {
			clearInterval(stop);
		}
	});
});
