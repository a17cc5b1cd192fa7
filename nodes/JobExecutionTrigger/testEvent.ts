/** "Fetch test event": the most recent matching job, with the same filters, and no state written. */
import { NodeOperationError } from 'n8n-workflow';
import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { normalizeStatus, readableJobId, toMillis } from '../shared/jobVocabulary';
import { eventJson } from './eventOutput';
import type { EventOutput } from './eventOutput';
import { emissionFilter } from './jobStatusTracker';
import type { JobSnapshot, TrackedJob, TrackerOptions } from './jobStatusTracker';

export function testEvent(
	context: IPollFunctions,
	tracker: TrackerOptions,
	active: JobSnapshot[],
	history: JobSnapshot[],
	output: EventOutput,
): INodeExecutionData[] {
	const watch = tracker.watch;
	const matches = emissionFilter(tracker);
	const matching = [...active, ...history].flatMap((job): TrackedJob[] => {
		const id = readableJobId(job);
		return id !== null && matches({ job }) ? [{ ...job, id }] : [];
	});
	const latest = matching.sort((a, b) => recency(b) - recency(a))[0];
	if (!latest) {
		const statuses = watch === 'anyChange' ? 'any status' : watch.join(', ') || 'no status';
		const filters = [tracker.flowName && `flow "${tracker.flowName}"`, tracker.runProfileName && `run profile "${tracker.runProfileName}"`]
			.filter(Boolean)
			.join(' and ');
		throw new NodeOperationError(context.getNode(), 'No job matches the trigger settings yet', {
			description: `Checked ${active.length} active and ${history.length} finished jobs: none is in ${statuses}${filters ? ` with ${filters}` : ''}. Submit a job, or widen Statuses to Watch and Filters.`,
		});
	}
	return [
		{
			json: eventJson(
				{ job: latest, event: 'newJob', status: normalizeStatus(latest.executionStatus), previousStatus: null, skippedStatuses: [] },
				output,
			),
		},
	];
}

function recency(job: JobSnapshot): number {
	return toMillis(job.endTime) ?? toMillis(job.startTime) ?? toMillis(job.currentStepStartTime) ?? 0;
}
