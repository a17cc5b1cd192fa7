/**
 * The package over https, against the reference service serving certificates made for this run
 * (testkit/testCertificates.ts). With Ignore SSL Issues on, the main paths work as over http; off, each fails at once
 * (no retry, no request sent, no key shown) with an error that names the certificate problem and the field. With the
 * test CA trusted through NODE_EXTRA_CA_CERTS (read by Node at start only, so in a child process) the paths work with
 * the field off, and an expired certificate or one for another name is named as such.
 */
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

import { failureInWords, listCall, transportTiming } from '../../nodes/shared/transport';
import { classifyFailure, IGNORE_SSL_FIELD, toNodeApiError } from '../../nodes/shared/transport/errors';
import type { Failure } from '../../nodes/shared/transport/errors';
import { credentialTypes, runActionNode, testCredentialAsN8nDoes } from '../../testkit/engine';
import type { CredentialsMap, RunNodeResult } from '../../testkit/engine';
import { advanceWhileWaiting, INTERFACES, SALES, SECRETS, startFixture } from '../../testkit/fixtures';
import type { Fixture, Interface } from '../../testkit/fixtures';
import { searchList } from '../../testkit/listSearch';
import { createPoller } from '../../testkit/poller';
import { expectNoSecrets } from '../../testkit/secrets';
import { makeTestCertificates } from '../../testkit/testCertificates';
import type { TestCertificates } from '../../testkit/testCertificates';
import { runTrustingCa } from '../../testkit/trustedCaChild';
import { startReferenceServer } from '../../server';

let certs: TestCertificates;
const productionDelays = transportTiming.retryDelaysMs;
beforeAll(() => {
	certs = makeTestCertificates();
	// A read that were retried would show as a second handshake; the retries need not wait the production backoff.
	transportTiming.retryDelaysMs = [1, 1, 1];
});
afterAll(() => {
	transportTiming.retryDelaysMs = productionDelays;
	certs?.remove();
});

function ignoringSslIssues(credentials: CredentialsMap, on = true): CredentialsMap {
	return Object.fromEntries(Object.entries(credentials).map(([type, data]) => [type, { ...data, ignoreSslIssues: on }]));
}

const action = (fx: Fixture, extra: INodeParameters): INodeParameters => ({ authentication: fx.authentication, resource: 'job', ...extra });
const submitAndWait = (fx: Fixture) => action(fx, { operation: 'submit', ...fx.flow(SALES), runProfileName: 'default', waitForCompletion: true, waitSettings: { pollInterval: 1, timeout: 30 } });

const SELF_SIGNED_MESSAGE = (port: number) =>
	`The Job Execution service at 127.0.0.1:${port} presented a certificate n8n does not trust (self-signed certificate): ` +
	'turn on Ignore SSL Issues (Insecure) in the credential, or make n8n trust your CA with NODE_EXTRA_CA_CERTS';

describe.each(INTERFACES)('over https with a self-signed certificate (%s)', (kind: Interface) => {
	let fx: Fixture;
	afterEach(async () => {
		await fx?.server.close();
	});

	test('Ignore SSL Issues on: the credential test, Submit + Wait, Get, Get Many, the Job ID list and the trigger work as over http', async () => {
		fx = await startFixture(kind, { tls: certs.selfSigned });
		expect(fx.server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
		const credentials = ignoringSslIssues(fx.credentials);
		expect(await testCredentialAsN8nDoes(fx.authentication, credentials[fx.authentication])).toMatchObject({ status: 'OK' });
		const poller = createPoller({ authentication: fx.authentication }, credentials);
		expect(await poller.poll()).toBeNull();
		const results: RunNodeResult[] = [];
		const stop = advanceWhileWaiting(fx.clock, 1000);
		try {
			results.push(await runActionNode({ credentials, parameters: submitAndWait(fx) }));
		} finally {
			stop();
		}
		const jobId = results[0].json[0]?.jobId as string;
		expect(results[0].json[0]).toMatchObject({ executionStatus: 'COMPLETED' });
		results.push(await runActionNode({ credentials, parameters: action(fx, { operation: 'get', jobId }) }));
		results.push(await runActionNode({ credentials, parameters: action(fx, { operation: 'getMany' }) }));
		expect(results[1].json[0]).toMatchObject({ id: jobId, executionStatus: 'COMPLETED' });
		expect(results[2].json.map((job) => job.id)).toEqual([jobId]);
		const listed = await searchList('searchJobs', { authentication: fx.authentication }, credentials);
		expect(listed.results.map((entry) => entry.value)).toEqual([jobId]);
		const events = ((await poller.poll()) ?? []).map((item) => item.json);
		expect(events.map((event) => [event.id, event.executionStatus])).toEqual([[jobId, 'COMPLETED']]);
		for (const result of results) {
			expect(result.error).toBeUndefined();
			expectNoSecrets(result, credentials);
		}
	});

	// Each path, with the field off: what it runs, and the error (or test message) it ends with.
	const paths: Array<[string, (fx: Fixture, credentials: CredentialsMap) => Promise<{ message: string; description?: string; result?: RunNodeResult }>]> = [
		['the credential test', async (fx, credentials) => ({ message: (await testCredentialAsN8nDoes(fx.authentication, credentials[fx.authentication])).message })],
		['Submit', async (fx, credentials) => fromRun(await runActionNode({ credentials, parameters: submitAndWait(fx) }))],
		['Wait for Completion', async (fx, credentials) => fromRun(await runActionNode({ credentials, parameters: action(fx, { operation: 'waitForCompletion', jobId: 'job-1', waitSettings: { pollInterval: 1 } }) }))],
		['Get', async (fx, credentials) => fromRun(await runActionNode({ credentials, parameters: action(fx, { operation: 'get', jobId: 'job-1' }) }))],
		['Get Many', async (fx, credentials) => fromRun(await runActionNode({ credentials, parameters: action(fx, { operation: 'getMany' }) }))],
		['the Job ID list', async (fx, credentials) => thrown(searchList('searchJobs', { authentication: fx.authentication }, credentials))],
		['the trigger', async (fx, credentials) => thrown(createPoller({ authentication: fx.authentication }, credentials).poll())],
	];

	test.each(paths)('Ignore SSL Issues off: %s → "presented a certificate n8n does not trust (self-signed certificate): turn on Ignore SSL Issues …", one handshake, nothing sent, no key', async (name, run) => {
		fx = await startFixture(kind, { tls: certs.selfSigned });
		const credentials = ignoringSslIssues(fx.credentials, false);
		const outcome = await run(fx, credentials);
		expect(outcome.message.startsWith(SELF_SIGNED_MESSAGE(fx.server.port))).toBe(true);
		if (outcome.description !== undefined) {
			expect(outcome.description).toContain('NODE_EXTRA_CA_CERTS set to the path of its certificate');
			expect(outcome.description).toMatch(/\(DEPTH_ZERO_SELF_SIGNED_CERT\)$/);
		}
		if (name === 'Submit') expect(outcome.description).toContain('The request never reached the service, so no job was submitted.');
		if (outcome.result) expectNoSecrets(outcome.result, credentials);
		for (const secret of SECRETS) expect(`${outcome.message} ${outcome.description ?? ''}`).not.toContain(secret);
		expect(`${outcome.message} ${outcome.description ?? ''}`).not.toContain('PRIVATE KEY');
		// Refused at the handshake: one connection (a retry would open another), no request reached the service, no job made.
		expect(fx.server.connectionsAccepted()).toBe(1);
		expect(fx.server.stats.requests).toBe(0);
		expect(fx.server.store.count()).toBe(0);
	});
});

function fromRun(result: RunNodeResult): { message: string; description?: string; result: RunNodeResult } {
	if (!result.error) throw new Error(`the run did not fail: ${JSON.stringify(result.json)}`);
	return { message: result.error.message, description: result.error.description, result };
}

async function thrown(promise: Promise<unknown>): Promise<{ message: string; description?: string }> {
	const error = (await promise.then(
		() => undefined,
		(e: unknown) => e,
	)) as (Error & { description?: string }) | undefined;
	if (!error) throw new Error('the call did not fail');
	return { message: error.message, description: error.description ?? undefined };
}

describe('each certificate problem a client without the CA meets, named (Get, native)', () => {
	test.each([
		['a self-signed certificate', 'selfSigned', 'self-signed certificate', 'DEPTH_ZERO_SELF_SIGNED_CERT'],
		['a leaf of an unknown CA, served alone', 'leaf', 'certificate signed by an authority n8n does not know', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'],
		['a leaf served with its unknown CA', 'leafWithChain', 'self-signed certificate in its chain', 'SELF_SIGNED_CERT_IN_CHAIN'],
		['a leaf served with an intermediate of an unknown CA', 'viaIntermediate', 'certificate signed by an authority n8n does not know', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY'],
	] as const)('%s (%s) → "… does not trust (%s): turn on Ignore SSL Issues …" (%s)', async (_name, which, what, code) => {
		const fx = await startFixture('native', { tls: certs[which] });
		try {
			const result = await runActionNode({ credentials: fx.credentials, parameters: action(fx, { operation: 'get', jobId: 'job-1' }) });
			expect(result.error?.message).toBe(
				`The Job Execution service at 127.0.0.1:${fx.server.port} presented a certificate n8n does not trust (${what}): turn on Ignore SSL Issues (Insecure) in the credential, or make n8n trust your CA with NODE_EXTRA_CA_CERTS`,
			);
			expect(result.error?.description).toMatch(new RegExp(`\\(${code}\\)$`));
			expect(fx.server.connectionsAccepted()).toBe(1);
		} finally {
			await fx.server.close();
		}
	});

	test('an https URL on a plain http service → "The https connection … failed before any request was sent": no job, not retried', async () => {
		const server = await startReferenceServer({ port: 0 });
		try {
			const credentials = { jobExecutionApi: { baseUrl: server.url.replace('http:', 'https:'), authType: 'none' } };
			const result = await runActionNode({ credentials, parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'submit', flowFileName: SALES.path, runProfileName: 'default' } });
			expect(result.error?.message).toBe(`The https connection to the Job Execution service at 127.0.0.1:${server.port} failed before any request was sent (EPROTO)`);
			expect(result.error?.description).toBe(
				"Check that the service serves https at this address: if it serves plain http, the credential's Base URL must start with http://. The request never reached the service, so no job was submitted.",
			);
			expect(server.store.count()).toBe(0);
			// A read (retried after failures a retry can fix) makes one connection: the handshake's failure is not one of them.
			const read = await runActionNode({ credentials, parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'get', jobId: 'job-1' } });
			expect(read.error?.message).toBe(result.error?.message);
			expect(server.connectionsAccepted()).toBe(2);
			expect(server.stats.requests).toBe(0);
		} finally {
			await server.close();
		}
	});
});

describe('certificate codes these tests cannot make a server produce (a certificate not valid yet, a bad signature)', () => {
	const node = { id: 'n', name: 'Job Execution', type: 'x', typeVersion: 1, position: [0, 0], parameters: {} } as INode;
	const connection = { credentialType: 'jobExecutionRelayApi' as const, baseUrl: 'https://jobs.example.com' };
	test.each([
		['CERT_NOT_YET_VALID', "certificate not valid yet): renew the service's certificate, or turn on Ignore SSL Issues (Insecure) in the credential"],
		['UNABLE_TO_GET_ISSUER_CERT', 'certificate signed by an authority n8n does not know): turn on Ignore SSL Issues (Insecure) in the credential, or make n8n trust your CA with NODE_EXTRA_CA_CERTS'],
		['CERT_UNTRUSTED', 'certificate not trusted): turn on Ignore SSL Issues (Insecure) in the credential, or make n8n trust your CA with NODE_EXTRA_CA_CERTS'],
		['CERT_SIGNATURE_FAILURE', 'certificate with an invalid signature): turn on Ignore SSL Issues (Insecure) in the credential, or make n8n trust your CA with NODE_EXTRA_CA_CERTS'],
		['ERR_TLS_CERT_ALTNAME_INVALID', "certificate issued for another host name): set the credential's Relay URL to a host name the certificate holds, or turn on Ignore SSL Issues (Insecure) in the credential"],
	])('%s → "… does not trust (%s", never retried, no job', (code, words) => {
		const failure: Failure = { kind: 'network', code, detail: '' };
		const error = toNodeApiError(node, failure, listCall('active'), connection, []);
		expect(error.message).toBe(`The Job Execution service at jobs.example.com presented a certificate n8n does not trust (${words}`);
		expect(failureInWords(error)).toMatch(/^the service's certificate is not trusted \(/);
		expect(classifyFailure(failure, 'readJob').retry).toBe(false);
		expect(classifyFailure(failure, 'submit')).toEqual({ retry: false, mayHaveAccepted: false });
	});
});

test('the errors name the field as both credentials show it', () => {
	for (const type of ['jobExecutionApi', 'jobExecutionRelayApi']) {
		const field = credentialTypes[type].properties.find((property) => property.name === 'ignoreSslIssues');
		expect({ type, displayName: field?.displayName, default: field?.default }).toEqual({ type, displayName: IGNORE_SSL_FIELD, default: false });
	}
});

describe('a TLS protocol error is a failed handshake only before the service answered', () => {
	test.each([
		['before any answer (the handshake) → a read not retried, a submit made no job', undefined, { read: false, submitMayHaveAccepted: false }],
		['after the service answered HTTP 200 (the answer broke off) → a read retried, a submit may have made its job', 200, { read: true, submitMayHaveAccepted: true }],
	])('EPROTO %s', (_when, answered, expected) => {
		const failure: Failure = { kind: 'network', code: 'EPROTO', detail: '', answered };
		expect({ read: classifyFailure(failure, 'readJob').retry, submitMayHaveAccepted: classifyFailure(failure, 'submit').mayHaveAccepted }).toEqual(expected);
	});
});

describe('with the test CA trusted (NODE_EXTRA_CA_CERTS, in a child process), Ignore SSL Issues off', () => {
	test('the credential tests (a chain through an intermediate too), Submit + Wait, Get Many, the Job ID list and the trigger work; an expired certificate and one for another name are named', async () => {
		const native = await startFixture('native', { tls: certs.leaf });
		const relay = await startFixture('relay', { tls: certs.leaf });
		const expired = await startFixture('relay', { tls: certs.expired });
		const otherName = await startFixture('native', { tls: certs.otherName });
		const corporate = await startFixture('native', { tls: certs.viaIntermediate });
		const stop = advanceWhileWaiting(native.clock, 1000);
		try {
			const submitted = await runActionNode({ credentials: ignoringSslIssues(relay.credentials), parameters: action(relay, { operation: 'submit', ...relay.flow(SALES), runProfileName: 'default' }) });
			const existing = submitted.json[0].jobId as string;
			relay.clock.advance(60_000);
			const outcomes = await runTrustingCa(
				[
					{ kind: 'credentialTest', type: 'jobExecutionApi', data: native.credentials.jobExecutionApi },
					{ kind: 'credentialTest', type: 'jobExecutionRelayApi', data: relay.credentials.jobExecutionRelayApi },
					{ kind: 'action', parameters: submitAndWait(native), credentials: native.credentials },
					{ kind: 'action', parameters: action(relay, { operation: 'getMany' }), credentials: relay.credentials },
					{ kind: 'listSearch', parameters: { authentication: relay.authentication }, credentials: relay.credentials },
					{ kind: 'trigger', parameters: { authentication: relay.authentication, startFrom: 'existing' }, credentials: relay.credentials },
					{ kind: 'action', parameters: action(expired, { operation: 'get', jobId: 'job-1' }), credentials: expired.credentials },
					{ kind: 'credentialTest', type: 'jobExecutionApi', data: otherName.credentials.jobExecutionApi },
					{ kind: 'credentialTest', type: 'jobExecutionApi', data: corporate.credentials.jobExecutionApi },
				],
				certs.caFile,
			);
			const [nativeTest, relayTest, waited, many, listed, events, expiredGet, otherNameTest, corporateTest] = outcomes;
			expect(nativeTest).toMatchObject({ status: 'OK' });
			// A chain through an intermediate the service sends: the root alone is trusted.
			expect(corporateTest).toMatchObject({ status: 'OK' });
			expect(relayTest).toMatchObject({ status: 'OK' });
			expect(waited.error).toBeUndefined();
			expect(waited.items?.[0]).toMatchObject({ executionStatus: 'COMPLETED' });
			expect(many.items?.map((job: IDataObject) => job.id)).toEqual([existing]);
			expect(listed.items?.map((entry: IDataObject) => entry.value)).toEqual([existing]);
			expect(events.items?.map((event: IDataObject) => [event.id, event.executionStatus])).toEqual([[existing, 'COMPLETED']]);
			expect(expiredGet.error).toBe(
				`The Job Execution service at 127.0.0.1:${expired.server.port} presented a certificate n8n does not trust (expired certificate): renew the service's certificate, or turn on Ignore SSL Issues (Insecure) in the credential`,
			);
			expect(expiredGet.description).toMatch(/\(CERT_HAS_EXPIRED\)$/);
			expect(otherNameTest.status).toBe('Error');
			expect(otherNameTest.message).toMatch(
				new RegExp(
					`^The Job Execution service at 127\\.0\\.0\\.1:${otherName.server.port} presented a certificate n8n does not trust \\(certificate issued for another host name\\): set the credential's Base URL to a host name the certificate holds, or turn on Ignore SSL Issues \\(Insecure\\) in the credential\\. .*\\(ERR_TLS_CERT_ALTNAME_INVALID\\)$`,
				),
			);
			// Refused by the client once the CA is trusted: no request reached either service.
			expect([expired.server.stats.requests, otherName.server.stats.requests]).toEqual([0, 0]);
		} finally {
			stop();
			await Promise.all([native, relay, expired, otherName, corporate].map((fx) => fx.server.close()));
		}
	});
});
