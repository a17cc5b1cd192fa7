/**
 * One policy for keys too short to hide (issue 33 §3): a key shorter than MIN_SECRET_LENGTH is refused before
 * anything is sent, with the same message, on every path (an operation on either version, the trigger's poll, the
 * Job ID list search, the credential Test, the AI tool), whether the credential was tested or saved or imported
 * untested. Against the reference server, which counts every request it gets; and one character longer, it runs.
 */
import { MIN_SECRET_LENGTH } from '../../nodes/shared/redaction';
import { runActionNode, testCredentialAsN8nDoes } from '../../testkit/engine';
import type { CredentialsMap } from '../../testkit/engine';
import { SALES, startFixture } from '../../testkit/fixtures';
import type { Fixture } from '../../testkit/fixtures';
import { searchList } from '../../testkit/listSearch';
import { createPoller } from '../../testkit/poller';
import { runAgentWithTool } from '../../testkit/toolAgent';

/** `& < > " ' + / %` in a key one character too short. */
const SHORT = `&<>"'+/`;

interface Case {
	name: string;
	label: string;
	kind: 'native' | 'relay';
	credentials: (url: string) => CredentialsMap;
}

const CASES: Case[] = [
	{ name: 'bearer token', label: 'Token', kind: 'native', credentials: (url) => ({ jobExecutionApi: { baseUrl: url, authType: 'bearerToken', token: SHORT } }) },
	{ name: 'Basic password', label: 'Password', kind: 'native', credentials: (url) => ({ jobExecutionApi: { baseUrl: url, authType: 'basicAuth', user: 'alice', password: SHORT } }) },
	{ name: 'custom header value', label: 'Header Value', kind: 'native', credentials: (url) => ({ jobExecutionApi: { baseUrl: url, authType: 'headerAuth', headerName: 'X-Api-Secret', headerSecret: SHORT } }) },
	{ name: 'relay API key', label: 'Relay API Key', kind: 'relay', credentials: (url) => ({ jobExecutionRelayApi: { relayUrl: url, apiKey: SHORT, userApiKey: 'user-secret-8d1e7b' } }) },
	{ name: 'user API key', label: 'User API Key', kind: 'relay', credentials: (url) => ({ jobExecutionRelayApi: { relayUrl: url, apiKey: 'relay-secret-4f9a2c', userApiKey: SHORT } }) },
];

function parametersFor(kind: 'native' | 'relay', extra: Record<string, unknown> = {}) {
	const native = kind === 'native';
	return { authentication: native ? 'jobExecutionApi' : 'jobExecutionRelayApi', resource: 'job', ...(native ? { flowFileName: SALES.path } : { flowId: SALES.id }), runProfileName: 'default', ...extra };
}

const messageOf = (label: string) => new RegExp(`^The ${label} is shorter than ${MIN_SECRET_LENGTH} characters: the nodes cannot hide so short a key`);

describe.each(CASES)('a $name one character too short', ({ label, kind, credentials }) => {
	let fx: Fixture;
	beforeAll(async () => {
		fx = await startFixture(kind);
	});
	afterAll(async () => {
		await fx.server.close();
	});

	test('Submit (versions 1 and 2), Get, the trigger, the Job ID list, the credential Test and the AI tool: refused with one message, nothing sent', async () => {
		const keys = credentials(fx.server.url);
		for (const version of [1, 2]) {
			const submitted = await runActionNode({ credentials: keys, parameters: parametersFor(kind, { operation: 'submit' }), typeVersion: version });
			expect(submitted.error?.message).toMatch(messageOf(label));
			expect(submitted.error?.name).toBe('NodeOperationError');
		}
		const got = await runActionNode({ credentials: keys, parameters: parametersFor(kind, { operation: 'get', jobId: '7c2f0000-0000-4000-8000-000000000001' }) });
		expect(got.error?.message).toMatch(messageOf(label));
		const poller = createPoller({ authentication: parametersFor(kind).authentication }, keys);
		await expect(poller.poll()).rejects.toMatchObject({ message: expect.stringMatching(messageOf(label)) });
		await expect(searchList('searchJobs', { authentication: parametersFor(kind).authentication }, keys)).rejects.toMatchObject({ message: expect.stringMatching(messageOf(label)) });
		const type = Object.keys(keys)[0];
		expect(await testCredentialAsN8nDoes(type, keys[type])).toEqual({ status: 'Error', message: expect.stringMatching(messageOf(label)) });
		const tool = { ...parametersFor(kind, { operation: 'submit' }), runProfileName: "={{ $fromAI('runProfile', 'the run profile', 'string') }}" };
		const [outcome] = await runAgentWithTool({ credentials: keys, parameters: tool, calls: [[{ runProfile: 'default' }]] });
		expect(outcome.error).toMatch(messageOf(label));
		expect(fx.server.stats.requests).toBe(0);
	});

	test(`one character longer (${MIN_SECRET_LENGTH}), the same run is sent`, async () => {
		const keys = credentials(fx.server.url);
		const type = Object.keys(keys)[0];
		const longer = Object.fromEntries(Object.entries(keys[type]).map(([field, value]) => [field, value === SHORT ? `${SHORT}%` : value]));
		const before = fx.server.stats.requests;
		const result = await runActionNode({ credentials: { [type]: longer }, parameters: parametersFor(kind, { operation: 'submit' }) });
		// The reference server knows other keys: it answers 401, which proves the request was sent.
		expect(result.error?.message ?? '').not.toMatch(/shorter than/);
		expect(fx.server.stats.requests).toBeGreaterThan(before);
	});
});
