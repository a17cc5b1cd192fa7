/**
 * The credentials' Test button, run the way n8n's CredentialsTester runs it (testkit/engine.ts
 * testCredentialAsN8nDoes), against real servers on 127.0.0.1: the node's testedBy method, through the nodes' own
 * transport. It follows no redirect (no key reaches another origin), ends by the call's deadline, and each wrong value
 * gets a message that names the field to fix.
 */
import type { ICredentialDataDecryptedObject, IHttpRequestOptions } from 'n8n-workflow';

import { freePort } from '../../host/n8n';
import { startReferenceServer } from '../../server';
import type { NativeAuth } from '../../server';
import { slowOnlyClock } from '../../testkit/deadline';
import { credentialTypes, nodeClasses, testCredentialAsN8nDoes } from '../../testkit/engine';
import { CATALOG, NATIVE_TOKEN, RELAY_KEY, USER_KEY } from '../../testkit/fixtures';
import { startHostileServer, startRecorder } from '../../testkit/hostileServer';
import type { Listener } from '../../testkit/hostileServer';
import { secretForms } from '../../testkit/secrets';
import { transportTiming, wallCeiling } from '../../nodes/shared/transport';

type Kind = 'bearer' | 'basic' | 'header' | 'relay';
const KINDS: Kind[] = ['bearer', 'basic', 'header', 'relay'];
const NATIVE_AUTH: Record<Exclude<Kind, 'relay'>, NativeAuth> = {
	bearer: { type: 'bearer', token: NATIVE_TOKEN },
	basic: { type: 'basic', user: 'jobs-user', password: 'basic-pass-7a1c9e' },
	header: { type: 'header', name: 'X-Jobs-Key', value: 'header-secret-3b8d0f' },
};

function typeOf(kind: Kind): string {
	return kind === 'relay' ? 'jobExecutionRelayApi' : 'jobExecutionApi';
}

/** The credential of a kind for a URL; `wrong` spoils every secret it has. */
function credentialOf(kind: Kind, url: string, wrong = false): ICredentialDataDecryptedObject {
	const spoil = (value: string) => (wrong ? `${value}-wrong` : value);
	switch (kind) {
		case 'bearer':
			return { baseUrl: url, authType: 'bearerToken', token: spoil(NATIVE_TOKEN) };
		case 'basic':
			return { baseUrl: url, authType: 'basicAuth', user: 'jobs-user', password: spoil('basic-pass-7a1c9e') };
		case 'header':
			return { baseUrl: url, authType: 'headerAuth', headerName: 'X-Jobs-Key', headerSecret: spoil('header-secret-3b8d0f') };
		case 'relay':
			return { relayUrl: url, apiKey: spoil(RELAY_KEY), userApiKey: spoil(USER_KEY) };
	}
}

function expectNoKey(text: string, credential: ICredentialDataDecryptedObject): void {
	for (const form of secretForms({ c: credential })) expect(text.toLowerCase()).not.toContain(form);
}

describe('how n8n picks the test', () => {
	test('no credential type has a declarative test (n8n would run it first, following redirects), and the node tests both', () => {
		for (const type of Object.values(credentialTypes)) expect(type.test).toBeUndefined();
		const action = nodeClasses['n8n-nodes-job-execution.jobExecution'];
		for (const listed of action.description.credentials ?? []) {
			expect(typeof action.methods?.credentialTest?.[listed.testedBy as string]).toBe('function');
		}
		// The action node writes its list out (n8n's lint reads literals); apart from testedBy it is the trigger's.
		const trigger = nodeClasses['n8n-nodes-job-execution.jobExecutionTrigger'];
		expect(action.description.credentials?.map((listed) => ({ ...listed, testedBy: undefined }))).toEqual(trigger.description.credentials?.map((listed) => ({ ...listed, testedBy: undefined })));
	});
});

describe.each(KINDS)('the %s credential test', (kind) => {
	let service: Awaited<ReturnType<typeof startReferenceServer>>;
	beforeAll(async () => {
		service = await startReferenceServer({
			port: 0,
			catalog: CATALOG,
			relayApiKey: RELAY_KEY,
			userApiKey: USER_KEY,
			nativeAuth: kind === 'relay' ? NATIVE_AUTH.bearer : NATIVE_AUTH[kind],
		});
	});
	afterAll(async () => {
		await service.close();
	});
	const field = kind === 'relay' ? 'Relay URL' : 'Base URL';
	const suffix = kind === 'relay' ? '/call' : '/api/v1';

	test.each(['URL', 'URL/', `URL${'SUFFIX'}`, '  URL/  '])('passes with the address written as %j', async (form) => {
		const url = form.replace('URL', service.url).replace('SUFFIX', suffix);
		const result = await testCredentialAsN8nDoes(typeOf(kind), credentialOf(kind, url));
		expect(result).toEqual({ status: 'OK', message: `Connection successful: the Job Execution Service at ${new URL(service.url).host} listed its active jobs` });
	});

	test('wrong keys: the message names the fields to check', async () => {
		const credential = credentialOf(kind, service.url, true);
		const result = await testCredentialAsN8nDoes(typeOf(kind), credential);
		const keys = { bearer: 'the Token', basic: 'the User and the Password', header: 'the Header Name and the Header Value', relay: 'the Relay API Key and the User API Key' }[kind];
		expect(result).toEqual({ status: 'Error', message: `The service at ${new URL(service.url).host} refused the credentials (HTTP 401). Check ${keys}.` });
		expectNoKey(result.message, credential);
	});

	test('a 307 to another origin: not followed, no key reaches it, and the message names the URL field', async () => {
		const elsewhere = await startRecorder();
		const redirecting = await startHostileServer(() => ({ kind: 'redirect', status: 307, location: `${elsewhere.url}/api/v1/jobs?filter=active` }));
		try {
			const credential = credentialOf(kind, redirecting.url);
			const result = await testCredentialAsN8nDoes(typeOf(kind), credential);
			expect(redirecting.requests).toHaveLength(1);
			expect(elsewhere.requests).toHaveLength(0);
			expect(result.status).toBe('Error');
			expect(result.message).toContain(`with a redirect (HTTP 307) to ${elsewhere.host}: not followed, the keys were not sent there`);
			expect(result.message).toContain(`Check the ${field}`);
			expectNoKey(result.message, credential);
		} finally {
			await Promise.all([elsewhere.close(), redirecting.close()]);
		}
	});
});

describe('keys too short to hide when a service echoes them', () => {
	/** The credential of a kind with its key (or, for the relay, its User API Key) set to `key`. */
	function withKey(kind: Kind, url: string, key: string): ICredentialDataDecryptedObject {
		const field = { bearer: 'token', basic: 'password', header: 'headerSecret', relay: 'userApiKey' }[kind];
		return { ...credentialOf(kind, url), [field]: key };
	}
	const label = { bearer: 'Token', basic: 'Password', header: 'Header Value', relay: 'User API Key' };

	test.each(KINDS)('%s: 7 characters are refused with the reason and nothing is sent; 8 pass', async (kind) => {
		const service = await startHostileServer(() => ({ kind: 'json', body: [] }));
		try {
			// Symbols too: the rule counts characters, whatever they are.
			const refused = await testCredentialAsN8nDoes(typeOf(kind), withKey(kind, service.url, `&<>"'+/`));
			expect(refused.status).toBe('Error');
			expect(refused.message).toBe(
				`The ${label[kind]} is shorter than 8 characters: the nodes cannot hide so short a key in the service's answers without ` +
					`blanking ordinary data (years, parts of job IDs and times), so an answer echoing it would show it. Use a longer one.`,
			);
			expect(service.requests).toHaveLength(0);
			const passed = await testCredentialAsN8nDoes(typeOf(kind), withKey(kind, service.url, `&<>"'+/%`));
			expect(passed.status).toBe('OK');
			expect(service.requests).toHaveLength(1);
		} finally {
			await service.close();
		}
	});

	test('a 2-character Basic password: refused, though its Authorization value is hidden (longer than 8)', async () => {
		const service = await startHostileServer(() => ({ kind: 'json', body: [] }));
		try {
			const result = await testCredentialAsN8nDoes('jobExecutionApi', { baseUrl: service.url, authType: 'basicAuth', user: 'admin', password: 'x9' });
			expect(result).toEqual({ status: 'Error', message: expect.stringMatching(/^The Password is shorter than 8 characters: /) });
			expect(service.requests).toHaveLength(0);
		} finally {
			await service.close();
		}
	});
});

describe('wrong addresses and other services', () => {
	let servers: Listener[] = [];
	// Reads are retried on network failures and unreadable answers; short delays keep these tests quick.
	const savedDelays = transportTiming.retryDelaysMs;
	beforeAll(() => {
		transportTiming.retryDelaysMs = [10, 10, 10];
	});
	afterAll(() => {
		transportTiming.retryDelaysMs = savedDelays;
	});
	afterEach(async () => {
		await Promise.all(servers.map((server) => server.close()));
		servers = [];
	});
	const started = async (...args: Parameters<typeof startHostileServer>) => {
		const server = await startHostileServer(...args);
		servers.push(server);
		return server;
	};

	test.each(['bearer', 'relay'] as const)('%s: nothing listening: "Cannot reach", and the URL field to check', async (kind) => {
		// Below the ephemeral range: no other test's listen(0) can take it meanwhile.
		const port = await freePort();
		const closed = { url: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}` };
		const result = await testCredentialAsN8nDoes(typeOf(kind), credentialOf(kind, closed.url));
		const field = kind === 'relay' ? 'Relay URL' : 'Base URL';
		expect(result).toEqual({ status: 'Error', message: `Cannot reach ${closed.host} (ECONNREFUSED). Check the ${field} (with http:// or https://) and that the service is running.` });
	});

	test.each(['bearer', 'relay'] as const)('%s: not a URL: the field and the form it needs', async (kind) => {
		const result = await testCredentialAsN8nDoes(typeOf(kind), credentialOf(kind, 'jobs.example'));
		const field = kind === 'relay' ? 'Relay URL' : 'Base URL';
		expect(result).toEqual({ status: 'Error', message: `The credential's ${field} "jobs.example" is not a valid URL: it must start with http:// or https://` });
	});

	test.each(['bearer', 'relay'] as const)('%s: an address without the service (404): the URL field and its form', async (kind) => {
		const other = await started(() => ({ kind: 'json', status: 404, body: { message: 'Cannot GET' } }));
		const result = await testCredentialAsN8nDoes(typeOf(kind), credentialOf(kind, other.url));
		expect(result.status).toBe('Error');
		expect(result.message).toBe(
			kind === 'relay'
				? `${other.host} has no Job Execution Service at this address (HTTP 404). Check the Relay URL: the relay address, without /call.`
				: `${other.host} has no Job Execution Service at this address (HTTP 404). Check the Base URL: the service address, without /api/v1.`,
		);
	});

	test.each([
		['bearer', 'an HTML page'],
		['relay', 'an HTML page'],
		['bearer', 'JSON that is not a job list'],
		['relay', 'JSON that is not a job list'],
	] as const)('%s: another service answering 200 with %s: "not a Job Execution Service"', async (kind, what) => {
		const other = await started(() => (what === 'an HTML page' ? { kind: 'raw', text: '<html><body>Welcome</body></html>' } : { kind: 'json', body: { status: 'ok' } }));
		const result = await testCredentialAsN8nDoes(typeOf(kind), credentialOf(kind, other.url));
		const field = kind === 'relay' ? 'Relay URL' : 'Base URL';
		expect(result).toEqual({ status: 'Error', message: `${other.host} answered, but not as a Job Execution Service: its answer to the active job list is not a job list. Check the ${field}.` });
	});

	test('a service that never finishes its answer: the test ends by the transport deadline', async () => {
		const dripping = await started(() => ({ kind: 'drip' }));
		const saved = { ...transportTiming };
		Object.assign(transportTiming, { attemptMs: 400, callMs: 800, retryDelaysMs: [50] });
		try {
			const loop = slowOnlyClock();
			const result = await testCredentialAsN8nDoes('jobExecutionApi', credentialOf('bearer', dripping.url));
			// Against the configured call limit at its wall ceiling (a drip never ends without it), timed by a clock that a
			// loaded machine only slows; and no attempt past it.
			expect(loop.stop()).toBeLessThan(transportTiming.callMs * wallCeiling.factor + 500);
			expect(dripping.requests.length).toBeLessThanOrEqual(Math.ceil(transportTiming.callMs / transportTiming.attemptMs));
			expect(result.status).toBe('Error');
			expect(result.message).toMatch(/^No complete answer from the service at .* within [\d.]+ s\. Check the Base URL/);
		} finally {
			Object.assign(transportTiming, saved);
		}
	});
});

describe('the credentials sign requests as before', () => {
	test('native: bearer, basic, custom header, none; relay: both keys', async () => {
		const api = credentialTypes.jobExecutionApi.authenticate as (c: ICredentialDataDecryptedObject, r: IHttpRequestOptions) => Promise<IHttpRequestOptions>;
		expect((await api({ authType: 'bearerToken', token: 't0k3n' }, { url: '/x' })).headers).toEqual({ Authorization: 'Bearer t0k3n' });
		const basic = await api({ authType: 'basicAuth', user: 'u', password: 'p' }, { url: '/x' });
		expect(basic.auth).toEqual({ username: 'u', password: 'p' });
		const header = await api({ authType: 'headerAuth', headerName: 'X-Key', headerSecret: 's3', ignoreSslIssues: true }, { url: '/x' });
		expect(header.headers).toEqual({ 'X-Key': 's3' });
		expect(header.skipSslCertificateValidation).toBe(true);
		const none = await api({ authType: 'none' }, { url: '/x', headers: { a: '1' } });
		expect(none.headers).toEqual({ a: '1' });
		const relay = credentialTypes.jobExecutionRelayApi.authenticate as typeof api;
		expect((await relay({ apiKey: 'k1', userApiKey: 'k2' }, { url: '/call/status', headers: { endpoint: '/api/v1/jobs' } })).headers).toEqual({
			endpoint: '/api/v1/jobs',
			apiKey: 'k1',
			'user-api-key': 'k2',
		});
	});
});
