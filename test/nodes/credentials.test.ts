/**
 * The credentials' own test requests, resolved by n8n's expression engine as n8n does
 * ($credentials as an additional key), authenticated by the credentials' own code, sent to the real server.
 */
import axios from 'axios';
import { Workflow } from 'n8n-workflow';
import type { ICredentialDataDecryptedObject, IHttpRequestOptions, INode } from 'n8n-workflow';

import { credentialTypes, nodeTypes } from '../../testkit/engine';
import { NATIVE_TOKEN, RELAY_KEY, startFixture, USER_KEY } from '../../testkit/fixtures';
import type { Fixture } from '../../testkit/fixtures';

const node: INode = { id: '1', name: 'n', type: 'n8n-nodes-job-execution.jobExecution', typeVersion: 1, position: [0, 0], parameters: {} };
const workflow = new Workflow({ id: 'w', nodes: [node], connections: {}, active: false, nodeTypes });

function resolve(value: unknown, credentials: ICredentialDataDecryptedObject): unknown {
	if (typeof value !== 'string' || !value.startsWith('=')) return value;
	return workflow.expression.getSimpleParameterValue(node, value, 'internal', { $credentials: credentials } as never);
}

async function runCredentialTest(type: string, credentials: ICredentialDataDecryptedObject) {
	const credentialType = credentialTypes[type];
	const request = credentialType.test!.request;
	const resolved: IHttpRequestOptions = {
		url: String(resolve(request.url, credentials)),
		baseURL: String(resolve(request.baseURL, credentials)),
		method: request.method ?? 'GET',
		headers: request.headers as IHttpRequestOptions['headers'],
		qs: request.qs,
	};
	const authenticate = credentialType.authenticate as (c: ICredentialDataDecryptedObject, r: IHttpRequestOptions) => Promise<IHttpRequestOptions>;
	const sent = await authenticate(credentials, resolved);
	const response = await axios.request({
		baseURL: sent.baseURL,
		url: sent.url,
		method: sent.method,
		headers: sent.headers as Record<string, string>,
		params: sent.qs,
		auth: sent.auth,
		validateStatus: () => true,
	});
	return { sent, status: response.status, data: response.data };
}

describe('credential tests', () => {
	let fx: Fixture;
	beforeAll(async () => {
		fx = await startFixture('native');
	});
	afterAll(async () => {
		await fx.server.close();
	});

	test.each([`URL`, `URL/`, `URL/api/v1`, `  URL/api/v1/  `])('native test passes with base URL %j', async (form) => {
		const result = await runCredentialTest('jobExecutionApi', {
			baseUrl: form.replace('URL', fx.server.url),
			authType: 'bearerToken',
			token: NATIVE_TOKEN,
		});
		expect(result.sent.baseURL).toBe(fx.server.url);
		expect(result.status).toBe(200);
		expect(Array.isArray(result.data)).toBe(true);
	});

	test('native test fails with a wrong token', async () => {
		const result = await runCredentialTest('jobExecutionApi', { baseUrl: fx.server.url, authType: 'bearerToken', token: 'nope' });
		expect(result.status).toBe(401);
	});

	test('relay test passes with the right keys and fails with a wrong one', async () => {
		const good = await runCredentialTest('jobExecutionRelayApi', { relayUrl: `${fx.server.url}/`, apiKey: RELAY_KEY, userApiKey: USER_KEY });
		expect(good.status).toBe(200);
		expect(good.sent.url).toBe('/call/status');
		expect(good.sent.headers).toMatchObject({ endpoint: '/api/v1/jobs?filter=active', method: 'GET', apiKey: RELAY_KEY, 'user-api-key': USER_KEY });
		const bad = await runCredentialTest('jobExecutionRelayApi', { relayUrl: fx.server.url, apiKey: RELAY_KEY, userApiKey: 'wrong' });
		expect(bad.status).toBe(401);
	});

	test('native authenticate: basic auth and custom header', async () => {
		const api = credentialTypes.jobExecutionApi.authenticate as (c: ICredentialDataDecryptedObject, r: IHttpRequestOptions) => Promise<IHttpRequestOptions>;
		const basic = await api({ authType: 'basicAuth', user: 'u', password: 'p' }, { url: '/x' });
		expect(basic.auth).toEqual({ username: 'u', password: 'p' });
		const header = await api({ authType: 'headerAuth', headerName: 'X-Key', headerSecret: 's3', ignoreSslIssues: true }, { url: '/x' });
		expect(header.headers).toEqual({ 'X-Key': 's3' });
		expect(header.skipSslCertificateValidation).toBe(true);
		const none = await api({ authType: 'none' }, { url: '/x', headers: { a: '1' } });
		expect(none.headers).toEqual({ a: '1' });
	});
});
