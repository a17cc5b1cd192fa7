// The workflows and the catalog of the queue-mode tests and benchmark: webhooks (so many executions can start
// at once on main and run on the workers), the triggers, and the shipped durable-wait example behind a webhook.
import { readFileSync } from 'fs';
import { join } from 'path';

import type { Catalog } from '../../server';
import { projectRoot } from '../../host/paths';
import type { NodeRecord, WorkflowRecord } from '../../host/workspace';
import { NATIVE_CREDENTIAL_ID } from '../../host/workspace';

const ACTION = 'n8n-nodes-job-execution.jobExecution';
const TRIGGER = 'n8n-nodes-job-execution.jobExecutionTrigger';
const CREDENTIALS = { jobExecutionApi: { id: NATIVE_CREDENTIAL_ID, name: 'native' } };

// Flows of the test's own reference server: every profile the scenarios use, durations that fit each scenario.
export const QUEUE_PROFILES = { trigger: 'queue-a', durableTrigger: 'queue-b', durable: 'queue-d', spread: 'default' };
const PROFILES = Object.values(QUEUE_PROFILES);
export const QUEUE_FLOWS = {
	quick: '/Queue/quick.flow',
	failing: '/Queue/failing.flow',
	// Long enough to be killed mid-wait.
	medium: '/Queue/medium.flow',
	// 5 minutes: the durable loop goes round several times and waits through the main restarts of the trigger tests.
	long: '/Queue/long.flow',
};
export function queueCatalog(): Catalog {
	return {
		flows: [
			{ flowFileName: QUEUE_FLOWS.quick, runProfiles: PROFILES, steps: 2, stepMs: 100, outcome: 'COMPLETED' },
			{ flowFileName: QUEUE_FLOWS.failing, runProfiles: PROFILES, steps: 2, stepMs: 200, outcome: 'ERROR', reason: 'queue test failure' },
			{ flowFileName: QUEUE_FLOWS.medium, runProfiles: PROFILES, steps: 4, stepMs: 10_000, outcome: 'COMPLETED' },
			{ flowFileName: QUEUE_FLOWS.long, runProfiles: PROFILES, steps: 5, stepMs: 60_000, outcome: 'COMPLETED' },
		],
	};
}


type Connections = Record<string, { main: Array<Array<{ node: string; type: 'main'; index: number }>> }>;

function chain(id: string, name: string, nodes: NodeRecord[]): WorkflowRecord {
	const connections: Connections = {};
	nodes.slice(1).forEach((to, i) => (connections[nodes[i].name] = { main: [[{ node: to.name, type: 'main', index: 0 }]] }));
	return { id, name, active: false, nodes, connections, settings: { executionOrder: 'v1' } };
}

const uuid = (tag: string, n: number) => `7a1e0c2b-${tag.padStart(4, '0')}-4000-8000-${String(n).padStart(12, '0')}`;

function webhook(tag: string, path: string, responseMode: 'lastNode' | 'onReceived'): NodeRecord {
	return {
		id: uuid(tag, 1),
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		parameters: { httpMethod: 'POST', path, responseMode, ...(responseMode === 'lastNode' ? { responseData: 'firstEntryJson' } : {}), options: {} },
		webhookId: uuid(tag, 99),
	};
}

// One POST per item to the test's sink: what reaches a downstream node is what is counted.
function report(tag: string, url: string, fields: Record<string, string>): NodeRecord {
	return {
		id: uuid(tag, 9),
		name: 'Report to sink',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [1400, 0],
		parameters: {
			method: 'POST',
			url,
			sendBody: true,
			bodyParameters: { parameters: Object.entries(fields).map(([name, value]) => ({ name, value })) },
			options: {},
		},
	};
}

// The caller's tag (not "caller": n8n's expression sandbox refuses that name) and n8n's execution id go to the service as job parameters: each job names its execution.
const traceParameters = { parameter: [
	{ name: 'tag', type: 'string', value: '={{ $json.body.tag }}' },
	{ name: 'execution', type: 'string', value: '={{ $execution.id }}' },
] };

export const SUBMIT_WEBHOOK_ID = 'jobExecQSubmit01';
export const SUBMIT_PATH = 'queue-submit';

// Webhook → Submit with Wait for Completion; the webhook answers with the finished job. Flow and profile come
// from the request body, so one workflow serves every scenario.
export function submitAndWaitWorkflow(): WorkflowRecord {
	const submit: NodeRecord = {
		id: uuid('1', 2),
		name: 'Submit and wait',
		type: ACTION,
		typeVersion: 1,
		position: [220, 0],
		credentials: CREDENTIALS,
		parameters: {
			authentication: 'jobExecutionApi',
			resource: 'job',
			operation: 'submit',
			flowFileName: '={{ $json.body.flow }}',
			runProfileName: '={{ $json.body.profile }}',
			parameters: traceParameters,
			waitForCompletion: true,
			waitSettings: { pollInterval: 1, timeout: 600, onJobFailure: 'returnData' },
		},
	};
	return chain(SUBMIT_WEBHOOK_ID, 'queue: submit and wait', [webhook('1', SUBMIT_PATH, 'lastNode'), submit]);
}

export function triggerWorkflow(id: string, runProfileName: string, pollCron: string, sinkUrl: string): WorkflowRecord {
	const trigger: NodeRecord = {
		id: uuid(id.slice(-2), 1),
		name: 'Job finished',
		type: TRIGGER,
		typeVersion: 1,
		position: [0, 0],
		credentials: CREDENTIALS,
		parameters: {
			pollTimes: { item: [{ mode: 'custom', cronExpression: pollCron }] },
			authentication: 'jobExecutionApi',
			triggerOn: 'statuses',
			statuses: ['COMPLETED', 'ERROR'],
			startFrom: 'now',
			filters: { runProfileName },
		},
	};
	return chain(id, `queue: trigger on ${runProfileName}`, [trigger, report(id.slice(-2), sinkUrl, { id: '={{ $json.id }}', executionStatus: '={{ $json.executionStatus }}' })]);
}

export const DURABLE_WORKFLOW_ID = 'jobExecQDurable1';
export const DURABLE_PATH = 'queue-durable';
export const DURABLE_WAIT_SECONDS = 66;

// examples/submit-and-wait-durably.json as shipped, started by a webhook instead of by hand, with the shortest
// wait n8n still offloads (66 s), the long flow, and a report of the finished job to the sink.
export function durableWorkflow(sinkUrl: string): WorkflowRecord {
	const example = JSON.parse(readFileSync(join(projectRoot, 'examples', 'submit-and-wait-durably.json'), 'utf8')) as { nodes: NodeRecord[]; connections: Connections };
	const [manual, ...rest] = example.nodes;
	const start = webhook('3', DURABLE_PATH, 'onReceived');
	const nodes = rest.map((node) => {
		if (node.type === 'n8n-nodes-base.wait') return { ...node, parameters: { ...node.parameters, amount: DURABLE_WAIT_SECONDS, unit: 'seconds' } };
		if (node.name === 'Submit job') return { ...node, parameters: { ...node.parameters, flowFileName: QUEUE_FLOWS.long, runProfileName: QUEUE_PROFILES.durable, parameters: traceParameters } };
		return node;
	});
	// The example's nodes are version 2: a job's id is `jobId` on every item.
	const sink = report('3', sinkUrl, { id: '={{ $json.jobId }}', executionStatus: '={{ $json.executionStatus }}', execution: '={{ $execution.id }}' });
	const connections: Connections = { ...example.connections, [start.name]: example.connections[manual.name], 'Get the finished job': { main: [[{ node: sink.name, type: 'main', index: 0 }]] } };
	delete connections[manual.name];
	return { id: DURABLE_WORKFLOW_ID, name: 'queue: durable wait (the shipped example)', active: false, nodes: [start, ...nodes, sink], connections, settings: { executionOrder: 'v1' } };
}
