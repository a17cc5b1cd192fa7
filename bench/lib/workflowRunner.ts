/**
 * Runs a whole workflow (several nodes, connections, loops) in n8n-core's WorkflowExecute, with the same
 * credentials helper and node registry as `test/harness/engine.ts`'s single-node runs: the hand-made
 * alternatives built from n8n's own nodes run exactly as our node does.
 */
import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import { createRunExecutionData, Workflow } from 'n8n-workflow';
import type { IConnections, IDataObject, INode, IRun, ITaskData, WorkflowExecuteMode } from 'n8n-workflow';

import { additionalDataFor, InMemoryCredentialsHelper, nodeTypes } from '../../testkit/engine';
import type { CredentialsMap } from '../../testkit/engine';

export interface WorkflowDefinition {
	id: string;
	nodes: INode[];
	connections: IConnections;
}

export interface WorkflowRunOptions {
	credentials: CredentialsMap;
	/** The node the execution starts at, and its input items. */
	start: string;
	items?: IDataObject[];
	mode?: WorkflowExecuteMode;
	/** Kept across runs, as n8n keeps a workflow's static data. */
	staticData?: IDataObject;
}

export interface WorkflowRunResult {
	run: IRun;
	/** The runs of one node (one per time it executed). */
	runsOf(nodeName: string): ITaskData[];
	error?: Error;
}

/** A node as the editor would save it. */
export function canvasNode(name: string, type: string, typeVersion: number, parameters: INode['parameters'], extra: Partial<INode> = {}): INode {
	return { id: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-0000-4000-8000-000000000000`, name, type, typeVersion, position: [0, 0], parameters, ...extra };
}

/** `from` main output `output` → `to` main input 0, for each link. */
export function connect(links: Array<[from: string, to: string, output?: number]>): IConnections {
	const connections: IConnections = {};
	for (const [from, to, output = 0] of links) {
		const main = (connections[from] ??= { main: [] }).main;
		while (main.length <= output) main.push([]);
		main[output]!.push({ node: to, type: 'main', index: 0 });
	}
	return connections;
}

export async function runWorkflow(definition: WorkflowDefinition, options: WorkflowRunOptions): Promise<WorkflowRunResult> {
	const mode = options.mode ?? 'manual';
	const workflow = new Workflow({
		id: definition.id,
		name: definition.id,
		nodes: definition.nodes,
		connections: definition.connections,
		active: mode === 'trigger',
		nodeTypes,
		settings: {},
		staticData: options.staticData,
	});
	const hooks = new ExecutionLifecycleHooks(mode, `${definition.id}-run`, {
		id: definition.id,
		name: definition.id,
		nodes: definition.nodes,
		connections: definition.connections,
		active: mode === 'trigger',
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as never);
	let resolveRun: (run: IRun) => void = () => {};
	const finished = new Promise<IRun>((resolve) => (resolveRun = resolve));
	hooks.addHandler('workflowExecuteAfter', (run) => resolveRun(run));
	const start = definition.nodes.find((node) => node.name === options.start);
	if (!start) throw new Error(`no node ${options.start}`);
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [{ node: start, data: { main: [(options.items ?? [{}]).map((json) => ({ json }))] }, source: null }],
		},
	});
	const additionalData = additionalDataFor(new InMemoryCredentialsHelper(options.credentials), hooks);
	const execution = new WorkflowExecute(additionalData, mode, runExecutionData);
	await execution.processRunExecutionData(workflow).catch(() => undefined);
	const run = await finished;
	return {
		run,
		runsOf: (nodeName) => run.data.resultData.runData[nodeName] ?? [],
		error: run.data.resultData.error as Error | undefined,
	};
}

/** The main output `output` of a node's last run. */
export function lastOutput(result: WorkflowRunResult, nodeName: string, output = 0): IDataObject[] {
	const runs = result.runsOf(nodeName);
	return (runs[runs.length - 1]?.data?.main?.[output] ?? []).map((item) => item.json);
}
