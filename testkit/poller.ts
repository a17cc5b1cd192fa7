/**
 * Polls the trigger through n8n-core's real PollContext, the way n8n's poll scheduler calls it. Static data
 * lives in the Workflow as in n8n; a "restart" carries it over as n8n does, through its JSON form.
 */
import { ExecutionLifecycleHooks, PollContext } from 'n8n-core';
import { Workflow } from 'n8n-workflow';
import type { IDataObject, INode, INodeExecutionData, INodeParameters, WorkflowExecuteMode } from 'n8n-workflow';

import { additionalDataFor, InMemoryCredentialsHelper, nodeTypes, TRIGGER_NODE_TYPE } from './engine';
import type { CredentialsMap } from './engine';

export interface Poller {
	/** One poll: the emitted items, or null when nothing fired. Throws what the node throws. */
	poll(mode?: WorkflowExecuteMode): Promise<INodeExecutionData[] | null>;
	/** The node's static data as n8n would store it. */
	storedState(): IDataObject;
	/** A new Workflow (as after an n8n restart) holding the stored static data. */
	restart(parameters?: INodeParameters): void;
}

export interface PollerOptions {
	/** Poll as n8n 1.x does: its PollContext has no getPollBudgetMs. */
	withoutPollBudget?: boolean;
}

export function createPoller(parameters: INodeParameters, credentials: CredentialsMap, options: PollerOptions = {}): Poller {
	let currentParameters = parameters;
	let stored: IDataObject = {};
	let workflow: Workflow;
	let node: INode;

	const build = () => {
		node = {
			id: 'b1b2c3d4-0000-4000-8000-000000000002',
			name: 'Job Execution Trigger',
			type: TRIGGER_NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: currentParameters,
			credentials: {
				jobExecutionApi: { id: '1', name: 'Job Execution API' },
				jobExecutionRelayApi: { id: '2', name: 'Job Execution Relay API' },
			},
		};
		workflow = new Workflow({
			id: 'trigger-workflow',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes,
			staticData: JSON.parse(JSON.stringify(stored)),
		});
	};
	build();

	return {
		async poll(mode: WorkflowExecuteMode = 'trigger') {
			const hooks = new ExecutionLifecycleHooks(mode, 'poll', {} as never);
			const additionalData = additionalDataFor(new InMemoryCredentialsHelper(credentials), hooks);
			const context = new PollContext(workflow, node, additionalData, mode, 'activate');
			if (options.withoutPollBudget) Object.defineProperty(context, 'getPollBudgetMs', { value: undefined });
			const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
			const result = await nodeType.poll!.call(context);
			// n8n saves static data after a successful poll
			stored = JSON.parse(JSON.stringify(workflow.staticData));
			return result ? result[0] : null;
		},
		storedState: () => stored,
		restart(newParameters?: INodeParameters) {
			if (newParameters) currentParameters = newParameters;
			build();
		},
	};
}
