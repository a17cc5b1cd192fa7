/**
 * The action node used as an AI tool, inside n8n-core's real engine: a workflow whose agent node is connected to the
 * node's tool variant by an `ai_tool` connection, run by WorkflowExecute. The agent asks n8n-core for its tools
 * (getInputConnectionData in dist/execution-engine/node-execution-context/utils/get-input-connection-data.js), which
 * wraps the node with createNodeAsTool and makeHandleToolInvocation: n8n's own Retry On Fail for tools (new run index
 * and new input item `{ json: toolArgs }` on each try). Only the agent's "model" is scripted: it calls the tool with
 * the arguments the test gives, as LangChain's DynamicStructuredTool.invoke does, one parsed object per call.
 */
import { WorkflowExecute } from 'n8n-core';
import { createRunExecutionData, NodeConnectionTypes, NodeHelpers, Workflow } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeParameters, INodeType, INodeTypes, IRunExecutionData } from 'n8n-workflow';

import { ACTION_NODE_TYPE, additionalDataFor, InMemoryCredentialsHelper, nodeClasses, runHooks } from './engine';
import type { CredentialsMap } from './engine';

export const TOOL_NODE_TYPE = `${ACTION_NODE_TYPE}Tool`;
const AGENT_NODE_TYPE = 'test.scriptedAgent';
const TOOL_NAME = 'submit_job';

/**
 * The tool variant n8n's server builds of a `usableAsTool` node (the n8n package 2.41.1,
 * dist/tool-generation/ai-tools.js convertNodeToAiTool, used for a node type ending in "Tool"): the same node with its
 * name + "Tool", no main input, one ai_tool output and a Description field the agent reads. test/e2e/mcp.e2e.ts checks
 * the same retries in the real host.
 */
function toolVariant(version = 1): INodeType {
	const base = NodeHelpers.getVersionedNodeType(nodeClasses[ACTION_NODE_TYPE], version);
	const description = {
		...base.description,
		name: `${base.description.name}Tool`,
		displayName: `${base.description.displayName} Tool`,
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
		properties: [{ displayName: 'Description', name: 'toolDescription', type: 'string' as const, default: 'Submit a job' }, ...base.description.properties],
	};
	return Object.assign(Object.create(base) as INodeType, { description });
}

/** One call of the tool as an agent makes it: the result text, or the error n8n handed back after its tries. */
export interface ToolCallOutcome {
	result?: string;
	error?: string;
}

/** The agent: for each input item, calls the tool once per entry of `json.calls`, each time with a fresh object. */
const scriptedAgent: INodeType = {
	description: {
		displayName: 'Scripted agent',
		name: 'scriptedAgent',
		group: ['transform'],
		version: 1,
		description: 'Calls its tool with the arguments the test scripted',
		defaults: { name: 'Agent' },
		inputs: [NodeConnectionTypes.Main, NodeConnectionTypes.AiTool],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	},
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const output: INodeExecutionData[] = [];
		const items = this.getInputData();
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const tools = (await this.getInputConnectionData(NodeConnectionTypes.AiTool, itemIndex)) as Array<{ name: string; invoke(args: IDataObject): Promise<string> }>;
			const tool = tools.find((candidate) => candidate.name === TOOL_NAME);
			if (!tool) throw new Error(`no tool ${TOOL_NAME} among ${tools.map((candidate) => candidate.name).join(', ')}`);
			for (const args of items[itemIndex].json.calls as IDataObject[]) {
				// A model's tool call is parsed anew each time: equal arguments, another object.
				const outcome = await tool.invoke(JSON.parse(JSON.stringify(args)) as IDataObject).then(
					(result): ToolCallOutcome => ({ result }),
					(error: Error): ToolCallOutcome => ({ error: error.message }),
				);
				output.push({ json: { ...outcome }, pairedItem: { item: itemIndex } });
			}
		}
		return [output];
	},
};

const toolNodeTypes = (version: number): INodeTypes => ({
	getByName(type: string) {
		if (type === TOOL_NODE_TYPE) return toolVariant(version);
		if (type === AGENT_NODE_TYPE) return scriptedAgent;
		throw new Error(`Unknown node type ${type}`);
	},
	getByNameAndVersion(type: string) {
		return this.getByName(type) as INodeType;
	},
	getKnownTypes() {
		return {};
	},
});

export interface AgentRunOptions {
	/** The tool node's parameters: `$fromAI()` expressions read the agent's arguments. */
	parameters: INodeParameters;
	credentials: CredentialsMap;
	/** One agent run per entry; each run calls the tool once per argument object. */
	calls: IDataObject[][];
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
	version?: number;
	executionId?: string;
}

/** Runs the agent workflow once inside WorkflowExecute; returns what each tool call gave the agent. */
export async function runAgentWithTool(options: AgentRunOptions): Promise<ToolCallOutcome[]> {
	const tool: INode = {
		id: 'a1b2c3d4-0000-4000-8000-0000000000a1',
		name: 'submit_job',
		type: TOOL_NODE_TYPE,
		typeVersion: options.version ?? 1,
		position: [0, 200],
		parameters: options.parameters,
		credentials: { jobExecutionApi: { id: '1', name: 'Job Execution API' }, jobExecutionRelayApi: { id: '2', name: 'Job Execution Relay API' } },
		...(options.retryOnFail === undefined ? {} : { retryOnFail: options.retryOnFail }),
		...(options.maxTries === undefined ? {} : { maxTries: options.maxTries }),
		...(options.waitBetweenTries === undefined ? {} : { waitBetweenTries: options.waitBetweenTries }),
	};
	const agent: INode = { id: 'a1b2c3d4-0000-4000-8000-0000000000a2', name: 'Agent', type: AGENT_NODE_TYPE, typeVersion: 1, position: [0, 0], parameters: {} };
	const connections = { [tool.name]: { [NodeConnectionTypes.AiTool]: [[{ node: agent.name, type: NodeConnectionTypes.AiTool, index: 0 }]] } };
	const workflow = new Workflow({ id: 'tool-workflow', name: 'agent', nodes: [agent, tool], connections, active: false, nodeTypes: toolNodeTypes(options.version ?? 1), settings: {} });
	const { hooks, finished } = runHooks('manual', options.executionId ?? 'agent-execution', { id: 'tool-workflow', name: 'agent', nodes: [agent, tool], connections, active: false });
	const additionalData = additionalDataFor(new InMemoryCredentialsHelper(options.credentials), hooks);
	// n8n's server gives every execution its id (context.getExecutionId() reads it from here).
	additionalData.executionId = options.executionId ?? 'agent-execution';
	const runExecutionData: IRunExecutionData = createRunExecutionData({
		executionData: { nodeExecutionStack: [{ node: agent, data: { main: [options.calls.map((calls) => ({ json: { calls } }))] }, source: null }] },
	});
	const running = new WorkflowExecute(additionalData, 'manual', runExecutionData).processRunExecutionData(workflow);
	await running.catch(() => undefined);
	const run = await finished;
	const task = run.data.resultData.runData[agent.name]?.[0];
	if (task?.error) throw task.error;
	return (task?.data?.main?.[0] ?? []).map((item) => item.json as ToolCallOutcome);
}
