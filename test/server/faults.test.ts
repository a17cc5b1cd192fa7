// The server's fault injection (test only): each kind, before or after the route, on both interfaces, and the
// matching rules. After every fault the server answers normally again.
import axios from 'axios';

import { jobBody, SALES_ID, startHarness } from './helpers';
import type { Harness } from './helpers';

describe('fault injection', () => {
	let h: Harness;
	beforeEach(async () => {
		h = await startHarness();
	});
	afterEach(async () => {
		await h.server.close();
	});

	const nativeSubmit = () => h.http.post('/api/v1/jobs', jobBody());
	const relaySubmit = () =>
		h.relay.post('/call/execute', { flowId: SALES_ID, runProfileName: 'default' }, { headers: { endpoint: '/api/v1/jobs', method: 'POST' } });
	const rawText = { transformResponse: (x: unknown) => x };

	it('is off by default', async () => {
		expect(h.server.faults.waiting()).toBe(0);
		expect((await nativeSubmit()).status).toBe(200);
		expect(h.server.faults.applied).toEqual([]);
	});

	it.each([
		['native', () => nativeSubmit()],
		['relay', () => relaySubmit()],
	] as const)('drop before the route (%s): no answer, no job; after the route: no answer, one job', async (_api, submit) => {
		h.server.faults.inject({ kind: 'drop', method: 'POST' });
		await expect(submit()).rejects.toMatchObject({ code: 'ECONNRESET' });
		expect(h.server.store.count()).toBe(0);
		h.server.faults.inject({ kind: 'drop', method: 'POST', after: true });
		await expect(submit()).rejects.toMatchObject({ code: 'ECONNRESET' });
		expect(h.server.store.count()).toBe(1);
		expect((await submit()).status).toBe(200);
		expect(h.server.store.count()).toBe(2);
		expect(h.server.faults.applied.map((f) => [f.kind, f.after, f.method, f.target])).toEqual([
			['drop', false, 'POST', '/api/v1/jobs'],
			['drop', true, 'POST', '/api/v1/jobs'],
		]);
	});

	it.each([
		[{ kind: 'status', status: 503 }, 503, 'application/json; charset=utf-8', /^\{"message":"injected fault: HTTP 503"\}$/],
		[{ kind: 'status', status: 429 }, 429, 'application/json; charset=utf-8', /HTTP 429/],
		[{ kind: 'html' }, 502, 'text/html; charset=utf-8', /^<!doctype html>[\s\S]*502 Bad Gateway/],
		[{ kind: 'emptyBadRequest' }, 400, 'text/plain; charset=utf-8', /^$/],
		[{ kind: 'bareString', status: 400, text: 'no such thing' }, 400, 'text/plain; charset=utf-8', /^no such thing$/],
		[{ kind: 'malformedJson' }, 200, 'application/json; charset=utf-8', /^\{"jobId":"[0-9a-f-]{1,20}$/],
	] as const)('answer fault %j → HTTP %i (%s), the route replaced: nothing created', async (fault, status, contentType, body) => {
		h.server.faults.inject(fault);
		const r = await h.http.post('/api/v1/jobs', jobBody(), rawText);
		expect([r.status, r.headers['content-type'], r.data]).toEqual([status, contentType, expect.stringMatching(body)]);
		expect(h.server.store.count()).toBe(0);
		expect((await nativeSubmit()).status).toBe(200);
	});

	it('answer faults after the route: the job exists, the answer is broken', async () => {
		h.server.faults.inject([
			{ kind: 'malformedJson', after: true },
			{ kind: 'status', status: 500, after: true },
			{ kind: 'bareString', after: true, text: 'Accepted' },
		]);
		const broken = await h.http.post('/api/v1/jobs', jobBody(), rawText);
		expect(broken.status).toBe(200);
		expect(broken.data).toMatch(/^\{"jobId":"[0-9a-f-]+$/);
		expect((await nativeSubmit()).status).toBe(500);
		const bare = await h.http.post('/api/v1/jobs', jobBody(), rawText);
		expect([bare.status, bare.data]).toEqual([200, 'Accepted']);
		expect(h.server.store.count()).toBe(3);
	});

	it('latency delays the answer, before or after the route', async () => {
		h.server.faults.inject([{ kind: 'latency', ms: 300 }, { kind: 'latency', ms: 300, after: true }]);
		for (let i = 0; i < 2; i++) {
			const started = Date.now();
			expect((await nativeSubmit()).status).toBe(200);
			// A lower bound only: a loaded machine makes answers later, never earlier.
			expect(Date.now() - started).toBeGreaterThanOrEqual(290);
		}
		// Each fault applied once and none left: the next answer is not delayed (proven by count, not by a clock).
		expect(h.server.faults.applied.map((f) => [f.kind, f.after])).toEqual([['latency', false], ['latency', true]]);
		expect(h.server.faults.waiting()).toBe(0);
		expect((await nativeSubmit()).status).toBe(200);
		expect(h.server.faults.applied).toHaveLength(2);
		expect(h.server.store.count()).toBe(3);
	});

	it('matches by verb, native target (relay: the endpoint header), interface, skip and times', async () => {
		h.server.faults.inject({ kind: 'status', status: 503, method: 'GET', target: '/api/v1/jobs?filter=history', skip: 1, times: 2 });
		h.server.faults.inject({ kind: 'status', status: 504, api: 'relay', target: /^\/api\/v1\/jobs\/[^?]+$/ });
		const history = () => h.http.get('/api/v1/jobs?filter=history');
		const relayHistory = () => h.relay.get('/call/status', { headers: { endpoint: '/api/v1/jobs?filter=history', method: 'GET' } });
		expect((await h.http.get('/api/v1/jobs?filter=active')).status).toBe(200);
		expect((await nativeSubmit()).status).toBe(200);
		expect((await history()).status).toBe(200); // skipped
		expect((await relayHistory()).status).toBe(503);
		expect((await history()).status).toBe(503);
		expect((await history()).status).toBe(200);
		const { jobId } = (await nativeSubmit()).data;
		expect((await h.http.get(`/api/v1/jobs/${jobId}`)).status).toBe(200); // native: not this fault's interface
		const relayRead = () => h.relay.get('/call/status', { headers: { endpoint: `/api/v1/jobs/${jobId}`, method: 'GET' } });
		expect((await relayRead()).status).toBe(504);
		expect((await relayRead()).status).toBe(200);
		expect(h.server.faults.waiting()).toBe(0);
	});

	it('takes faults queued at start and can clear the queue', async () => {
		const clock = h.clock;
		await h.server.close();
		h = await startHarness({ clock, faults: [{ kind: 'status', status: 500, times: 10 }] });
		expect((await h.http.get('/api/v1/jobs')).status).toBe(500);
		h.server.faults.clear();
		expect((await h.http.get('/api/v1/jobs')).status).toBe(200);
		expect(() => h.server.faults.inject({ kind: 'drop', times: 0 })).toThrow(/times/);
	});

	it('keeps answering other clients while a fault delays one', async () => {
		h.server.faults.inject({ kind: 'latency', ms: 2000, target: '/api/v1/jobs?filter=active' });
		let slowAnswered = false;
		const slow = h.http.get('/api/v1/jobs?filter=active').finally(() => (slowAnswered = true));
		while (h.server.faults.applied.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
		// The delayed request is held by the server. Order, not speed: the other client is answered while it still
		// waits (a 2 s margin for one local request, so a loaded machine cannot turn it around).
		expect((await axios.get(`${h.server.url}/api/v1/jobs`)).status).toBe(200);
		expect(slowAnswered).toBe(false);
		expect((await slow).status).toBe(200);
	});
});
