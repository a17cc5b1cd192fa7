/**
 * Keys as users paste them (issue 47 §2): a key with white space before or after it is sent trimmed and hidden
 * trimmed, and a Basic credential with an empty password (the key as the user, as Stripe-style APIs take it) hides
 * the user, `user:` and its base64. Every credential kind, every path (an operation, the trigger's poll, the Job ID
 * list search, the credential Test), against a service on 127.0.0.1 that echoes every header it got.
 */
import type { INodeParameters } from 'n8n-workflow';

import { transportTiming } from '../../nodes/shared/transport';
import { runActionNode, testCredentialAsN8nDoes } from '../../testkit/engine';
import type { CredentialsMap } from '../../testkit/engine';
import { headerLines, startHostileServer } from '../../testkit/hostileServer';
import type { HostileRequest, Listener } from '../../testkit/hostileServer';
import { searchList } from '../../testkit/listSearch';
import { createPoller } from '../../testkit/poller';
import { expectNoSecrets, secretSearch } from '../../testkit/secrets';

const ID = '7c2f0000-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
const PASTED = 'tok-Abc123xyz-4f9a';
const RELAY = 'relay-key-4f9a2c';
const USER = 'user-key-8d1e7b';

interface Case {
	name: string;
	relay: boolean;
	data: Record<string, string>;
	/** The headers the service must have got: the keys trimmed. */
	sent: Record<string, string>;
}

const CASES: Case[] = [
	{ name: 'bearer token with a space before and after', relay: false, data: { authType: 'bearerToken', token: ` ${PASTED} ` }, sent: { authorization: `Bearer ${PASTED}` } },
	{ name: 'bearer token with a tab before and a line break after', relay: false, data: { authType: 'bearerToken', token: `\t${PASTED}\n` }, sent: { authorization: `Bearer ${PASTED}` } },
	{ name: 'custom header value with spaces', relay: false, data: { authType: 'headerAuth', headerName: 'X-Api-Secret', headerSecret: `  hdr-Secret-77b1 ` }, sent: { 'x-api-secret': 'hdr-Secret-77b1' } },
	{ name: 'relay keys with spaces', relay: true, data: { apiKey: ` ${RELAY}`, userApiKey: `${USER}  ` }, sent: { apikey: RELAY, 'user-api-key': USER } },
	{ name: 'Basic with the key as the user and an empty password', relay: false, data: { authType: 'basicAuth', user: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc', password: '' }, sent: { authorization: `Basic ${Buffer.from('sk_test_4eC39HqLyjWDarjtT1zdp7dc:').toString('base64')}` } },
];

let server: Listener;
/** Answers every request with a 500 echoing the headers (the credential Test's failure then quotes the body). */
let failing = false;

function job(request: HostileRequest): Record<string, unknown> {
	const headers = headerLines(request.raw.headers);
	return { id: ID, jobName: `sales ${headers}`, flowName: headers, executionStatus: 'COMPLETED', startTime: '2026-11-25T18:30:28.123Z', log: `request headers: ${headers}` };
}

const delays = transportTiming.retryDelaysMs;
beforeAll(async () => {
	transportTiming.retryDelaysMs = [1, 1, 1];
	server = await startHostileServer((request) => {
		if (failing) return { kind: 'echo', status: 500, form: 'raw', json: true };
		if (request.method === 'POST') return { kind: 'json', body: { jobId: ID } };
		if (request.target.startsWith('/api/v1/jobs/')) return { kind: 'json', body: job(request) };
		return { kind: 'json', body: [job(request)] };
	});
});
afterAll(async () => {
	transportTiming.retryDelaysMs = delays;
	await server.close();
});

function credentials(item: Case): CredentialsMap {
	return item.relay ? { jobExecutionRelayApi: { relayUrl: server.url, ...item.data } } : { jobExecutionApi: { baseUrl: server.url, ...item.data } };
}

function parameters(item: Case, extra: INodeParameters = {}): INodeParameters {
	const fields = item.relay ? { flowId: '3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10' } : { flowFileName: '/Shared/Flows/sales.flow' };
	return { authentication: item.relay ? 'jobExecutionRelayApi' : 'jobExecutionApi', resource: 'job', ...fields, runProfileName: 'default', ...extra };
}

/** Every request since `from` carried the keys trimmed. */
function expectSentTrimmed(from: number, sent: Record<string, string>): void {
	const requests = server.requests.slice(from);
	expect(requests.length).toBeGreaterThan(0);
	for (const request of requests) for (const [name, value] of Object.entries(sent)) expect(request.raw.headers[name]).toBe(value);
}

describe.each(CASES)('$name', (item) => {
	test('Get and Submit: sent trimmed, and the echo shows none of it', async () => {
		const before = server.requests.length;
		for (const extra of [{ operation: 'get', jobId: ID }, { operation: 'submit' }]) {
			const result = await runActionNode({ credentials: credentials(item), parameters: parameters(item, extra) });
			expect(result.error).toBeUndefined();
			if (extra.operation === 'get') expect(JSON.stringify(result.json)).toContain('***');
			expectNoSecrets(result, credentials(item));
		}
		expectSentTrimmed(before, item.sent);
	});

	test('the trigger\'s poll and the Job ID list search: sent trimmed, and the echo shows none of it', async () => {
		const before = server.requests.length;
		const poller = createPoller({ authentication: parameters(item).authentication } as INodeParameters, credentials(item));
		await poller.poll();
		const listed = await searchList('searchJobs', { authentication: parameters(item).authentication }, credentials(item));
		expect(listed.results.length).toBeGreaterThan(0);
		const shown = JSON.stringify([await poller.poll(), listed]);
		expect(secretSearch(credentials(item))(shown)).toBeUndefined();
		expect(shown).not.toContain(Object.values(item.sent)[0].split(' ').pop());
		expectSentTrimmed(before, item.sent);
	});

	test('the credential Test: sent trimmed, passes, and a failure quoting the echo shows none of it', async () => {
		const [type, data] = Object.entries(credentials(item))[0];
		const before = server.requests.length;
		expect(await testCredentialAsN8nDoes(type, data)).toEqual({ status: 'OK', message: expect.any(String) });
		failing = true;
		const failed = await testCredentialAsN8nDoes(type, data).finally(() => (failing = false));
		expect(failed.status).toBe('Error');
		expect(failed.message).toContain('***');
		expect(secretSearch(credentials(item))(failed.message)).toBeUndefined();
		expectSentTrimmed(before, item.sent);
	});
});

test('a Basic user of 7 characters with an empty password is the key, too short to hide: refused before sending', async () => {
	const before = server.requests.length;
	const keys: CredentialsMap = { jobExecutionApi: { baseUrl: server.url, authType: 'basicAuth', user: 'sk_test', password: '' } };
	const result = await runActionNode({ credentials: keys, parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'get', jobId: ID } });
	expect(result.error?.message).toMatch(/^The User is shorter than 8 characters/);
	expect(await testCredentialAsN8nDoes('jobExecutionApi', keys.jobExecutionApi)).toEqual({ status: 'Error', message: expect.stringMatching(/^The User is shorter than 8 characters/) });
	expect(server.requests.length).toBe(before);
});

test('a key of white space only is empty: refused, naming the field, before sending', async () => {
	const before = server.requests.length;
	const keys: CredentialsMap = { jobExecutionApi: { baseUrl: server.url, authType: 'bearerToken', token: '   ' } };
	const result = await runActionNode({ credentials: keys, parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'get', jobId: ID } });
	expect(result.error?.message).toBe("The credential's Token is empty");
	expect(server.requests.length).toBe(before);
});
