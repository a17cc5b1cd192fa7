/**
 * A credential's "Test" button, the way n8n's server runs it (`CredentialsTester.testCredentials` in
 * n8n/dist/services/credentials-tester.service.js of n8n 2.41.1): the credential type's own `test` request first,
 * run by n8n-core's RoutingNode in an ExecuteContext of a one-node workflow; else the `credentialTest` method a node
 * names in `testedBy`, called on a CredentialTestContext. Whichever the package has today is what runs.
 */
import { CredentialTestContext, ExecuteContext, ExecutionLifecycleHooks, RoutingNode } from 'n8n-core';
import { createEmptyRunExecutionData, NodeConnectionTypes, NodeHelpers, Workflow } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestRequest,
	INode,
	INodeCredentialTestResult,
	INodeType,
	INodeTypes,
} from 'n8n-workflow';

import { additionalDataFor, credentialTypes, InMemoryCredentialsHelper, nodeClasses } from '../engine';

type CredentialName = 'jobExecutionApi' | 'jobExecutionRelayApi';

function additionalData(type: CredentialName, data: ICredentialDataDecryptedObject) {
	const hooks = new ExecutionLifecycleHooks('internal', 'credential-test', { id: 'credential-test', nodes: [], connections: {} } as never);
	return additionalDataFor(new InMemoryCredentialsHelper({ [type]: data }), hooks);
}

/** The tester's errors as results (same order of checks as runRequestTest's catch). */
function failed(error: unknown): INodeCredentialTestResult {
	const { cause, message } = (error ?? {}) as { cause?: { response?: { status: number; statusText?: string }; code?: string }; message?: string };
	if (cause?.response) {
		const { status, statusText } = cause.response;
		if (status < 199 || status > 299) return { status: 'Error', message: statusText || `Received HTTP status code: ${status}` };
	} else if (cause?.code) {
		return { status: 'Error', message: cause.code };
	}
	return { status: 'Error', message: String(message ?? error) };
}

/** runRequestTest: a temporary node whose one property routes the test request, run by RoutingNode. */
async function requestTest(type: CredentialName, test: ICredentialTestRequest, decrypted: ICredentialsDecrypted): Promise<INodeCredentialTestResult> {
	const nodeType: INodeType = {
		description: {
			displayName: 'Temp',
			name: 'credentialTestNode',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: {},
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: type, required: true }],
			properties: [{ displayName: 'Temp', name: 'temp', type: 'string', routing: { request: test.request }, default: '' }],
		},
	};
	const node: INode = { id: 'temp', name: 'Temp-Node', type: 'credentialTestNode', typeVersion: 1, position: [0, 0], parameters: {}, credentials: { [type]: { id: decrypted.id, name: decrypted.name } } };
	const types: INodeTypes = {
		getByName: () => nodeType,
		getByNameAndVersion: () => NodeHelpers.getVersionedNodeType(nodeType) as INodeType,
		getKnownTypes: () => ({}),
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: types });
	const data = additionalData(type, decrypted.data ?? {});
	const inputData = { main: [[{ json: {} }]] };
	const context = new ExecuteContext(workflow, node, data, 'internal', createEmptyRunExecutionData(), 0, [], inputData, { node, data: {}, source: null }, []);
	const expression = workflow.expression as { acquireIsolate?: () => Promise<unknown>; releaseIsolate?: () => Promise<unknown> };
	try {
		await expression.acquireIsolate?.();
		await new RoutingNode(context, nodeType, decrypted).runNode();
	} catch (error) {
		return failed(error);
	} finally {
		await expression.releaseIsolate?.();
	}
	return { status: 'OK', message: 'Connection successful!' };
}

/** Tests the credential as n8n's "Test" button would, whichever test the package declares. */
export async function testCredential(type: CredentialName, data: ICredentialDataDecryptedObject): Promise<INodeCredentialTestResult> {
	const decrypted: ICredentialsDecrypted = { id: '1', name: 'fuzz credential', type, data };
	const credentialType = credentialTypes[type];
	if (credentialType.test) return await requestTest(type, credentialType.test, decrypted);
	for (const nodeType of Object.values(nodeClasses)) {
		for (const { name, testedBy } of nodeType.description.credentials ?? []) {
			const method = typeof testedBy === 'string' ? nodeType.methods?.credentialTest?.[testedBy] : undefined;
			if (name !== type || !method) continue;
			return await method.call(new CredentialTestContext(additionalData(type, data)), decrypted);
		}
	}
	throw new Error(`no credential test for ${type}: neither a test request nor a node's credentialTest method`);
}
