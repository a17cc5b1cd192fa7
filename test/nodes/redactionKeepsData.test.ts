/**
 * Redaction never changes an id, a time or a value the workflow relies on (issue 26 §3): with keys that occur in the
 * data inside longer runs of letters and digits (a Basic password `20262026`, relay keys `0a1b2026` and `20262026`,
 * all in the job id; shorter keys are refused before anything is sent), Submit with Wait, Get and the trigger,
 * through n8n's engine against a service on 127.0.0.1, return the job id and the ISO times exactly as the service
 * sent them, and the wait reads that very id; the Authorization value the service echoes is still hidden.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runActionNode } from '../../testkit/engine';
import type { CredentialsMap } from '../../testkit/engine';
import { startHostileServer } from '../../testkit/hostileServer';
import type { HostileRequest, Listener } from '../../testkit/hostileServer';
import { createPoller } from '../../testkit/poller';

const ID = '7c2f2026-1a2b-4c3d-8e9f-0a1b20262026';
const START = '2026-11-25T18:30:28.123Z';
const END = '2026-11-25T18:31:02.026Z';

const CREDENTIALS: Record<'basic' | 'relay', CredentialsMap> = {
	basic: { jobExecutionApi: { baseUrl: '', authType: 'basicAuth', user: 'admin', password: '20262026' } },
	relay: { jobExecutionRelayApi: { relayUrl: '', apiKey: '0a1b2026', userApiKey: '20262026' } },
};

function job(request: HostileRequest, status: string): Record<string, unknown> {
	return {
		id: ID,
		jobName: 'sales 2026',
		executionStatus: status,
		startTime: START,
		endTime: status === 'RUNNING' ? null : END,
		log: `2026-11-25 18:30:28 [main] INFO job ${ID} request headers: authorization: ${String(request.raw.headers.authorization ?? '')}`,
	};
}

let server: Listener;
let polls = 0;
beforeAll(async () => {
	server = await startHostileServer((request) => {
		if (request.method === 'POST') return { kind: 'json', body: { jobId: ID } };
		if (request.target.startsWith('/api/v1/jobs/')) return { kind: 'json', body: job(request, 'COMPLETED') };
		const active = request.target.endsWith('filter=active');
		if (active) polls++;
		if (polls <= 1) return { kind: 'json', body: active ? [job(request, 'RUNNING')] : [] };
		return { kind: 'json', body: active ? [] : [job(request, 'COMPLETED')] };
	});
});
afterAll(async () => {
	await server.close();
});

function credentialsFor(variant: 'basic' | 'relay'): CredentialsMap {
	const [type, data] = Object.entries(CREDENTIALS[variant])[0];
	return { [type]: { ...data, ...(variant === 'relay' ? { relayUrl: server.url } : { baseUrl: server.url }) } };
}

function parameters(variant: 'basic' | 'relay', extra: INodeParameters): INodeParameters {
	const interfaceFields = variant === 'relay' ? { flowId: '3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10' } : { flowFileName: '/Shared/Flows/sales.flow' };
	return { authentication: variant === 'relay' ? 'jobExecutionRelayApi' : 'jobExecutionApi', resource: 'job', ...interfaceFields, runProfileName: 'default', ...extra };
}

describe.each(['basic', 'relay'] as const)('%s credential with keys that occur in ids and times', (variant) => {
	test('Submit with Wait: the job id and the times come back as sent, and the wait reads that id', async () => {
		const before = server.requests.length;
		const result = await runActionNode({
			credentials: credentialsFor(variant),
			parameters: parameters(variant, { operation: 'submit', waitForCompletion: true, waitSettings: { pollInterval: 1, timeout: 10 } }),
		});
		expect(result.error).toBeUndefined();
		expect(result.json[0].jobId).toBe(ID);
		const shown = JSON.stringify(result.json[0]);
		expect(shown).toContain(START);
		expect(shown).toContain(END);
		expect(shown).toContain('sales 2026');
		const reads = server.requests.slice(before).filter((request) => request.method === 'GET');
		expect(reads.length).toBeGreaterThan(0);
		expect(reads.every((request) => request.target === `/api/v1/jobs/${ID}`)).toBe(true);
		if (variant === 'basic') {
			// The echoed Authorization value (base64 of admin:20262026): hidden.
			expect(String(result.json[0].log)).toContain('authorization: Basic ***');
			// The key is in the job id by design (not as a token, so kept): the check looks at what else it could show as.
			const shown = JSON.stringify(result.json[0]).toLowerCase();
			expect(shown).not.toContain(Buffer.from('admin:20262026').toString('base64').replace(/=+$/, '').toLowerCase());
			expect(shown).not.toContain('admin:20262026');
		}
	});

	test('Get and a trigger event: the id and the times as sent', async () => {
		const got = await runActionNode({ credentials: credentialsFor(variant), parameters: parameters(variant, { operation: 'get', jobId: ID }) });
		expect(got.error).toBeUndefined();
		expect(JSON.stringify(got.json[0])).toContain(`"${ID}"`);
		expect(JSON.stringify(got.json[0])).toContain(START);
		polls = 0;
		const poller = createPoller({ authentication: parameters(variant, {}).authentication } as INodeParameters, credentialsFor(variant));
		expect(await poller.poll()).toBeNull();
		const events = await poller.poll();
		expect(events).toHaveLength(1);
		const event = JSON.stringify(events);
		expect(event).toContain(`"${ID}"`);
		expect(event).toContain(END);
	});
});

describe('a job id that holds a key (8 hex characters, a token of the id)', () => {
	test('Submit with Wait shows the id redacted, and still reads the job under the id the service sent', async () => {
		const key = 'deadbeef';
		const id = `${key}-1a2b-4c3d-8e9f-0a1b2c3d4e5f`;
		const service = await startHostileServer((request) =>
			request.method === 'POST' ? { kind: 'json', body: { jobId: id } } : { kind: 'json', body: { id, executionStatus: 'COMPLETED', startTime: START, endTime: END } },
		);
		try {
			const result = await runActionNode({
				credentials: { jobExecutionApi: { baseUrl: service.url, authType: 'bearerToken', token: key } },
				parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'submit', flowFileName: '/Shared/Flows/sales.flow', runProfileName: 'default', waitForCompletion: true, waitSettings: { pollInterval: 1, timeout: 10 } },
			});
			expect(result.error).toBeUndefined();
			expect(result.json[0].jobId).toBe('***-1a2b-4c3d-8e9f-0a1b2c3d4e5f');
			expect(result.json[0].executionStatus).toBe('COMPLETED');
			const reads = service.requests.filter((request) => request.method === 'GET');
			expect(reads.map((request) => request.target)).toEqual([`/api/v1/jobs/${id}`]);
			expect(JSON.stringify(result.json)).not.toContain(key);
		} finally {
			await service.close();
		}
	});
});

describe('a digits-only key longer than a double holds (17 digits), echoed as a JSON number', () => {
	const KEY = '73914052618273645';
	const relay = (url: string): CredentialsMap => ({ jobExecutionRelayApi: { relayUrl: url, apiKey: 'relay-key-&<>"\'+/%', userApiKey: KEY } });
	let echo: Listener;
	beforeAll(async () => {
		// The raw text holds the key's digits; JSON.parse would round them to 73914052618273650.
		echo = await startHostileServer((request) =>
			request.raw.headers.endpoint === '/api/v1/jobs/bad'
				? { kind: 'raw', status: 400, text: `{"message":"unknown job","detail":${KEY}}` }
				: { kind: 'raw', text: `{"id":"${ID}","executionStatus":"RUNNING","userApiKey":${KEY}}` },
		);
	});
	afterAll(async () => {
		await echo.close();
	});

	test.each(['0a1b2c3d-0000-4000-8000-000000000001', 'bad'])('Get of job %s: neither the output nor the error shows it, nor its rounded form', async (jobId) => {
		const result = await runActionNode({ credentials: relay(echo.url), parameters: { authentication: 'jobExecutionRelayApi', resource: 'job', operation: 'get', jobId }, continueOnFail: true });
		const shown = JSON.stringify([result.json, result.error?.message, result.error?.description]);
		expect(echo.requests.some((request) => request.raw.headers['user-api-key'] === KEY)).toBe(true);
		expect(shown).toContain(jobId === 'bad' ? 'unknown job' : ID);
		expect(shown).not.toContain(KEY.slice(0, 15));
		expect(shown).not.toContain(String(Number(KEY)).slice(0, 15));
	});
});
