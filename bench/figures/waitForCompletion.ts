/**
 * Figure 3: a real 30 s job waited for with a 5 s poll interval, in real time (the node's wait sleeps for real).
 * Two waits run side by side in the same 35 s, through a hop that records every request:
 * - Submit with Wait for Completion on a 30 s job: the reads fall right after the job's end (best phase).
 * - Wait for Completion on a 30.3 s job, from its start: the job ends 0.3 s after a read (worst phase), so
 *   the end is seen one interval later.
 */
import { Agent } from 'http';

import type { IDataObject } from 'n8n-workflow';

import { runActionNode } from '../../testkit/engine';
import { credentialsFor } from '../../testkit/fixtures';
import { BENCH_CATALOG, THIRTY_SECONDS_AND_A_BIT_FLOW, THIRTY_SECONDS_FLOW } from '../lib/catalog';
import type { Figure } from '../lib/figure';
import { verdict } from '../lib/figure';
import { rawClient, submitJobs } from '../lib/rawClient';
import type { RecordedRequest } from '../../testkit/recordingFront';
import { startRecordingFront } from '../../testkit/recordingFront';
import { startServerProcess } from '../lib/serverProcess';
import { median } from '../lib/stats';

const INTERVAL_S = 5;
const WAIT_SETTINGS = { pollInterval: INTERVAL_S, timeout: 120 };

interface WaitOutcome {
	job: IDataObject;
	/** Date.now() when the node handed back its output. */
	finishedAt: number;
}

async function timed(run: Promise<{ json: IDataObject[]; error?: Error }>): Promise<WaitOutcome> {
	const result = await run;
	if (result.error) throw new Error(`wait failed: ${result.error.message}`);
	return { job: result.json[0], finishedAt: Date.now() };
}

function describeWait(label: string, outcome: WaitOutcome, reads: RecordedRequest[], submits: number) {
	const endTime = Number(outcome.job.endTime);
	const gaps = reads.slice(1).map((read, i) => read.receivedAt - reads[i].receivedAt);
	const lastReadBeforeEnd = reads.filter((read) => read.receivedAt < endTime).pop();
	return {
		reads: reads.length,
		minGapMs: Math.min(...gaps),
		delayMs: outcome.finishedAt - endTime,
		text:
			`${label}: ${submits ? `${submits} submit + ` : ''}${reads.length} reads over ${((reads[reads.length - 1].receivedAt - reads[0].receivedAt) / 1000).toFixed(2)} s, ` +
			`gaps ${gaps.map((gap) => (gap / 1000).toFixed(2)).join(', ')} s; the job ended ${lastReadBeforeEnd ? `${((endTime - lastReadBeforeEnd.receivedAt) / 1000).toFixed(2)} s after the read before it` : 'before the first read'}, ` +
			`the node returned ${((outcome.finishedAt - endTime) / 1000).toFixed(3)} s after the end`,
	};
}

export async function measureWaitForCompletion(): Promise<Figure[]> {
	const server = await startServerProcess({ catalog: BENCH_CATALOG, concurrency: 10 });
	const front = await startRecordingFront(server.url);
	try {
		// One round trip as the node makes it: a new connection, through the same hop.
		const viaFront = rawClient(front.url);
		const [probeJob] = await submitJobs(rawClient(server.url), 1, THIRTY_SECONDS_FLOW);
		const roundTrips: number[] = [];
		for (let i = 0; i < 21; i++) {
			const start = Date.now();
			await viaFront.get(`/api/v1/jobs/${probeJob}`, { httpAgent: new Agent() });
			roundTrips.push(Date.now() - start);
		}
		const roundTripMs = median(roundTrips);
		front.requests.length = 0;

		const [worstJob] = await submitJobs(rawClient(server.url), 1, THIRTY_SECONDS_AND_A_BIT_FLOW);
		const credentials = credentialsFor(front.url);
		const [aligned, worst] = await Promise.all([
			timed(
				runActionNode({
					credentials,
					parameters: {
						authentication: 'jobExecutionApi',
						resource: 'job',
						operation: 'submit',
						flowFileName: THIRTY_SECONDS_FLOW,
						runProfileName: 'default',
						waitForCompletion: true,
						waitSettings: WAIT_SETTINGS,
					},
				}),
			),
			timed(
				runActionNode({
					credentials,
					parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'waitForCompletion', jobId: worstJob, waitSettings: WAIT_SETTINGS },
				}),
			),
		]);
		const readsOf = (jobId: string) => front.requests.filter((r) => r.method === 'GET' && r.path.includes(encodeURIComponent(jobId)));
		const submits = front.requests.filter((r) => r.method === 'POST').length;
		const best = describeWait('Submit + Wait, 30 s job', aligned, readsOf(String(aligned.job.id)), submits);
		const late = describeWait('Wait for Completion, 30.3 s job', worst, readsOf(worstJob), 0);
		const intervalMs = INTERVAL_S * 1000;
		const delayGoalMs = intervalMs + roundTripMs;
		const worstDelay = Math.max(best.delayMs, late.delayMs);
		return [
			{
				id: '3a',
				name: `Wait for completion: requests for a 30 s job, ${INTERVAL_S} s interval`,
				measured: `${submits} submit + ${best.reads} reads; reads ≥ ${(Math.min(best.minGapMs, late.minGapMs) / 1000).toFixed(2)} s apart`,
				goal: `≤ 1 read per ${INTERVAL_S} s interval`,
				verdict: verdict(Math.min(best.minGapMs, late.minGapMs) >= intervalMs),
				details: [best.text, late.text],
			},
			{
				id: '3b',
				name: 'Wait for completion: delay from the job’s end to the node’s output (best / worst phase)',
				measured: `${(best.delayMs / 1000).toFixed(3)} s / ${(late.delayMs / 1000).toFixed(3)} s`,
				goal: `≤ ${INTERVAL_S} s + 1 round trip (${roundTripMs} ms)`,
				verdict: verdict(worstDelay <= delayGoalMs),
				details: [`one round trip (new connection, through the recording hop): median ${roundTripMs} ms of ${roundTrips.length}`],
			},
		];
	} finally {
		await front.close();
		await server.stop();
	}
}
