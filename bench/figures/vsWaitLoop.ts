/**
 * Figure B: submit and wait. The node's Submit with Wait for Completion against the loop users build from n8n's
 * own nodes: HTTP Request (submit) → Wait (5 s) → HTTP Request (status) → If (finished?) → false: back to Wait.
 * Both run side by side in real time (n8n's Wait node sleeps for real under 65 s, as ours does), on a 30 s job
 * (reads land just after its end) and a 30.3 s one (it ends just after a read), native, through a hop that
 * records every request. Counted: requests per job, delay from the job's end to the output, nodes on the canvas,
 * node runs the execution stores.
 */
import type { IDataObject, INode } from 'n8n-workflow';

import { runActionNode } from '../../testkit/engine';
import { credentialsFor, NATIVE_TOKEN } from '../../testkit/fixtures';
import { startRecordingFront } from '../../testkit/recordingFront';
import type { RecordedRequest } from '../../testkit/recordingFront';
import { BENCH_CATALOG, THIRTY_SECONDS_AND_A_BIT_FLOW, THIRTY_SECONDS_FLOW } from '../lib/catalog';
import type { Figure } from '../lib/figure';
import { verdict } from '../lib/figure';
import { HTTP_REQUEST, IF, loadN8nBaseNodes, WAIT } from '../lib/n8nBaseNodes';
import { startServerProcess } from '../lib/serverProcess';
import { canvasNode, connect, lastOutput, runWorkflow } from '../lib/workflowRunner';

const INTERVAL_S = 5;
const FINAL = ['COMPLETED', 'ERROR', 'CANCELLED'];

interface Outcome {
	job: IDataObject;
	finishedAt: number;
	nodesOnCanvas: number;
	nodeRuns: number;
	storedBytes: number;
}

function loopWorkflow(url: string, flowFileName: string) {
	const auth = { authentication: 'genericCredentialType', genericAuthType: 'httpBearerAuth', options: {} };
	const credentials: INode['credentials'] = { httpBearerAuth: { id: '11', name: 'Bearer Auth account' } };
	const finished = FINAL.map((status, i) => ({ id: `c${i}`, leftValue: '={{ $json.executionStatus }}', rightValue: status, operator: { type: 'string', operation: 'equals' } }));
	const nodes = [
		canvasNode('Submit Job', HTTP_REQUEST, 4.2, { method: 'POST', url: `${url}/api/v1/jobs`, ...auth, sendBody: true, specifyBody: 'json', jsonBody: JSON.stringify({ flowFileName, runProfileName: 'default' }) }, { credentials }),
		canvasNode('Wait', WAIT, 1.1, { resume: 'timeInterval', amount: INTERVAL_S, unit: 'seconds' }),
		canvasNode('Get Status', HTTP_REQUEST, 4.2, { method: 'GET', url: `=${url}/api/v1/jobs/{{ $('Submit Job').item.json.jobId }}`, ...auth }, { credentials }),
		canvasNode('Finished?', IF, 2.2, {
			conditions: { options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 }, conditions: finished, combinator: 'or' },
			options: {},
		}),
	];
	const connections = connect([
		['Submit Job', 'Wait'],
		['Wait', 'Get Status'],
		['Get Status', 'Finished?'],
		['Finished?', 'Wait', 1],
	]);
	return { id: `wait-loop-${flowFileName.length}`, nodes, connections };
}

async function theirLoop(url: string, flowFileName: string): Promise<Outcome> {
	const workflow = loopWorkflow(url, flowFileName);
	const result = await runWorkflow(workflow, { credentials: { httpBearerAuth: { token: NATIVE_TOKEN } }, start: 'Submit Job' });
	const finishedAt = Date.now();
	const [job] = lastOutput(result, 'Finished?', 0);
	if (result.error || !job) throw new Error(`hand-made wait loop failed: ${result.error?.message ?? 'no output'}`);
	const runData = result.run.data.resultData.runData;
	return {
		job,
		finishedAt,
		nodesOnCanvas: workflow.nodes.length,
		nodeRuns: Object.values(runData).reduce((sum, runs) => sum + runs.length, 0),
		storedBytes: JSON.stringify(runData).length,
	};
}

async function ourNode(url: string, flowFileName: string): Promise<Outcome> {
	const result = await runActionNode({
		credentials: credentialsFor(url),
		parameters: {
			authentication: 'jobExecutionApi',
			resource: 'job',
			operation: 'submit',
			flowFileName,
			runProfileName: 'default',
			waitForCompletion: true,
			waitSettings: { pollInterval: INTERVAL_S, timeout: 120 },
		},
	});
	const finishedAt = Date.now();
	if (result.error) throw new Error(`Submit + Wait failed: ${result.error.message}`);
	const runData = result.run.data.resultData.runData;
	return { job: result.json[0], finishedAt, nodesOnCanvas: 1, nodeRuns: Object.values(runData).reduce((sum, runs) => sum + runs.length, 0), storedBytes: JSON.stringify(runData).length };
}

function requestsOf(requests: RecordedRequest[], outcome: Outcome) {
	const jobId = String(outcome.job.id);
	const reads = requests.filter((r) => r.method === 'GET' && r.path.includes(encodeURIComponent(jobId)));
	const gaps = reads.slice(1).map((read, i) => read.receivedAt - reads[i].receivedAt);
	return { reads: reads.length, gaps, delayMs: outcome.finishedAt - Number(outcome.job.endTime) };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export async function measureVsWaitLoop(): Promise<Figure[]> {
	await loadN8nBaseNodes();
	const server = await startServerProcess({ catalog: BENCH_CATALOG, concurrency: 10 });
	const front = await startRecordingFront(server.url);
	try {
		const flows = [THIRTY_SECONDS_FLOW, THIRTY_SECONDS_AND_A_BIT_FLOW];
		const [ours, theirs] = await Promise.all([Promise.all(flows.map((flow) => ourNode(front.url, flow))), Promise.all(flows.map((flow) => theirLoop(front.url, flow)))]);
		const submits = front.requests.filter((r) => r.method === 'POST').length;
		const o = ours.map((outcome) => requestsOf(front.requests, outcome));
		const t = theirs.map((outcome) => requestsOf(front.requests, outcome));
		const describe = (label: string, r: ReturnType<typeof requestsOf>[], outcomes: Outcome[]) =>
			flows
				.map((flow, i) => `${label}, ${flow.includes('and-a-bit') ? '30.3 s' : '30 s'} job: 1 submit + ${r[i].reads} reads, gaps ${r[i].gaps.map((gap) => (gap / 1000).toFixed(2)).join(', ')} s, output ${seconds(r[i].delayMs)} after the end, ${outcomes[i].nodeRuns} node runs stored (${(outcomes[i].storedBytes / 1024).toFixed(1)} KiB of run data)`)
				.join('; ');
		const allFinal = [...ours, ...theirs].every((outcome) => FINAL.includes(String(outcome.job.executionStatus)));
		return [
			{
				id: 'B1',
				name: `Submit and wait (30 s and 30.3 s jobs, ${INTERVAL_S} s interval): requests per job, Job Execution node vs hand-made loop`,
				measured: `1 + ${o.map((r) => r.reads).join(' / ')} vs 1 + ${t.map((r) => r.reads).join(' / ')}`,
				goal: '≤ the loop’s',
				verdict: verdict(allFinal && submits === 4 && o.every((r, i) => r.reads <= t[i].reads)),
				details: [describe('Job Execution node', o, ours), describe('HTTP Request → Wait → HTTP Request → If loop', t, theirs)],
			},
			{
				id: 'B2',
				name: 'Submit and wait: delay from the job’s end to the output (30 s / 30.3 s job), node vs loop',
				measured: `${seconds(o[0].delayMs)} / ${seconds(o[1].delayMs)} vs ${seconds(t[0].delayMs)} / ${seconds(t[1].delayMs)}`,
				goal: `≤ ${INTERVAL_S} s + 1 round trip`,
				verdict: verdict(o.every((r) => r.delayMs <= INTERVAL_S * 1000 + 250)),
			},
			{
				id: 'B3',
				name: 'Submit and wait: nodes on the canvas / node runs stored per job, node vs loop',
				measured: `${ours[0].nodesOnCanvas} / ${ours[0].nodeRuns} vs ${theirs[0].nodesOnCanvas} / ${theirs.map((x) => x.nodeRuns).join(' or ')}`,
				goal: '(context)',
				verdict: 'info',
				details: [
					'the loop has no timeout (a job stuck RUNNING loops for ever), no retry of a failed read (one refused read fails the run), and an ERROR or CANCELLED job leaves it as a success; the node has all three',
				],
			},
		];
	} finally {
		await front.close();
		await server.stop();
	}
}
