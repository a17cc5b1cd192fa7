// The relay API of the reference server: the endpoint and method headers, keys never taken from the body, its refusals, strict catalogs.
import { RELAY_401 } from '../../server';
import { FIELD_ORDER, SALES_ID, UUID_V4, startHarness } from './helpers';
import type { Harness } from './helpers';

const relayBody = (overrides: Record<string, unknown> = {}) => ({
	flowId: SALES_ID,
	runProfileName: 'default',
	notificationEnabled: true,
	parameters: [{ name: 'region', type: 'string', value: 'EMEA' }],
	...overrides,
});

describe('relay API', () => {
	let h: Harness;
	beforeEach(async () => {
		h = await startHarness({ concurrency: 1 });
	});
	afterEach(async () => {
		await h.server.close();
	});

	const execute = (body: unknown, headers: Record<string, string> = {}) =>
		h.relay.post('/call/execute', body, { headers: { endpoint: '/api/v1/jobs', method: 'POST', ...headers } });
	const status = (endpoint: string, headers: Record<string, string> = {}) =>
		h.relay.get('/call/status', { headers: { endpoint, method: 'GET', ...headers } });

	it('submits through /call/execute with flowId (200 at once, 202 queued) and reads through /call/status', async () => {
		const first = await execute(relayBody());
		expect(first.status).toBe(200);
		expect(Object.keys(first.data)).toEqual(['jobId']);
		expect(first.data.jobId).toMatch(UUID_V4);
		const second = await execute(relayBody());
		expect(second.status).toBe(202);

		const one = await status(`/api/v1/jobs/${first.data.jobId}`);
		expect(one.status).toBe(200);
		expect(Object.keys(one.data)).toEqual(FIELD_ORDER);
		expect(one.data.flowName).toBe('sales');
		expect(one.data.executionStatus).toBe('RUNNING');

		const filtered = await status(`/api/v1/jobs/${second.data.jobId}?filter=executionStatus`);
		expect(filtered.status).toBe(200);
		expect(filtered.data).toBe('QUEUED');

		h.clock.advance(3000);
		const list = await status('/api/v1/jobs');
		expect(list.data.map((s: { id: string }) => s.id)).toEqual([second.data.jobId, first.data.jobId]);
		const active = await status('/api/v1/jobs?filter=active');
		expect(active.data.map((s: { id: string }) => s.id)).toEqual([second.data.jobId]);
		const history = await status('/api/v1/jobs?filter=history');
		expect(history.data.map((s: { executionStatus: string }) => s.executionStatus)).toEqual(['COMPLETED']);
		// Same answer as the native route.
		const native = await h.http.get(`/api/v1/jobs/${first.data.jobId}`);
		const relayed = await status(`/api/v1/jobs/${first.data.jobId}`);
		expect(relayed.data).toEqual(native.data);
		expect(relayed.data.log).toContain(`runItem=/Shared/Flows/sales.flow`);
	});

	it('accepts an unknown flowId with defaults (not strict)', async () => {
		const r = await execute(relayBody({ flowId: 'ABCDEF12-3456-4789-8abc-def012345678' }));
		expect(r.status).toBe(200);
		const s = (await status(`/api/v1/jobs/${r.data.jobId}`)).data;
		expect(s.flowName).toBe('flow-abcdef12');
		expect(s.jobName).toBe('flow-abcdef12_default');
		h.clock.advance(3000);
		expect((await status(`/api/v1/jobs/${r.data.jobId}`)).data.log).toContain('runItem=/Shared/Flows/flow-abcdef12.flow');
	});

	it.each([
		['no keys', { apiKey: '', 'user-api-key': '' }],
		['missing apiKey', { apiKey: undefined }],
		['wrong apiKey', { apiKey: 'relay-key-2' }],
		['missing user-api-key', { 'user-api-key': undefined }],
		['wrong user-api-key', { 'user-api-key': 'user-key-2' }],
		['keys swapped', { apiKey: 'user-key-1', 'user-api-key': 'relay-key-1' }],
	])('401 for %s, on both endpoints, without echoing a key', async (_name, override) => {
		const headers: Record<string, string | undefined> = { apiKey: h.server.relayApiKey, 'user-api-key': h.server.userApiKey, ...override };
		const send = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<string, string>;
		const s = await h.http.get('/call/status', { headers: { ...send, endpoint: '/api/v1/jobs', method: 'GET' } });
		const e = await h.http.post('/call/execute', relayBody(), { headers: { ...send, endpoint: '/api/v1/jobs', method: 'POST' } });
		for (const r of [s, e]) {
			expect(r.status).toBe(401);
			expect(r.data).toEqual({ message: RELAY_401 });
			expect(JSON.stringify(r.data)).not.toMatch(/relay-key|user-key/);
		}
		expect(h.server.store.count()).toBe(0);
	});

	it('does not take the keys from the body', async () => {
		const r = await h.http.post('/call/execute', { ...relayBody(), apiKey: 'relay-key-1', 'user-api-key': 'user-key-1' }, { headers: { endpoint: '/api/v1/jobs', method: 'POST' } });
		expect(r.status).toBe(401);
	});

	it.each([
		['/api/v1/flows?flowFileName=a&runProfile=b'],
		['/api/v1/jobs/../flows'],
		['/api/v1/jobs/..'],
		['/api/v1/jobs/%2e%2e'],
		['/api/v1/jobs%2Fabc'],
		['/api/v1/jobs/abc%2Fdef'],
		['/api/v1/jobs/'],
		['/api/v1/jobs/a/b'],
		['/api/v2/jobs'],
		['api/v1/jobs'],
		['http://evil.example/api/v1/jobs'],
		['/api/v1/jobs?limit=5'],
		['/api/v1/jobs?filter=active&x=1'],
		['/api/v1/jobs?filter=unknown'],
		['/api/v1/jobs/abc?filter=status'],
		['/api/v1/jobs#frag'],
		['/api/v1/jobs\\..\\flows'],
		[''],
	])('/call/status refuses endpoint %j with 400', async (endpoint) => {
		const r = await status(endpoint);
		expect(r.status).toBe(400);
		expect(typeof r.data.message).toBe('string');
	});

	it('/call/status refuses a missing endpoint header and a method other than GET', async () => {
		const noEndpoint = await h.relay.get('/call/status', { headers: { method: 'GET' } });
		expect(noEndpoint.status).toBe(400);
		const noMethod = await h.relay.get('/call/status', { headers: { endpoint: '/api/v1/jobs' } });
		expect(noMethod.status).toBe(400);
		const post = await status('/api/v1/jobs', { method: 'POST' });
		expect(post.status).toBe(400);
		expect(post.data.message).toMatch(/method/);
	});

	it('/call/status answers 400 for an unknown job id, like the native route', async () => {
		const r = await status('/api/v1/jobs/00000000-0000-4000-8000-000000000000');
		expect(r.status).toBe(400);
		expect(r.data.message).toMatch(/unknown job id/);
	});

	it('/call/execute refuses other endpoints, methods and bodies with 400', async () => {
		for (const [endpoint, method] of [
			['/api/v1/jobs', 'GET'],
			['/api/v1/jobs', 'DELETE'],
			['/api/v1/jobs?filter=active', 'POST'],
			['/api/v1/jobs/abc', 'POST'],
			['/api/v1/flows', 'POST'],
			['/api/v1/jobs/../jobs', 'POST'],
		]) {
			const r = await execute(relayBody(), { endpoint, method });
			expect(r.status).toBe(400);
		}
		const bodies: Array<[unknown, RegExp]> = [
			[{ runProfileName: 'default' }, /flowId is required/],
			[{ flowFileName: '/Shared/Flows/sales.flow', runProfileName: 'default' }, /flowId is required/],
			[relayBody({ flowId: 'not-a-uuid' }), /flowId must be a UUID/],
			[relayBody({ runProfileName: 'weekly' }), /runProfileName/],
			[relayBody({ parameters: [{ name: 'n', type: 'integer', value: '4.2' }] }), /integer/],
		];
		for (const [body, re] of bodies) {
			const r = await execute(body);
			expect(r.status).toBe(400);
			expect(r.data.message).toMatch(re);
		}
		const malformed = await h.relay.post('/call/execute', '{"flowId":', { headers: { endpoint: '/api/v1/jobs', method: 'POST' }, transformRequest: (x) => x });
		expect(malformed.status).toBe(400);
		expect(malformed.data.message).toMatch(/JSON/);
		expect(h.server.store.count()).toBe(0);
	});

	it('/call/execute answers 413 over 1 MiB and keeps answering', async () => {
		const r = await execute(JSON.stringify(relayBody({ parameters: [{ name: 'x', type: 'string', value: 'z'.repeat(1_100_000) }] })));
		expect(r.status).toBe(413);
		expect((await execute(relayBody())).status).toBe(200);
	});

	it('405 for the wrong HTTP verb on a relay path, 404 for other relay paths', async () => {
		const r = await h.relay.post('/call/status', {}, { headers: { endpoint: '/api/v1/jobs', method: 'GET' } });
		expect(r.status).toBe(405);
		const g = await h.relay.get('/call/execute', { headers: { endpoint: '/api/v1/jobs', method: 'POST' } });
		expect(g.status).toBe(405);
		expect((await h.relay.get('/call/other', { headers: { endpoint: '/api/v1/jobs', method: 'GET' } })).status).toBe(404);
	});

	it('counts relay requests by route', async () => {
		await status('/api/v1/jobs');
		await execute(relayBody());
		expect(h.server.stats.byRoute['GET /call/status']).toBe(1);
		expect(h.server.stats.byRoute['POST /call/execute']).toBe(1);
	});
});

describe('relay API: strict catalog', () => {
	it('refuses an unknown flowId with 400 naming it', async () => {
		const h = await startHarness({ strict: true });
		try {
			const r = await h.relay.post('/call/execute', relayBody({ flowId: '11111111-2222-4333-8444-555555555555' }), { headers: { endpoint: '/api/v1/jobs', method: 'POST' } });
			expect(r.status).toBe(400);
			expect(r.data.message).toContain('11111111-2222-4333-8444-555555555555');
			const ok = await h.relay.post('/call/execute', relayBody(), { headers: { endpoint: '/api/v1/jobs', method: 'POST' } });
			expect(ok.status).toBe(200);
		} finally {
			await h.server.close();
		}
	});
});
