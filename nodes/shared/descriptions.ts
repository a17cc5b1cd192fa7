import type { INodeCredentialDescription, INodeProperties } from 'n8n-workflow';

import { JOB_STATUSES } from './jobVocabulary';
import { NATIVE_CREDENTIAL, RELAY_CREDENTIAL } from './transport/serviceCredentials';
import { beforeVersion21, fromVersion21 } from './versionDisplay';

const REPOSITORY_URL = 'https://github.com/n8n-nodes-job-execution/n8n-nodes-job-execution';
/** The nodes' Docs links: the README part each node's reference is in. */
export const NODE_DOCS_URL = `${REPOSITORY_URL}#operations`;
export const TRIGGER_DOCS_URL = `${REPOSITORY_URL}#trigger`;

/** The vocabulary's statuses as editor options: "Queued" for QUEUED, and so on (the value is the stable status). */
export const JOB_STATUS_OPTIONS = JOB_STATUSES.map((status) => ({ name: status[0] + status.slice(1).toLowerCase(), value: status }));

export const flowFileNameField: INodeProperties = {
	displayName: 'Flow File Path',
	name: 'flowFileName',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. /Shared/Flows/sales.flow',
	description: 'Fully qualified path of the flow file',
};

/** A resource locator; workflows saved when it was plain text hold a string, which the node reads the same way. */
export const jobIdField: INodeProperties = {
	displayName: 'Job ID',
	name: 'jobId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The job: a recent one from the list, or its ID (e.g. the jobId returned by Submit)',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a job...',
			typeOptions: { searchListMethod: 'searchJobs', searchable: true },
		},
		{ displayName: 'By ID', name: 'id', type: 'string', placeholder: 'e.g. 3f2b8c1e-…' },
	],
};

export const parseLogField: INodeProperties = {
	displayName: 'Parse Log',
	name: 'parseLog',
	type: 'boolean',
	default: false,
	description:
		"Whether to add logParsed beside the raw log, read with the job log grammar of the package's docs/log-format.md: entries, parameters, node performance, step results and the completion message. Lines it does not know are kept apart, never dropped: in logParsed.unknownLines, or in the message of the entry they follow.",
};

/** Shown where a full JobStatus comes back. */
export const outputOptionFields: INodeProperties[] = [
	parseLogField,
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: false,
		description: 'Whether to return a compact summary of the job instead of all its fields',
	},
];

export const outputOptionsCollection: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: outputOptionFields,
};

/** Exact-match filters on the jobs the service returns (Get Many, the trigger). */
export const jobFilterFields: INodeProperties[] = [
	{ displayName: 'Flow Name', name: 'flowName', type: 'string', default: '', description: 'Only jobs of this flow (exact name)' },
	{ displayName: 'Run Profile', name: 'runProfileName', type: 'string', default: '', description: 'Only jobs of this run profile (exact name)' },
];

const pollIntervalField: INodeProperties = {
	displayName: 'Poll Interval (Seconds)',
	name: 'pollInterval',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 5,
	description: 'How long to wait between two status reads',
};

const onJobFailureField: INodeProperties = {
	displayName: 'When the Job Fails or Is Cancelled',
	name: 'onJobFailure',
	type: 'options',
	default: 'error',
	options: [
		{ name: 'Fail the Item', value: 'error', description: 'Stop with an error that says why the job failed (or continue, if the node is set to)' },
		{ name: 'Return the Job as Data', value: 'returnData', description: 'Output the final job status like a completed one' },
	],
};

/** Versions 1 and 2: the Timeout in seconds. */
export const waitSettingFields: INodeProperties[] = [
	pollIntervalField,
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 3600,
		description: 'How long to wait for the job to end before failing the item',
	},
	onJobFailureField,
];

/** What the wait reads when Timeout was not added (n8n's lint asks for literal defaults in the description: the same values). */
export const TIMEOUT_DEFAULT = { amount: 1, unit: 'hours' } as const;

/** The units of 2.1's Timeout, in seconds: n8n's Wait node's units. */
export const TIMEOUT_UNIT_SECONDS = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 } as const;

/**
 * Version 2.1: the Timeout as an amount and a unit shown together, as n8n's own "Limit Wait Time" (a fixedCollection
 * whose default holds both, packages/nodes-base/utils/sendAndWait/descriptions.ts): adding Timeout shows its unit, so
 * 30 is never read as 30 hours unseen. The default is the same hour as before; the amount is at least 1 (0 would end
 * the wait at once), so the editor refuses 0 where it is typed.
 */
const waitSettingFields21: INodeProperties[] = [
	pollIntervalField,
	{
		displayName: 'Timeout',
		name: 'timeoutAfter',
		type: 'fixedCollection',
		default: { values: { amount: 1, unit: 'hours' } },
		description: 'How long to wait for the job to end before failing the item',
		options: [
			{
				displayName: 'Values',
				name: 'values',
				values: [
					{
						displayName: 'Amount',
						name: 'amount',
						type: 'number',
						typeOptions: { minValue: 1, numberPrecision: 2 },
						default: 1,
						description: 'At least 1; for less, pick a smaller unit',
					},
					{
						displayName: 'Unit',
						name: 'unit',
						type: 'options',
						default: 'hours',
						options: [
							{ name: 'Seconds', value: 'seconds' },
							{ name: 'Minutes', value: 'minutes' },
							{ name: 'Hours', value: 'hours' },
							{ name: 'Days', value: 'days' },
						],
					},
				],
			},
		],
	},
	onJobFailureField,
];

/** The Wait Settings collection per version (one parameter name, so saved values stay where they were). */
export function waitSettingsCollections(displayOptions?: INodeProperties['displayOptions']): INodeProperties[] {
	const collection = (options: INodeProperties[]): INodeProperties => ({
		displayName: 'Wait Settings',
		name: 'waitSettings',
		type: 'collection',
		placeholder: 'Add Setting',
		default: {},
		...(displayOptions ? { displayOptions } : {}),
		options,
	});
	return [...beforeVersion21([collection(waitSettingFields)]), ...fromVersion21([collection(waitSettingFields21)])];
}

/** One credential per interface; the Interface parameter decides which one the node asks for. */
export const credentialsDescription: INodeCredentialDescription[] = [
	{ name: NATIVE_CREDENTIAL, required: true, displayOptions: { show: { authentication: [NATIVE_CREDENTIAL] } } },
	{ name: RELAY_CREDENTIAL, required: true, displayOptions: { show: { authentication: [RELAY_CREDENTIAL] } } },
];

export const authenticationField: INodeProperties = {
	displayName: 'Interface',
	name: 'authentication',
	type: 'options',
	default: NATIVE_CREDENTIAL,
	options: [
		{ name: 'Native API', value: NATIVE_CREDENTIAL, description: 'The REST API at /api/v1' },
		{ name: 'Relay API', value: RELAY_CREDENTIAL, description: 'The relay at /call/status and /call/execute' },
	],
};

/** Version 2's Simplify, top level and on by default, as n8n's own nodes have it. */
export const simplifyField: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description: 'Whether to return a simplified version of the response instead of the raw data',
};

/** A name picked from the names the service's lists hold, or typed (n8n's resource locator: From List, By Name). */
export function nameLocatorField(field: { displayName: string; name: string; searchListMethod: string; required: boolean; description: string }): INodeProperties {
	return {
		displayName: field.displayName,
		name: field.name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: field.required,
		description: field.description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: `Select a ${field.displayName.toLowerCase()}...`,
				typeOptions: { searchListMethod: field.searchListMethod, searchable: true },
			},
			{ displayName: 'By Name', name: 'name', type: 'string', placeholder: 'e.g. default' },
		],
	};
}

/** Version 2's filters on a listed job's flow and run profile: picked from the names the service lists. */
export const jobFilterLocatorFields: INodeProperties[] = [
	nameLocatorField({ displayName: 'Flow Name', name: 'flowName', searchListMethod: 'searchFlowNames', required: false, description: 'Only jobs of this flow (exact name)' }),
	nameLocatorField({ displayName: 'Run Profile', name: 'runProfileName', searchListMethod: 'searchRunProfiles', required: false, description: 'Only jobs of this run profile (exact name)' }),
];
