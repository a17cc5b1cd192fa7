// Stated limits of the reference server: field sizes (400 naming the field), the queue (503 with Retry-After),
// list answers bounded in bytes and written piece by piece.
import { connect } from 'net';

import { FIELD_LIMITS, LIST_MAX_BYTES, parseArgs } from '../../server';
import { jobBody, SALES_ID, startHarness, TEST_CATALOG } from './helpers';
import type { Harness } from './helpers';

const longText = (n: number) => 'x'.repeat(n);

describe('field limits', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness();
	});
	afterAll(async () => {
		await h.server.close();
	});

	const param = (name: string, value: string) => ({ name, type: 'string', value });
	const over: Array<[string, Record<string, unknown>, string]> = [
		['flowFileName', { flowFileName: `/Shared/Flows/${longText(FIELD_LIMITS.flowFileName)}.flow` }, 'flowFileName is longer than 1024 characters'],
		['runProfileName', { flowFileName: '/Shared/Flows/any.flow', runProfileName: longText(FIELD_LIMITS.runProfileName + 1) }, 'runProfileName is longer than 256 characters'],
		['parameters (count)', { parameters: Array.from({ length: FIELD_LIMITS.parameters + 1 }, (_, i) => param(`p${i}`, 'v')) }, 'parameters has 101 items, at most 100 are allowed'],
		['parameters[0].name', { parameters: [param(longText(FIELD_LIMITS.parameterName + 1), 'v')] }, 'parameters[0].name is longer than 256 characters'],
		['parameters[1].value', { parameters: [param('a', 'v'), param('b', longText(FIELD_LIMITS.parameterValue + 1))] }, 'parameters[1].value is longer than 8192 characters'],
		['parameters (total)', { parameters: Array.from({ length: 9 }, (_, i) => param(`p${i}`, longText(FIELD_LIMITS.parameterValue))) }, 'parameters: names and values together are longer than 65536 characters'],
	];
	it.each(over)('%s over its limit is refused with 400 naming the field, and no job is created', async (_field, overrides, text) => {
		const before = h.server.store.count();
		const r = await h.http.post('/api/v1/jobs', jobBody(overrides));
		expect(r.status).toBe(400);
		expect(r.data.message).toContain(text);
		expect(r.data.message.length).toBeLessThan(200);
		expect(h.server.store.count()).toBe(before);
	});

	it('accepts every field exactly at its limit', async () => {
		const r = await h.http.post('/api/v1/jobs', {
			flowFileName: `/Shared/Flows/${longText(FIELD_LIMITS.flowFileName - 20)}.flow`,
			runProfileName: longText(FIELD_LIMITS.runProfileName),
			parameters: Array.from({ length: 8 }, (_, i) => param(`p${i}`, longText(FIELD_LIMITS.parameterValue - 2))),
		});
		expect(r.status).toBe(200);
		expect((await h.http.get(`/api/v1/jobs/${r.data.jobId}`)).data.runProfileName).toHaveLength(FIELD_LIMITS.runProfileName);
	});

	it('applies the same limits through the relay', async () => {
		const r = await h.relay.post('/call/execute', { flowId: SALES_ID, runProfileName: 'default', parameters: [param('a', longText(FIELD_LIMITS.parameterValue + 1))] }, { headers: { endpoint: '/api/v1/jobs', method: 'POST' } });
		expect(r.status).toBe(400);
		expect(r.data.message).toContain('parameters[0].value is longer than 8192 characters');
	});
});

describe('queue limit', () => {
	it('takes --max-jobs and --max-queued on the command line (positive integers)', () => {
		expect(parseArgs(['--max-jobs', '5', '--max-queued=7'])).toEqual({ port: 8080, maxJobs: 5, maxQueued: 7 });
		expect(() => parseArgs(['--max-queued', '0'])).toThrow('--max-queued needs an integer >= 1, got "0"');
	});

	it('refuses past maxQueued with 503 and Retry-After, creates no job, and accepts again once a slot frees', async () => {
		const h = await startHarness({ concurrency: 1, maxQueued: 2 });
		try {
			const answers = [];
			for (let i = 0; i < 3; i++) answers.push((await h.http.post('/api/v1/jobs', jobBody())).status);
			expect(answers).toEqual([200, 202, 202]);
			const refused = await h.http.post('/api/v1/jobs', jobBody());
			expect(refused.status).toBe(503);
			expect(refused.headers['retry-after']).toBe('1');
			expect(refused.data.message).toBe('the queue is full (2 jobs waiting); try again later');
			expect(h.server.store.count()).toBe(3);
			h.clock.advance(3000); // the first job (3 s) ends, the next starts: one place in the queue
			expect((await h.http.post('/api/v1/jobs', jobBody())).status).toBe(202);
			expect((await h.http.post('/api/v1/jobs', jobBody())).status).toBe(503);
		} finally {
			await h.server.close();
		}
	});

	it('keeps queued jobs beyond maxJobs (the queue limit bounds them) and forgets only finished ones', async () => {
		const h = await startHarness({ concurrency: 1, maxJobs: 3, maxQueued: 5 });
		try {
			for (let i = 0; i < 6; i++) await h.http.post('/api/v1/jobs', jobBody());
			expect(h.server.store.count()).toBe(6);
			expect((await h.http.post('/api/v1/jobs', jobBody())).status).toBe(503);
			h.clock.advance(6000); // two jobs end: beyond maxJobs the finished ones go
			await h.http.post('/api/v1/jobs', jobBody());
			expect(h.server.store.count()).toBe(5);
			expect((await h.http.get('/api/v1/jobs?filter=history')).data).toHaveLength(0);
		} finally {
			await h.server.close();
		}
	});
});

describe('list answers', () => {
	// 200 steps of 1 ms: a log of about 50 KB, plus 64 KB of parameters in it (100 of them: over 8 MiB).
	const BIG = { flowFileName: '/Shared/Flows/big.flow', steps: 200, stepMs: 1 };
	let h: Harness;
	const ids: string[] = [];
	beforeAll(async () => {
		h = await startHarness({ catalog: { flows: [...TEST_CATALOG.flows, BIG] }, concurrency: 200, requestTimeoutMs: 1000 });
		const parameters = Array.from({ length: 8 }, (_, i) => ({ name: `p${i}`, type: 'string', value: longText(FIELD_LIMITS.parameterValue - 2) }));
		for (let i = 0; i < 100; i++) ids.push((await h.http.post('/api/v1/jobs', jobBody({ flowFileName: BIG.flowFileName, parameters }))).data.jobId);
		h.clock.advance(1000);
	});
	afterAll(async () => {
		await h.server.close();
	});

	it('stop before LIST_MAX_BYTES (fewer than 100 jobs then), newest first, valid JSON, native and relay', async () => {
		for (const [client, get] of [
			['native', () => h.http.get('/api/v1/jobs?filter=history', { responseType: 'text', transformResponse: (x) => x })],
			['relay', () => h.relay.get('/call/status', { headers: { endpoint: '/api/v1/jobs', method: 'GET' }, responseType: 'text', transformResponse: (x) => x })],
		] as const) {
			const r = await get();
			expect([client, r.status]).toEqual([client, 200]);
			expect(Buffer.byteLength(r.data)).toBeLessThanOrEqual(LIST_MAX_BYTES);
			const list = JSON.parse(r.data) as Array<{ id: string; log: string }>;
			expect(list.length).toBeGreaterThan(10);
			expect(list.length).toBeLessThan(100);
			expect(list.map((s) => s.id)).toEqual(ids.slice().reverse().slice(0, list.length));
		}
	});

	it('a reader that takes nothing gets only what its socket holds, other requests go on, and it is dropped after the request deadline', async () => {
		const full = Buffer.byteLength((await h.http.get('/api/v1/jobs', { responseType: 'text', transformResponse: (x) => x })).data);
		const slow = connect(h.server.port, '127.0.0.1');
		slow.pause();
		slow.on('error', () => undefined);
		slow.write('GET /api/v1/jobs HTTP/1.1\r\nHost: x\r\n\r\n');
		await new Promise((r) => setTimeout(r, 200));
		const small = await h.http.get(`/api/v1/jobs?filter=active`);
		expect(small.status).toBe(200);
		// Past the deadline the server gives up on it; what it had written so far is all the reader gets.
		await new Promise((r) => setTimeout(r, 1500));
		let received = 0;
		const ended = new Promise<void>((done) => {
			slow.on('close', () => done());
			slow.on('end', () => done());
		});
		slow.on('data', (chunk: Buffer) => (received += chunk.length));
		slow.resume();
		await ended;
		expect(received).toBeGreaterThan(0);
		expect(received).toBeLessThan(full);
		process.stdout.write(`slow reader: received ${received} of ${full} bytes before it was dropped\n`);
	});
});
