import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OperationOption } from '../registry';
import { batchingFields, readConcurrency } from '../../helpers/batching';
import { checkParameters, parametersFromJson } from '../../helpers/jobParameters';
import type { JobParameter } from '../../helpers/jobParameters';
import { badParameter, itemParameter, readBoolean, readText } from '../../helpers/itemParameters';
import { sentId } from '../../../shared/redaction';
import { settle } from '../../../shared/settle';
import { checkJobOutcome, readWaitSettings, waitForJob } from '../../helpers/waitForJob';
import type { ApiCall, ResolvedConnection } from '../../../shared/transport';
import { apiRequest, flowNavigationUrl, NATIVE_CREDENTIAL, RELAY_CREDENTIAL, submitCall } from '../../../shared/transport';
import { isPlainObject, isUuid, jobIdProblem } from '../../../shared/jobVocabulary';
import { mayHaveAcceptedJob, toNodeApiError } from '../../../shared/transport/errors';
import { notResentText, submitSlot } from '../../helpers/submittedJobs';
import type { SubmitRecord, SubmitSlot } from '../../helpers/submittedJobs';
import { flowFileNameField, nameLocatorField, waitSettingsCollections } from '../../../shared/descriptions';
import { nodeVersion } from '../../../shared/nodeVersion';
import { fromVersion2, version1Only } from '../../../shared/versionDisplay';
import { hintLongWait } from '../../helpers/hints';
import { summarizeJob } from '../../../shared/jobSummary';
import { ItemWithFiles, jobItem, readJobItemSettings } from '../../helpers/jobItems';
import { jobOutputFields } from '../../helpers/outputFields';

export const properties: INodeProperties[] = [
	...version1Only([
		{
			displayName:
				'The credential picks the interface: a Job Execution API credential submits over the native REST API and asks for a Flow File Path; a Job Execution Relay API credential submits through the relay and asks for a Flow ID',
			name: 'interfaceNotice',
			type: 'notice',
			default: '',
		},
	]),
	// Version 2 shows it only where it helps: the relay asks for a Flow ID where the native API asks for a path.
	...fromVersion2([
		{
			displayName: 'The relay names a flow by its ID: to submit by flow file path instead, pick a Job Execution API credential (native REST API)',
			name: 'interfaceNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { '/authentication': [RELAY_CREDENTIAL] } },
		},
	]),
	{ ...flowFileNameField, displayOptions: { show: { '/authentication': [NATIVE_CREDENTIAL] } } },
	{
		displayName: 'Flow ID',
		name: 'flowId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10',
		description:
			"Identifier (UUID) of the flow to run: the relay takes the flow ID instead of its path. The flow's properties in the service show it; the demo service (npm start) prints its flows' IDs.",
		displayOptions: { show: { '/authentication': [RELAY_CREDENTIAL] } },
	},
	...version1Only([
		{
			displayName: 'Run Profile',
			name: 'runProfileName',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. default',
			description: 'Name of the run profile to execute',
		},
	]),
	...fromVersion2([
		nameLocatorField({ displayName: 'Run Profile', name: 'runProfileName', searchListMethod: 'searchRunProfiles', required: true, description: 'Name of the run profile to execute: one the service has run, or any name typed' }),
	]),
	{
		displayName: 'Notification Enabled',
		name: 'notificationEnabled',
		type: 'boolean',
		default: false,
		description: 'Whether the service should send its notification for this job',
	},
	{
		displayName: 'Define Parameters',
		name: 'parametersInputMode',
		type: 'options',
		default: 'fields',
		options: [
			{ name: 'Using Fields Below', value: 'fields' },
			{ name: 'Using JSON', value: 'json' },
		],
	},
	{
		displayName: 'Parameters',
		name: 'parameters',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		default: {},
		placeholder: 'Add Parameter',
		displayOptions: { show: { parametersInputMode: ['fields'] } },
		options: [
			{
				displayName: 'Parameter',
				name: 'parameter',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '' },
					{
						displayName: 'Type',
						name: 'type',
						type: 'options',
						default: 'string',
						options: [
							{ name: 'String', value: 'string' },
							{ name: 'Integer', value: 'integer' },
							{ name: 'Float', value: 'float' },
						],
					},
					{ displayName: 'Value', name: 'value', type: 'string', default: '' },
				],
			},
		],
	},
	{
		displayName: 'Parameters (JSON)',
		name: 'parametersJson',
		type: 'json',
		default: '[]',
		description:
			'An array of { "name", "type", "value" } objects, or an object of name: value (whole numbers become integer, other numbers float)',
		displayOptions: { show: { parametersInputMode: ['json'] } },
	},
	{
		displayName: 'Wait for Completion',
		name: 'waitForCompletion',
		type: 'boolean',
		default: false,
		description: 'Whether to wait until the job ends and output its final status instead of the job ID',
	},
	...waitSettingsCollections({ show: { waitForCompletion: [true] } }),
	...jobOutputFields({ logFile: true }).map((field) => ({ ...field, displayOptions: { ...field.displayOptions, show: { ...field.displayOptions?.show, waitForCompletion: [true] } } })),
	...batchingFields('are submitted (and, with Wait for Completion, waited for)'),
];

export const option: OperationOption<'submit'> = {
	name: 'Submit',
	value: 'submit',
	description: 'Submit a job, optionally waiting until it ends',
	action: 'Submit a job',
};

export const concurrency = readConcurrency;

function readParameters(context: IExecuteFunctions, itemIndex: number): JobParameter[] {
	const result =
		itemParameter(context, 'parametersInputMode', itemIndex, 'fields') === 'json'
			? parametersFromJson(itemParameter(context, 'parametersJson', itemIndex, '[]'))
			: checkParameters((itemParameter(context, 'parameters', itemIndex, {}) as IDataObject).parameter ?? []);
	if (result.problem) {
		throw badParameter(
			context,
			itemIndex,
			`${result.problem.subject} ${result.problem.reason}`,
			'Parameter names must be unique and not empty; integer values whole numbers; float values numbers.',
		);
	}
	return result.parameters;
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	connection: ResolvedConnection,
): Promise<IDataObject | ItemWithFiles> {
	const relay = connection.credentialType === RELAY_CREDENTIAL;
	const flowKey = relay ? 'flowId' : 'flowFileName';
	const flow = readText(this, itemIndex, flowKey, relay ? 'Flow ID' : 'Flow File Path', { required: true });
	if (relay && !isUuid(flow)) {
		throw badParameter(this, itemIndex, `Flow ID "${flow.slice(0, 80)}" is not a UUID`, 'The relay names flows by their ID, e.g. 3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10.');
	}
	const runProfileName = readText(this, itemIndex, 'runProfileName', 'Run Profile', { required: true, locator: true });
	const notificationEnabled = readBoolean(this, itemIndex, 'notificationEnabled', 'Notification Enabled', false);
	const parameters = readParameters(this, itemIndex);
	const waitForCompletion = readBoolean(this, itemIndex, 'waitForCompletion', 'Wait for Completion', false);
	// Read every setting before submitting: a bad setting must never leave a job behind without its item.
	const waitSettings = waitForCompletion ? readWaitSettings(this, itemIndex, 'waitSettings') : undefined;
	const shown = waitForCompletion ? readJobItemSettings(this, itemIndex) : undefined;

	const body: IDataObject = { [flowKey]: flow, runProfileName, notificationEnabled };
	if (parameters.length > 0) body.parameters = parameters;
	// n8n's Retry On Fail runs the node again with the same items: an item whose job exists is never sent again.
	const slot = submitSlot(this, itemIndex);
	if (slot.previous?.kind === 'submitted' && slot.previous.output) return slot.previous.output;
	const submitted = slot.previous ? { jobId: jobOfEarlierTry(this, slot.previous, itemIndex) } : await submitOnce(this, connection, body, slot, itemIndex);
	const jobId = submitted.jobId;

	if (waitSettings && shown) {
		// The job is read under the id the service sent, even where redaction hid part of it in what is shown.
		const stats = { reads: 0 };
		const waited = await settle(waitForJob.call(this, connection, jobId, waitSettings, itemIndex, { readFirst: false, readAs: submitted.sentId, stats }));
		if (!waited.ok) throw submittedButNotWaited(waited.error, jobId);
		if (nodeVersion(this) >= 2) hintLongWait(this, { reads: stats.reads, runtimeSeconds: summarizeJob(waited.value).runtimeSeconds });
		const job = checkJobOutcome(this, waited.value, jobId, waitSettings, itemIndex, connection);
		const item = await jobItem(this, shown, job, jobId);
		// Version 1 put jobId last; version 2's shapes already hold it first.
		return item instanceof ItemWithFiles ? item : { ...item, jobId };
	}
	const output: IDataObject = { jobId, [flowKey]: flow, runProfileName, notificationEnabled, parameters };
	if (connection.credentialType === NATIVE_CREDENTIAL) {
		output.navigationUrl = flowNavigationUrl(connection.baseUrl, { flowFileName: flow, runProfile: runProfileName });
	}
	slot.record({ kind: 'submitted', jobId, output });
	return output;
}

/**
 * Sends the submission, and remembers a created job, or a submission whose outcome is unknown. Version 2 sends it
 * again only when the service said it took nothing (a 429: notAccepted in transport/errors.ts), after its wait;
 * version 1 sends it once, whatever the answer, as it always did.
 */
async function submitOnce(
	context: IExecuteFunctions,
	connection: ResolvedConnection,
	body: IDataObject,
	slot: SubmitSlot,
	itemIndex: number,
): Promise<{ jobId: string; sentId?: string }> {
	const call: ApiCall = submitCall(body);
	const sent = await settle(apiRequest.call(context, connection, call, { itemIndex, singleAttempt: nodeVersion(context) < 2 }));
	if (!sent.ok) {
		if (mayHaveCreatedJob(sent.error)) slot.record(unknownOutcome(sent.error));
		throw sent.error;
	}
	const jobId = jobIdFromAnswer(sent.value.body);
	if (!jobId) {
		const failure = { kind: 'unreadable', statusCode: sent.value.statusCode, problem: 'has no usable job ID' } as const;
		const error = toNodeApiError(context.getNode(), failure, call, connection, connection.secrets, itemIndex);
		slot.record(unknownOutcome(error));
		throw error;
	}
	slot.record({ kind: 'submitted', jobId });
	return { jobId, sentId: sentJobId(sent.value.body) };
}

/** Whether the job may exist: transport/errors.ts's classifier decides, never the error's words. */
function mayHaveCreatedJob(error: unknown): error is NodeApiError {
	return error instanceof NodeApiError && mayHaveAcceptedJob(error);
}

function unknownOutcome(error: NodeApiError): SubmitRecord {
	return { kind: 'unknown', message: error.message, description: error.description ?? undefined, httpCode: error.httpCode ?? undefined };
}

/** On a retry: the job the first try created, or an error when that try's outcome is unknown. */
function jobOfEarlierTry(context: IExecuteFunctions, previous: SubmitRecord, itemIndex: number): string {
	if (previous.kind === 'submitted') return previous.jobId;
	const { message, description } = notResentText(previous, itemIndex);
	const httpCode = previous.httpCode;
	const error = new NodeApiError(context.getNode(), { message, httpCode: httpCode ?? null }, { message, description, httpCode, itemIndex });
	// NodeApiError swaps the message of well-known codes for a generic one; this one says what happened.
	error.message = message;
	throw error;
}

/** The job exists, only the wait failed: the error must say so, or the item looks failed and gets submitted again. */
function submittedButNotWaited(error: unknown, jobId: string): unknown {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		const advice = `Job ${jobId} was submitted; only waiting for it failed, so do not submit it again: use Get or Wait for Completion with this job ID.`;
		error.description = error.description ? `${advice} ${error.description}` : advice;
	}
	return error;
}

/** The job id as the service sent it, when redaction changed it in the answer (see keepSentId); undefined otherwise. */
function sentJobId(answer: unknown): string | undefined {
	if (!isPlainObject(answer)) return undefined;
	const sent = sentId(answer, answer.jobId !== undefined ? 'jobId' : 'id')?.trim();
	return sent !== undefined && jobIdProblem(sent) === null ? sent : undefined;
}

/**
 * `{ jobId }` (or `{ id }`), or a bare id as text or a JSON string. A bare text must have the UUID form the spec gives
 * job ids, so that a status text such as "Accepted" is never taken for an id.
 */
function jobIdFromAnswer(answer: unknown): string | undefined {
	let id: unknown = answer;
	if (isPlainObject(answer)) id = answer.jobId ?? answer.id;
	else if (typeof answer !== 'string' || !isUuid(answer.trim())) return undefined;
	if (typeof id !== 'string') return undefined;
	const trimmed = id.trim();
	return jobIdProblem(trimmed) === null ? trimmed : undefined;
}
