/**
 * Runs our nodes inside n8n-core's real execution engine (WorkflowExecute), the way n8n runs them:
 * real parameter resolution, real execution contexts, real httpRequestWithAuthentication. Only what n8n's
 * server would provide around the engine (credential storage, node type registry) is supplied here, and the
 * credentials' own `authenticate` is what adds auth to requests.
 */
import { CredentialTestContext, ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import {
	createRunExecutionData,
	ICredentialsHelper,
	NodeHelpers,
	Workflow,
} from 'n8n-workflow';
import type {
	IConnections,
	ICredentialDataDecryptedObject,
	ICredentialTestFunction,
	ICredentialType,
	ICredentials,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypes,
	IRun,
	IRunExecutionData,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { JobExecutionApi } from '../credentials/JobExecutionApi.credentials';
import { JobExecutionRelayApi } from '../credentials/JobExecutionRelayApi.credentials';
import { JobExecution } from '../nodes/JobExecution/JobExecution.node';
import { JobExecutionTrigger } from '../nodes/JobExecutionTrigger/JobExecutionTrigger.node';

export const PACKAGE = 'n8n-nodes-job-execution';
export const ACTION_NODE_TYPE = `${PACKAGE}.jobExecution`;
export const TRIGGER_NODE_TYPE = `${PACKAGE}.jobExecutionTrigger`;

export const nodeClasses: Record<string, INodeType> = {
	[ACTION_NODE_TYPE]: new JobExecution(),
	[TRIGGER_NODE_TYPE]: new JobExecutionTrigger(),
};

export const credentialTypes: Record<string, ICredentialType> = {
	jobExecutionApi: new JobExecutionApi(),
	jobExecutionRelayApi: new JobExecutionRelayApi(),
};

export const nodeTypes: INodeTypes = {
	getByName(type: string): INodeType | IVersionedNodeType {
		const nodeType = nodeClasses[type];
		if (!nodeType) throw new Error(`Unknown node type ${type}`);
		return nodeType;
	},
	getByNameAndVersion(type: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(type), version);
	},
	getKnownTypes() {
		return {};
	},
};

export type CredentialsMap = Record<string, ICredentialDataDecryptedObject>;

/** n8n's server keeps credentials encrypted in its database; here they are held in memory, decrypted. */
export class InMemoryCredentialsHelper extends ICredentialsHelper {
	/** Every request after authentication, for tests that check what went out. */
	readonly sent: IHttpRequestOptions[] = [];

	constructor(private readonly credentials: CredentialsMap) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	// n8n's own rule (packages/cli/src/credentials-helper.ts, isCredentialUsableByNode): a type that restricts itself
	// is usable only by the node types n8n lists as its supported nodes (test/unit/credentialScope.test.ts checks that
	// n8n's loader lists exactly the class's `supportedNodes`); an unknown type is left for a later failure.
	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		const typeDef = credentialTypes[credentialType];
		if (!typeDef?.restrictToSupportedNodes) return true;
		return (typeDef.supportedNodes ?? []).includes(nodeType);
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = credentialTypes[typeName] ?? {};
		if (typeof authenticate !== 'function') throw new Error(`Credential type ${typeName} has no authenticate function`);
		const authenticated = await authenticate(credentials, requestOptions);
		this.sent.push(authenticated);
		return authenticated;
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('not used by these nodes');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: unknown,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const credentials = this.credentials[type];
		if (!credentials) throw new Error(`No credentials of type ${type} in this test`);
		return { ...credentials };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties() {
		return [];
	}
}

export function additionalDataFor(
	credentialsHelper: ICredentialsHelper,
	hooks: ExecutionLifecycleHooks,
): IWorkflowExecuteAdditionalData {
	const base = 'http://127.0.0.1:5678';
	return {
		credentialsHelper,
		hooks,
		executeWorkflow: async () => {
			throw new Error('sub-workflows are not used in these tests');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		currentNodeExecutionIndex: 0,
		restApiUrl: `${base}/rest`,
		instanceBaseUrl: base,
		formBaseUrl: `${base}/form`,
		formWaitingBaseUrl: `${base}/form-waiting`,
		formTestBaseUrl: `${base}/form-test`,
		webhookBaseUrl: `${base}/webhook`,
		webhookWaitingBaseUrl: `${base}/webhook-waiting`,
		webhookTestBaseUrl: `${base}/webhook-test`,
		mcpBaseUrl: `${base}/mcp`,
		mcpTestBaseUrl: `${base}/mcp-test`,
		variables: {},
		logAiEvent: () => {},
	} as unknown as IWorkflowExecuteAdditionalData;
}

/** n8n's lifecycle hooks for one run, and the run once n8n has finished it. */
export function runHooks(
	mode: WorkflowExecuteMode,
	executionId: string,
	workflow: { id: string; name: string; nodes: INode[]; connections: IConnections; active: boolean },
): { hooks: ExecutionLifecycleHooks; finished: Promise<IRun> } {
	const hooks = new ExecutionLifecycleHooks(mode, executionId, {
		...workflow,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as never);
	let resolveRun: (run: IRun) => void = () => {};
	const finished = new Promise<IRun>((resolve) => (resolveRun = resolve));
	hooks.addHandler('workflowExecuteAfter', (run) => resolveRun(run));
	return { hooks, finished };
}

export interface RunNodeOptions {
	parameters: INodeParameters;
	credentials: CredentialsMap;
	/** Input items of the node; one empty item by default. */
	items?: IDataObject[];
	continueOnFail?: boolean;
	/** n8n's node settings Retry On Fail, Max Tries, Wait Between Tries (ms) and On Error, as the editor saves them. */
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
	onError?: INode['onError'];
	mode?: WorkflowExecuteMode;
	/** Another registered node type to run in the same way (the benchmarks' baseline node); the action node by default. */
	nodeType?: string;
	/** Called once the execution started, e.g. to cancel it. */
	onStart?: (execution: { cancel(): void }) => void;
	/** The node's type version as a saved workflow holds it: 1 unless a test asks for another (the existing tests prove version 1). */
	typeVersion?: number;
	/** The workflow's time zone (its Settings → Timezone); none: n8n's default, America/New_York. */
	timezone?: string;
}

export interface RunNodeResult {
	/** The node's output items (main output 0), with their pairedItem. */
	items: INodeExecutionData[];
	json: IDataObject[];
	/** The node error as n8n recorded it, when the node failed. */
	error?: Error & { description?: string; httpCode?: string; context?: IDataObject };
	run: IRun;
	sent: IHttpRequestOptions[];
}

export const NODE_NAME = 'Job Execution';

/** Runs the action node once, inside WorkflowExecute, with the given input items. */
export async function runActionNode(options: RunNodeOptions): Promise<RunNodeResult> {
	const node: INode = {
		id: 'a1b2c3d4-0000-4000-8000-000000000001',
		name: NODE_NAME,
		type: options.nodeType ?? ACTION_NODE_TYPE,
		typeVersion: options.typeVersion ?? 1,
		position: [0, 0],
		parameters: options.parameters,
		credentials: {
			jobExecutionApi: { id: '1', name: 'Job Execution API' },
			jobExecutionRelayApi: { id: '2', name: 'Job Execution Relay API' },
		},
		continueOnFail: options.continueOnFail ?? false,
		...(options.retryOnFail === undefined ? {} : { retryOnFail: options.retryOnFail }),
		...(options.maxTries === undefined ? {} : { maxTries: options.maxTries }),
		...(options.waitBetweenTries === undefined ? {} : { waitBetweenTries: options.waitBetweenTries }),
		...(options.onError === undefined ? {} : { onError: options.onError }),
	};
	const workflow = new Workflow({
		id: 'test-workflow',
		name: 'test',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
		settings: options.timezone === undefined ? {} : { timezone: options.timezone },
	});
	const credentialsHelper = new InMemoryCredentialsHelper(options.credentials);
	const { hooks, finished } = runHooks(options.mode ?? 'manual', 'test-execution', { id: 'test-workflow', name: 'test', nodes: [node], connections: {}, active: false });
	const additionalData = additionalDataFor(credentialsHelper, hooks);
	const runExecutionData: IRunExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{
					node,
					data: { main: [(options.items ?? [{}]).map((json) => ({ json }))] },
					source: null,
				},
			],
		},
	});
	const execution = new WorkflowExecute(additionalData, options.mode ?? 'manual', runExecutionData);
	const running = execution.processRunExecutionData(workflow);
	options.onStart?.({ cancel: () => running.cancel() });
	await running.catch(() => undefined);
	const run = await finished;
	const task = run.data.resultData.runData[NODE_NAME]?.[0];
	const items = task?.data?.main?.[0] ?? [];
	return {
		items,
		json: items.map((item) => item.json),
		error: (task?.error ?? run.data.resultData.error) as RunNodeResult['error'],
		run,
		sent: credentialsHelper.sent,
	};
}

/**
 * n8n's Test button for a credential, as CredentialsTester runs it (n8n 2.41.1 and 1.123.81, the n8n package's
 * dist/services/credentials-tester.service.js): getCredentialTestFunction takes the credential type's own `test`
 * first; only without it, the first node listing the credential with a string `testedBy`, whose
 * methods.credentialTest[testedBy] is called with n8n-core's real CredentialTestContext as `this`.
 */
export async function testCredentialAsN8nDoes(type: string, data: ICredentialDataDecryptedObject): Promise<INodeCredentialTestResult> {
	if (credentialTypes[type]?.test) throw new Error(`${type} has a declarative test: n8n would run that one, through its own request helper`);
	let testFunction: ICredentialTestFunction | undefined;
	for (const nodeType of Object.values(nodeClasses)) {
		const listed = nodeType.description.credentials?.find((credential) => credential.name === type && typeof credential.testedBy === 'string');
		if (listed) {
			testFunction = nodeType.methods?.credentialTest?.[listed.testedBy as string];
			break;
		}
	}
	if (!testFunction) return { status: 'Error', message: 'No testing function found for this credential.' };
	return await testFunction.call(new CredentialTestContext(), { id: 'test', name: 'credential under test', type, data });
}
