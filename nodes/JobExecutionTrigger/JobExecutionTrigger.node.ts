import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';

import {
	authenticationField,
	credentialsDescription,
	JOB_STATUS_OPTIONS,
	parseLogField,
	simplifyField,
	TRIGGER_DOCS_URL,
} from '../shared/descriptions';
import { fromVersion2 } from '../shared/versionDisplay';
import type { CredentialType } from '../shared/transport';
import { getConnection, transportTiming } from '../shared/transport';
import { TERMINAL_STATUSES } from '../shared/jobVocabulary';
import { computeEvents, jobsToReadIndividually } from './jobStatusTracker';
import { eventJson } from './eventOutput';
import { filterCollections, filterSearch } from './filterPickers';
import { readIndividually, readsDeadline } from './individualReads';
import { listJobs } from './listedJobs';
import { logPoll } from './pollLog';
import { gapJson } from './possibleGap';
import { memoryKey, remember, resumeState } from './processMemory';
import { readLists, waitingForService } from './retryAfterPause';
import { testEvent } from './testEvent';
import { DEFAULT_MAX_INDIVIDUAL_READS, outputOf, readMaxReads, readOnGap, trackerOptions } from './triggerSettings';

/**
 * The trigger: its description, and `poll()`, which glues the mechanisms together (each in a file named for it):
 * the settings, the Retry-After pause, the lists, the individual reads, the pure tracker, the process's memory
 * across re-activations, the log line and the test event.
 */
export class JobExecutionTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Job Execution Trigger',
		name: 'jobExecutionTrigger',
		icon: { light: 'file:../JobExecution/jobExecution.svg', dark: 'file:../JobExecution/jobExecution.dark.svg' },
		group: ['trigger'],
		// 2.1 (light versioning): a failed event says why (failureReason), Simplify's times in the workflow's zone.
		version: [1, 2, 2.1],
		defaultVersion: 2.1,
		subtitle: '={{ $parameter["triggerOn"] === "anyChange" ? "Any status change" : "Job status changes" }}',
		description: 'Starts the workflow when a job on the Job Execution Service is submitted, starts, completes, fails or is cancelled',
		defaults: { name: 'Job Execution Trigger' },
		// Used by n8n's editor as it is (see the action node): a #fragment in the codex URL would never match.
		documentationUrl: TRIGGER_DOCS_URL,
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: credentialsDescription,
		properties: [
			authenticationField,
			{
				displayName: 'Trigger On',
				name: 'triggerOn',
				type: 'options',
				default: 'statuses',
				options: [
					{ name: 'Jobs Reaching a Status', value: 'statuses', description: 'Fire when a job reaches one of the statuses below' },
					{ name: 'Any Status Change', value: 'anyChange', description: 'Fire on every new job and every status change' },
				],
			},
			{
				displayName: 'Statuses to Watch',
				name: 'statuses',
				type: 'multiOptions',
				default: [...TERMINAL_STATUSES],
				options: JOB_STATUS_OPTIONS,
				displayOptions: { show: { triggerOn: ['statuses'] } },
			},
			{
				displayName: 'Start From',
				name: 'startFrom',
				type: 'options',
				default: 'now',
				options: [
					{
						name: 'Changes From Now On',
						value: 'now',
						description: 'The first poll after activation only records the jobs that exist',
					},
					{
						name: 'Include Existing Jobs',
						value: 'existing',
						description: 'The first poll also fires for the jobs already listed (up to 100 active and 100 finished)',
					},
				],
			},
			...filterCollections,
			...fromVersion2([simplifyField]),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					parseLogField,
					{
						displayName: 'Max Individual Reads per Poll',
						name: 'maxIndividualReads',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 500 },
						default: DEFAULT_MAX_INDIVIDUAL_READS,
						description:
							'Tracked jobs that no longer appear in the service’s lists (capped at 100) are read one by one, at most this many per poll',
					},
					{
						displayName: 'On Possible Gap',
						name: 'onPossibleGap',
						type: 'options',
						default: 'logOnly',
						options: [
							{
								name: 'Emit a Possible Gap Item',
								value: 'emitItem',
								description: 'Also emit one item with event "possibleGap", the time window and an estimate of how many jobs may be hidden',
							},
							{ name: 'Log Only', value: 'logOnly', description: 'Write a warning to n8n’s log' },
						],
						description:
							'The service lists at most 100 jobs: when a full list holds no job the trigger saw before, jobs may have ended unseen',
					},
				],
			},
		],
	};

	methods = { listSearch: filterSearch };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const connection = await getConnection.call(this, this.getNodeParameter('authentication') as CredentialType);
		const tracker = trackerOptions(this);
		const options = (this.getNodeParameter('options', {}) as IDataObject) ?? {};
		const output = outputOf(this, options);
		const maxReads = readMaxReads(this, options);
		const onGap = readOnGap(this, options);
		// Whatever the service does, a poll ends by this deadline (every request of it included).
		const startedAt = Date.now();
		const deadline = startedAt + transportTiming.callMs;
		if (this.getMode() === 'manual') {
			const active = await listJobs(this, connection, 'active', { deadline, startedAt });
			const history = await listJobs(this, connection, 'history', { deadline, startedAt });
			return [testEvent(this, tracker, active.jobs, history.jobs, output)];
		}
		const staticData = this.getWorkflowStaticData('node');
		const key = memoryKey(this, connection);
		if (waitingForService(this, staticData, key, startedAt)) return null;
		const { active, history } = await readLists(this, connection, staticData, key, { deadline, startedAt });

		const state = resumeState(key, staticData);
		const ids = jobsToReadIndividually(state, active.jobs, history.jobs, maxReads);
		const reads = await readIndividually(this, connection, ids, readsDeadline(this, deadline));

		const observation = { active: active.jobs, history: history.jobs, ...reads, now: Date.now() };
		const { events, state: next, stats } = computeEvents(state, observation, tracker);
		// Stored only now: a poll that failed above leaves the previous state, so nothing is lost or repeated.
		const items = events.map((event) => ({ json: eventJson(event, output) }));
		if (stats.gap !== null && onGap === 'emitItem') items.unshift({ json: gapJson(stats.gap) });
		staticData.tracker = next;
		staticData.stamp = remember(key, next, items.length > 0);
		logPoll(this, { ...stats, unreadable: active.dropped + history.dropped + stats.unreadable }, reads.reasons);
		return items.length === 0 ? null : [items];
	}
}
