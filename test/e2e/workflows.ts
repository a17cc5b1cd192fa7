// The workflows the end-to-end tests import into a real n8n, as a user would build them in the editor.
import type { NodeRecord, WorkflowRecord } from '../../host/workspace';
import { NATIVE_CREDENTIAL_ID, RELAY_CREDENTIAL_ID } from '../../host/workspace';

const ACTION = 'n8n-nodes-job-execution.jobExecution';
const TRIGGER = 'n8n-nodes-job-execution.jobExecutionTrigger';
export const BAD_RELAY_CREDENTIAL_ID = 'jobexec-relay-badkey';

type Interface = 'native' | 'relay';


function credentialOf(via: Interface, credentialId?: string): NodeRecord['credentials'] {
	return via === 'native'
		? { jobExecutionApi: { id: credentialId ?? NATIVE_CREDENTIAL_ID, name: 'native' } }
		: { jobExecutionRelayApi: { id: credentialId ?? RELAY_CREDENTIAL_ID, name: 'relay' } };
}

function authentication(via: Interface): string {
	return via === 'native' ? 'jobExecutionApi' : 'jobExecutionRelayApi';
}

let counter = 0;
function node(name: string, type: string, parameters: Record<string, unknown>, extra: Partial<NodeRecord> = {}): NodeRecord {
	counter++;
	return { id: `e2e-node-${counter}`, name, type, typeVersion: 1, position: [counter * 200, 0], parameters, ...extra };
}

const manual = () => node('Start', 'n8n-nodes-base.manualTrigger', {});

// Chains of nodes hanging off the first one, each chain running its nodes in order.
function workflow(id: string, name: string, first: NodeRecord, chains: NodeRecord[][]): WorkflowRecord {
	const connections: Record<string, { main: Array<Array<{ node: string; type: 'main'; index: number }>> }> = {};
	const link = (from: NodeRecord, to: NodeRecord) => {
		connections[from.name] ??= { main: [[]] };
		connections[from.name].main[0].push({ node: to.name, type: 'main', index: 0 });
	};
	for (const chain of chains) chain.forEach((current, index) => link(index === 0 ? first : chain[index - 1], current));
	return { id, name, active: false, nodes: [first, ...chains.flat()], connections, settings: { executionOrder: 'v1' } };
}

export interface FlowRefs {
	// The catalog's flows: native calls name the file, relay calls the flow's UUID.
	completing: { file: string; id: string };
	failing: { file: string; id: string };
}

function submit(via: Interface, flow: { file: string; id: string }, waitSettings: Record<string, unknown>) {
	return {
		authentication: authentication(via),
		resource: 'job',
		operation: 'submit',
		...(via === 'native' ? { flowFileName: flow.file } : { flowId: flow.id }),
		runProfileName: 'default',
		waitForCompletion: true,
		waitSettings: { pollInterval: 1, timeout: 120, ...waitSettings },
		options: { parseLog: true },
	};
}

function operationsChain(via: Interface, flows: FlowRefs): NodeRecord[] {
	const credentials = credentialOf(via);
	return [
		node(`Submit and wait (${via})`, ACTION, submit(via, flows.completing, {}), { credentials }),
		node(`Get (${via})`, ACTION, { authentication: authentication(via), resource: 'job', operation: 'get', jobId: '={{ $json.id }}' }, { credentials }),
		node(
			`Get many (${via})`,
			ACTION,
			{ authentication: authentication(via), resource: 'job', operation: 'getMany', scope: 'history', returnAll: false, limit: 5, options: { simplify: true } },
			{ credentials, executeOnce: true },
		),
		node(
			`Navigation URL (${via})`,
			ACTION,
			{ authentication: authentication(via), resource: 'flow', operation: 'getNavigationUrl', flowFileName: flows.completing.file, runProfile: 'default', nodeId: 'node_2' },
			// The relay cannot serve a browser page, so over the relay this is a clear error, not a broken link.
			{ credentials, executeOnce: true, ...(via === 'relay' ? { onError: 'continueRegularOutput' as const } : {}) },
		),
	];
}

// Submit, wait, get, list and navigate over both interfaces; a failing job both ways it can be handled.
export function operationsWorkflow(flows: FlowRefs): WorkflowRecord {
	return workflow('jobExecE2eOps001', 'e2e: every operation', manual(), [
		operationsChain('native', flows),
		operationsChain('relay', flows),
		[
			node('Failing job, fail the item', ACTION, submit('native', flows.failing, { onJobFailure: 'error' }), {
				credentials: credentialOf('native'),
				onError: 'continueRegularOutput',
			}),
		],
		[node('Failing job, return data', ACTION, submit('relay', flows.failing, { onJobFailure: 'returnData' }), { credentials: credentialOf('relay') })],
	]);
}

export function wrongRelayKeyWorkflow(): WorkflowRecord {
	return workflow('jobExecE2eBadKey', 'e2e: wrong relay key', manual(), [
		[
			node(
				'List with a wrong key',
				ACTION,
				{ authentication: 'jobExecutionRelayApi', resource: 'job', operation: 'getMany', scope: 'all', returnAll: true },
				{ credentials: credentialOf('relay', BAD_RELAY_CREDENTIAL_ID) },
			),
		],
	]);
}

export const TRIGGER_WORKFLOW_ID = 'jobExecE2eTrig01';

// Two triggers on finished jobs, one saved on version 1 and one added new (version 2, its defaults), each reporting to
// a sink, one POST per event with the fields either version may carry: what reaches a downstream node is counted.
export function triggerWorkflow(pollCron: string, sinkUrl: string): WorkflowRecord {
	const versions = [1, 2].map((typeVersion) => {
		const trigger = node(
			typeVersion === 1 ? 'Job finished' : 'Job finished (version 2)',
			TRIGGER,
			{
				pollTimes: { item: [{ mode: 'custom', cronExpression: pollCron }] },
				authentication: 'jobExecutionApi',
				triggerOn: 'statuses',
				statuses: ['COMPLETED', 'ERROR'],
				startFrom: 'now',
			},
			{ credentials: credentialOf('native'), typeVersion },
		);
		const fields = ['id', 'jobId', 'executionStatus', 'outcome', 'event', 'log'];
		const report = node(
			typeVersion === 1 ? 'Report to sink' : 'Report version 2 to sink',
			'n8n-nodes-base.httpRequest',
			{
				method: 'POST',
				url: sinkUrl,
				sendBody: true,
				bodyParameters: {
					parameters: [
						{ name: 'version', value: String(typeVersion) },
						// Present or not: a field the item lacks arrives as "absent".
						...fields.map((field) => ({ name: field, value: `={{ $json.${field} === undefined ? "absent" : "present:" + $json.${field} }}` })),
					],
				},
				options: {},
			},
			{ typeVersion: 4.2 },
		);
		return workflow(TRIGGER_WORKFLOW_ID, 'e2e: trigger to sink', trigger, [[report]]);
	});
	return { ...versions[0], nodes: versions.flatMap((one) => one.nodes), connections: Object.assign({}, ...versions.map((one) => one.connections)) };
}

/** A node record with n8n's per-node settings (Retry On Fail and its tries), as the editor saves them. */
type SettingsNode = NodeRecord & { retryOnFail?: boolean; maxTries?: number; waitBetweenTries?: number };

export const RETRY_WORKFLOW_ID = 'jobExecE2eRetry1';
export const RETRY_CONTINUE_WORKFLOW_ID = 'jobExecE2eRetry2';

// Three items (n = 0, 1, 2) into a Submit that n8n retries: 3 tries, 100 ms apart.
export function retryWorkflow(id: string, flowFile: string, continueOnFail: boolean): WorkflowRecord {
	const items = node('Three items', 'n8n-nodes-base.code', { jsCode: 'return [0, 1, 2].map((n) => ({ json: { n } }));' }, { typeVersion: 2 });
	const submitNode = numberedSubmit('Submit with Retry On Fail', flowFile, continueOnFail ? { onError: 'continueRegularOutput' } : {});
	return workflow(id, `e2e: Retry On Fail${continueOnFail ? ' + Continue On Fail' : ''}`, manual(), [[items, submitNode]]);
}

export const ECHO_WORKFLOW_ID = 'jobExecE2eEcho01';
export const ECHO_NATIVE_CREDENTIAL_ID = 'jobexec-echo-nat';
export const ECHO_RELAY_CREDENTIAL_ID = 'jobexec-echo-rel';

// Get one job and list jobs over both interfaces from a service that writes the request's headers into job logs.
export function echoWorkflow(jobId: string): WorkflowRecord {
	const chain = (via: Interface): NodeRecord[] => {
		const credentials = credentialOf(via, via === 'native' ? ECHO_NATIVE_CREDENTIAL_ID : ECHO_RELAY_CREDENTIAL_ID);
		return [
			node(`Get echoed (${via})`, ACTION, { authentication: authentication(via), resource: 'job', operation: 'get', jobId, options: { parseLog: true } }, { credentials }),
			node(`List echoed (${via})`, ACTION, { authentication: authentication(via), resource: 'job', operation: 'getMany', scope: 'all', returnAll: true }, { credentials, executeOnce: true }),
		];
	};
	return workflow(ECHO_WORKFLOW_ID, 'e2e: a service echoing headers into logs', manual(), [chain('native'), chain('relay')]);
}

export const STATE_WORKFLOW_ID = 'jobExecE2eState1';
export const CURSOR_WORKFLOW_ID = 'jobExecE2eCursr1';

// The trigger alone (its executions are not needed: what is checked is what n8n stores of its state).
export function stateTriggerWorkflow(id: string, pollCron: string): WorkflowRecord {
	const trigger = node(
		'Job finished',
		TRIGGER,
		{ pollTimes: { item: [{ mode: 'custom', cronExpression: pollCron }] }, authentication: 'jobExecutionApi', triggerOn: 'statuses', statuses: ['COMPLETED', 'ERROR'], startFrom: 'now' },
		{ credentials: credentialOf('native') },
	);
	const sink = node('Done', 'n8n-nodes-base.noOp', {});
	return workflow(id, `e2e: trigger state ${id}`, trigger, [[sink]]);
}

// Submit (Retry On Fail on) with one job parameter carrying the item's number, so that jobs can be counted per item.
function numberedSubmit(name: string, flowFile: string, settings: { position?: [number, number]; onError?: 'continueRegularOutput' }): NodeRecord {
	const submitNode: SettingsNode = node(
		name,
		ACTION,
		{
			authentication: 'jobExecutionApi',
			resource: 'job',
			operation: 'submit',
			flowFileName: flowFile,
			runProfileName: 'default',
			parameters: { parameter: [{ name: 'item', type: 'integer', value: '={{ $json.n }}' }] },
		},
		{ credentials: credentialOf('native'), ...settings },
	);
	return Object.assign(submitNode, { retryOnFail: true, maxTries: 3, waitBetweenTries: 100 });
}

const twoItems = () => node('Two items', 'n8n-nodes-base.code', { jsCode: 'return [0, 1].map((n) => ({ json: { n } }));' }, { typeVersion: 2 });
type Link = [from: NodeRecord, to: NodeRecord, output?: number];

function linked(id: string, name: string, nodes: NodeRecord[], links: Link[]): WorkflowRecord {
	const connections: Record<string, { main: Array<Array<{ node: string; type: 'main'; index: number }>> }> = {};
	for (const [from, to, output = 0] of links) {
		connections[from.name] ??= { main: [] };
		while (connections[from.name].main.length <= output) connections[from.name].main.push([]);
		connections[from.name].main[output].push({ node: to.name, type: 'main', index: 0 });
	}
	return { id, name, active: false, nodes, connections, settings: { executionOrder: 'v1' } };
}

export const LOOP_WORKFLOW_ID = 'jobExecE2eLoop01';

// A back edge: "Loop head" passes the two items to Submit and to "Again?", which sends the same items back to
// "Loop head" once. Submit runs twice in one execution with the same item objects: each run submits each item.
export function backEdgeLoopWorkflow(flowFile: string): WorkflowRecord {
	const start = manual();
	const items = twoItems();
	const head = node('Loop head', 'n8n-nodes-base.noOp', {});
	const submitNode = numberedSubmit('Submit in the loop', flowFile, { position: [600, -200] });
	const again = node('Again?', 'n8n-nodes-base.if', { conditions: { boolean: [{ value1: '={{ $runIndex < 1 }}', value2: true }] } }, { typeVersion: 1 });
	return linked(LOOP_WORKFLOW_ID, 'e2e: the same items through Submit twice by a back edge', [start, items, head, submitNode, again], [
		[start, items],
		[items, head],
		[head, submitNode],
		[head, again],
		[again, head, 0],
	]);
}

export const MCP_RETRY_WORKFLOW_ID = 'jobExecE2eMcpRtr';
export const MCP_RETRY_PATH = 'job-execution-retry';
export const MCP_RETRY_TOOLS = ['submit_and_wait', 'submit_and_wait_relay', 'submit_job', 'submit_job_relay'];

/**
 * The MCP example's server with Retry On Fail (3 tries, none waited between) on Submit tools: its submit_job as it
 * is, the same over the relay, and both with Wait for Completion (Timeout 1 s), on their own MCP path.
 */
export function mcpRetryWorkflow(example: WorkflowRecord): WorkflowRecord {
	const nodes = example.nodes as Array<NodeRecord & { webhookId?: string }>;
	const trigger = nodes.find((candidate) => candidate.type.endsWith('.mcpTrigger')) as NodeRecord & { webhookId?: string };
	const submitJob = nodes.find((candidate) => candidate.name === 'submit_job') as NodeRecord;
	const common: Record<string, unknown> = { ...submitJob.parameters };
	delete common.flowFileName;
	const relay = { ...common, authentication: 'jobExecutionRelayApi', flowId: "={{ $fromAI('flowId', 'The flow ID (a UUID) to run', 'string') }}" };
	const wait = { waitForCompletion: true, waitSettings: { pollInterval: 1, timeout: 1 } };
	const tool = (name: string, parameters: Record<string, unknown>, via: Interface, n: number): NodeRecord =>
		Object.assign({ ...submitJob, id: `5d0c4f4e-0006-4000-8000-00000000000${n}`, name, parameters, credentials: credentialOf(via), position: [n * 220, 300] as [number, number] }, { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 });
	const tools = [
		tool('submit_job', submitJob.parameters, 'native', 1),
		tool('submit_job_relay', relay, 'relay', 2),
		tool('submit_and_wait', { ...submitJob.parameters, ...wait }, 'native', 3),
		tool('submit_and_wait_relay', { ...relay, ...wait }, 'relay', 4),
	];
	const server = { ...trigger, id: '5d0c4f4e-0006-4000-8000-000000000000', webhookId: '5d0c4f4e-0006-4000-8000-0000000000aa', parameters: { ...trigger.parameters, path: MCP_RETRY_PATH } };
	const connections = Object.fromEntries(tools.map((node) => [node.name, { ai_tool: [[{ node: server.name, type: 'ai_tool', index: 0 }]] }]));
	return { id: MCP_RETRY_WORKFLOW_ID, name: 'e2e: MCP tools with Retry On Fail', active: false, nodes: [server, ...tools], connections, settings: example.settings };
}
