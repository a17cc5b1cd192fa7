import { NodeApiError } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IExecuteFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INode,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { authenticateRequest } from '../../shared/credentialAuth';
import { readJobList } from '../../shared/jobList';
import { shortKeyProblem as shortKeysProblem } from '../../shared/redaction';
import { settle } from '../../shared/settle';
import type { CredentialType } from '../../shared/transport';
import { displayHost, getConnection, NATIVE_CREDENTIAL, normalizeServiceUrl, RELAY_CREDENTIAL, urlFieldLabel } from '../../shared/transport';
import { isTlsFailureCode } from '../../shared/transport/errors';

/**
 * The credentials' Test button. n8n runs a credential type's declarative `test` through its own request helper,
 * which follows redirects and re-sends the keys; a node's `testedBy` method is used instead when the type has no
 * `test` (CredentialsTester.getCredentialTestFunction in n8n's dist/services/credentials-tester.service.js, 2.41.1
 * and 1.123.81). This method sends the active job list through `apiRequest`, the nodes' one door: no redirect
 * followed, the call's deadline and bounds, and a message that names the field to fix.
 */
const TEST_NODE: INode = {
	id: 'job-execution-credential-test',
	name: 'Credential test',
	type: 'n8n-nodes-job-execution.jobExecution',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** A request through the test context's only helper (n8n's legacy `request`), redirects off. */
async function sendThroughTestHelper(test: ICredentialTestFunctions, options: IHttpRequestOptions): Promise<IN8nHttpFullResponse> {
	const legacy: Record<string, unknown> = {
		uri: options.baseURL ? `${options.baseURL}${options.url}` : options.url,
		method: options.method ?? 'GET',
		headers: options.headers,
		qs: options.qs,
		body: options.body,
		followRedirect: false,
		followAllRedirects: false,
		maxRedirects: 0,
		sendCredentialsOnCrossOriginRedirect: false,
		timeout: options.timeout,
		resolveWithFullResponse: true,
		simple: false,
		json: false,
	};
	if (options.auth) legacy.auth = { user: options.auth.username, pass: options.auth.password };
	if (options.skipSslCertificateValidation === true) legacy.rejectUnauthorized = false;
	if (options.encoding === 'stream') legacy.useStream = true;
	else if (options.encoding === 'arraybuffer') legacy.encoding = null;
	return (await test.helpers.request(legacy)) as IN8nHttpFullResponse;
}

/** What apiRequest and getConnection use of an execution context, backed by the credential under test. */
function testContext(test: ICredentialTestFunctions, credentialType: CredentialType, data: ICredentialDataDecryptedObject): IExecuteFunctions {
	const context: Pick<IExecuteFunctions, 'getNode' | 'getCredentials'> & { helpers: Pick<IExecuteFunctions['helpers'], 'httpRequestWithAuthentication'> } = {
		getNode: () => TEST_NODE,
		getCredentials: async <T extends object = ICredentialDataDecryptedObject>() => data as T,
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) =>
				await sendThroughTestHelper(test, authenticateRequest(credentialType, data, options)),
		},
	};
	return context as IExecuteFunctions;
}

function keysToCheck(credentialType: CredentialType, data: ICredentialDataDecryptedObject): string {
	if (credentialType === RELAY_CREDENTIAL) return 'the Relay API Key and the User API Key';
	switch (data.authType) {
		case 'bearerToken':
			return 'the Token';
		case 'basicAuth':
			return 'the User and the Password';
		case 'headerAuth':
			return 'the Header Name and the Header Value';
		default:
			return 'the Authentication: the service wants one, and it is set to None';
	}
}

function notThisService(host: string, urlField: string): string {
	return `${host} answered, but not as a Job Execution Service: its answer to the active job list is not a job list. Check the ${urlField}.`;
}

/** The message of a failed test: what happened, and which field of the credential to fix. */
export function testFailureMessage(error: unknown, credentialType: CredentialType, data: ICredentialDataDecryptedObject): string {
	const urlField = urlFieldLabel(credentialType);
	if (!(error instanceof NodeApiError)) return error instanceof Error ? error.message : String(error);
	const normalized = normalizeServiceUrl(credentialType === RELAY_CREDENTIAL ? data.relayUrl : data.baseUrl, credentialType);
	const host = normalized.url ? displayHost(normalized.url) : 'the configured URL';
	const code = String(error.httpCode ?? '');
	const status = /^\d+$/.test(code) ? Number(code) : undefined;
	if (status === undefined) {
		// A certificate or handshake failure: its message already names what to change, and the service may well run.
		if (isTlsFailureCode(code)) return `${error.message}.${error.description ? ` ${error.description}` : ''}`;
		const what = code === 'DEADLINE' ? error.message : `Cannot reach ${host} (${code || 'no connection'})`;
		return `${what}. Check the ${urlField} (with http:// or https://) and that the service is running.`;
	}
	if (status === 401 || status === 403) return `The service at ${host} refused the credentials (HTTP ${status}). Check ${keysToCheck(credentialType, data)}.`;
	if (status === 404) {
		const form = credentialType === RELAY_CREDENTIAL ? 'the relay address, without /call' : 'the service address, without /api/v1';
		return `${host} has no Job Execution Service at this address (HTTP 404). Check the ${urlField}: ${form}.`;
	}
	if (status >= 200 && status < 300) return notThisService(host, urlField);
	if (status >= 300 && status < 400) return `${error.message}. Check the ${urlField}: use the address the service answers on.`;
	return `${error.message}.${error.description ? ` ${error.description}` : ''}`;
}

/** Why a key of the credential is too short to be hidden, or null: refused before anything is sent, as every run does. */
export function shortKeyProblem(credentialType: CredentialType, data: ICredentialDataDecryptedObject): string | null {
	return shortKeysProblem(credentialType === RELAY_CREDENTIAL, data);
}

async function testConnection(test: ICredentialTestFunctions, credentialType: CredentialType, data: ICredentialDataDecryptedObject): Promise<INodeCredentialTestResult> {
	const short = shortKeyProblem(credentialType, data);
	if (short !== null) return { status: 'Error', message: short };
	const context = testContext(test, credentialType, data);
	const answered = await settle(
		(async () => {
			const connection = await getConnection.call(context, credentialType);
			// An answer that is no job list fails with its 2xx status: testFailureMessage says "not a Job Execution Service".
			await readJobList.call(context, connection, 'active');
			return displayHost(connection.baseUrl);
		})(),
	);
	if (!answered.ok) return { status: 'Error', message: testFailureMessage(answered.error, credentialType, data) };
	return { status: 'OK', message: `Connection successful: the Job Execution Service at ${answered.value} listed its active jobs` };
}

export async function jobExecutionApiTest(this: ICredentialTestFunctions, credential: ICredentialsDecrypted): Promise<INodeCredentialTestResult> {
	return await testConnection(this, NATIVE_CREDENTIAL, credential.data ?? {});
}

export async function jobExecutionRelayApiTest(this: ICredentialTestFunctions, credential: ICredentialsDecrypted): Promise<INodeCredentialTestResult> {
	return await testConnection(this, RELAY_CREDENTIAL, credential.data ?? {});
}
