// Soak: the trigger's state through 1,000,000 jobs (about 25 s): one event per (job, status), and the state stays
// under 64 KiB. Split out of test/unit/jobStatusTracker.test.ts so that `npm test` stays fast.
import {
	computeEvents,
	DEFAULT_TERMINAL_WINDOW,
	emptyState,
	jobsToReadIndividually,
} from '../../nodes/JobExecutionTrigger/jobStatusTracker';
import type { JobSnapshot, Observation, TrackerOptions, TrackerState } from '../../nodes/JobExecutionTrigger/jobStatusTracker';

const T0 = 1_763_700_000_000;

const anyChange: TrackerOptions = { watch: 'anyChange', startFrom: 'now' };

function obs(partial: Partial<Observation>): Observation {
	return { active: [], history: [], individual: [], notFound: [], ...partial };
}

function doneIds(state: TrackerState): string[] {
	return state.done.map(([id]) => id);
}

function uuid(n: number): string {
	return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

describe('state size', () => {
	it('1,000,000 jobs: one event per (job, status), state stays under 64 KiB', () => {
		const total = 1_000_000;
		const batch = 50;
		const polls = total / batch + 2;
		const fired = new Uint8Array(total);
		const bit: Record<string, number> = { QUEUED: 1, RUNNING: 2, COMPLETED: 4 };
		let duplicates = 0;
		let eventCount = 0;
		let maxSize = 0;
		let state = computeEvents(emptyState(), obs({}), anyChange).state;
		const snapshot = (index: number, status: string, poll: number): JobSnapshot => ({
			id: uuid(index),
			executionStatus: status,
			flowName: 'flowA',
			runProfileName: 'p1',
			startTime: status === 'QUEUED' ? null : T0 + poll * 1000,
			endTime: status === 'COMPLETED' ? T0 + poll * 1000 + (index % batch) : null,
		});
		// Poll k: batch k queued, k-1 running, k-2 and k-3 completed (lists of 100, newest first).
		const batchJobs = (k: number, status: string, poll: number): JobSnapshot[] => {
			const out: JobSnapshot[] = [];
			if (k < 0 || k * batch >= total) return out;
			for (let i = k * batch + batch - 1; i >= k * batch; i--) out.push(snapshot(i, status, status === 'COMPLETED' ? k + 2 : poll));
			return out;
		};
		for (let k = 0; k < polls; k++) {
			const active = [...batchJobs(k, 'QUEUED', k), ...batchJobs(k - 1, 'RUNNING', k)];
			const history = [...batchJobs(k - 2, 'COMPLETED', k), ...batchJobs(k - 3, 'COMPLETED', k)];
			expect(jobsToReadIndividually(state, active, history, 20)).toEqual([]);
			const result = computeEvents(state, obs({ active, history }), anyChange);
			for (const e of result.events) {
				const index = parseInt(e.job.id.slice(24), 16);
				if (fired[index] & bit[e.status]) duplicates++;
				fired[index] |= bit[e.status];
				eventCount++;
			}
			state = result.state;
			if (k % 500 === 0 || k === polls - 1) maxSize = Math.max(maxSize, JSON.stringify(state).length);
		}
		// The last batches finish after the loop: drain them.
		for (let k = polls; k < polls + 2; k++) {
			const history = [...batchJobs(k - 2, 'COMPLETED', k), ...batchJobs(k - 3, 'COMPLETED', k)];
			const result = computeEvents(state, obs({ history }), anyChange);
			for (const e of result.events) {
				fired[parseInt(e.job.id.slice(24), 16)] |= bit[e.status];
				eventCount++;
			}
			state = result.state;
		}
		const finalSize = JSON.stringify(state).length;
		maxSize = Math.max(maxSize, finalSize);
		expect(duplicates).toBe(0);
		expect(eventCount).toBe(total * 3);
		expect(fired.every((bits) => bits === 7)).toBe(true);
		expect(doneIds(state)).toHaveLength(DEFAULT_TERMINAL_WINDOW);
		expect(state.open).toEqual({});
		expect(maxSize).toBeLessThan(64 * 1024);
		// Reported by the trigger's author: the measured size for 1,000,000 jobs.
		process.stdout.write(`jobStatusTracker state after ${total} jobs: final ${finalSize} B, max sampled ${maxSize} B\n`);
	});
});
