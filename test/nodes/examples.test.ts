/**
 * The example workflows users import from examples/: every parameter is one the node knows, and our nodes in
 * each example run, in connection order, through the engine against the reference server. Tool nodes (the MCP
 * example) run in file order with the arguments an agent would give in place of each $fromAI(); the real MCP
 * round trip is proven inside n8n by test/e2e/mcp.e2e.ts.
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

// The variant n8n generates from a usableAsTool node, for AI agents and the MCP Server Trigger.
const TOOL_NODE_TYPE = `${ACTION_NODE_TYPE}Tool`;
const ours = (node: INode) => [ACTION_NODE_TYPE, TRIGGER_NODE_TYPE, TOOL_NODE_TYPE].includes(node.type);
const definitionOf = (node: INode) => nodeClasses[node.type === TOOL_NODE_TYPE ? ACTION_NODE_TYPE : node.type];
// n8n adds the poll schedule to every polling trigger, and the tool description to every tool variant.
const ADDED_BY_N8N = new Set(['pollTimes', 'descriptionType', 'toolDescription']);

// What an agent would answer to each $fromAI() key of the MCP example; jobId is the job the submit tool started.
function agentArguments(jobId: unknown): Record<string, unknown> {
	return {
		flowFileName: '/Shared/Flows/sales.flow',
		runProfile: 'default',
		parameters: JSON.stringify([
			{ name: 'region', type: 'string', value: 'EMEA' },
			{ name: 'batchSize', type: 'integer', value: '500' },
		]),
		jobId,
		scope: 'all',
		limit: 5,
		timeoutSeconds: 60,
	};
}

// Each `$fromAI('key', …)` call, quotes and nested parentheses included, replaced by the argument as a JSON literal.
function fillFromAI(text: string, args: Record<string, unknown>): string {
	let result = '';
	let rest = text;
	for (let start = rest.indexOf('$fromAI('); start >= 0; start = rest.indexOf('$fromAI(')) {
		let depth = 0;
		let quote = '';
		let end = start + '$fromAI'.length;
		for (; end < rest.length; end++) {
			const char = rest[end];
			if (quote) {
				if (char === '\\') end++;
				else if (char === quote) quote = '';
			} else if (char === "'" || char === '"' || char === '`') quote = char;
			else if (char === '(') depth++;
			else if (char === ')' && --depth === 0) break;
		}
		const key = /^\$fromAI\(\s*['"`]([\w-]+)/.exec(rest.slice(start))?.[1] ?? '';
		if (!(key in args)) throw new Error(`no agent argument for $fromAI key "${key}"`);
		result += rest.slice(0, start) + JSON.stringify(args[key]);
		rest = rest.slice(end + 1);
	}
	return result + rest;
}

function withAgentArguments(parameters: INodeParameters, args: Record<string, unknown>): INodeParameters {
	return JSON.parse(JSON.stringify(parameters), (_key, value: unknown) => (typeof value === 'string' ? fillFromAI(value, args) : value)) as INodeParameters;
}

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
			const known = new Set(definitionOf(node).description.properties.map((property) => property.name));
			for (const name of Object.keys(node.parameters)) {
				if (!ADDED_BY_N8N.has(name)) expect([node.name, name, known.has(name)]).toEqual([node.name, name, true]);
			}
		}
	});

	test("uses the action node's current version (version 2.1, the default for new nodes)", () => {
		for (const node of workflow.nodes.filter((candidate) => candidate.type !== TRIGGER_NODE_TYPE && ours(candidate))) {
			expect([node.name, node.typeVersion]).toEqual([node.name, definitionOf(node).description.defaultVersion]);
		}
		expect(nodeClasses[ACTION_NODE_TYPE].description.defaultVersion).toBe(2.1);
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
			let jobId: unknown;
			for (const node of workflow.nodes.filter(ours)) {
				if (node.type === TOOL_NODE_TYPE) {
					// A tool gets no items from a previous node, only the arguments of one agent call.
					const parameters = withAgentArguments(node.parameters, agentArguments(jobId));
					const result = await runActionNode({ credentials: fx.credentials, parameters, typeVersion: node.typeVersion });
					expect([node.name, result.error?.message]).toEqual([node.name, undefined]);
					items = result.json;
					jobId ??= items[0]?.jobId;
				} else if (node.type === TRIGGER_NODE_TYPE) {
					const polled = await createPoller(node.parameters, fx.credentials, { typeVersion: node.typeVersion }).poll('manual');
					items = (polled ?? []).map((item) => item.json);
					// Version 2's events: every item names its job and what happened to it.
					if (node.typeVersion >= 2) expect(items.filter((item) => typeof item.jobId !== 'string' || typeof item.outcome !== 'string')).toEqual([]);
				} else {
					const result = await runActionNode({ credentials: fx.credentials, parameters: node.parameters as INodeParameters, items, typeVersion: node.typeVersion });
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
