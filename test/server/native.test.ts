// The native REST API of the reference server against the spec: the job lifecycle field by field, the status filter's forms, job lists.
import { Readable } from 'stream';

import {
	BROKEN,
	ELAPSED_TEXT,
	FIELD_ORDER,
	MS_13,
	RUNTIME_TEXT,
	SALES,
	STEP_DONE,
	STEP_ID,
	STEP_RUNNING,
	STOPPED,
	TIMESTAMP_TEXT,
	UUID_V4,
	jobBody,
	startHarness,
	submit,
} from './helpers';
import type { Harness } from './helpers';

describe('native API: job status and lifecycle', () => {
	let h: Harness;
	beforeEach(async () => {
		h = await startHarness({ concurrency: 2 });
	});
	afterEach(async () => {
		await h.server.close();
	});

	it('answers 200 with a v4 UUID when the job starts at once', async () => {
		const r = await h.http.post('/api/v1/jobs', jobBody());
		expect(r.status).toBe(200);
		expect(Object.keys(r.data)).toEqual(['jobId']);
		expect(r.data.jobId).toMatch(UUID_V4);
		expect(r.headers['content-type']).toMatch(/^application\/json/);
	});

	it('returns all 20 fields in the spec order with the RUNNING combination', async () => {
		const { jobId } = await submit(h);
		h.clock.advance(1500);
		const r = await h.http.get(`/api/v1/jobs/${jobId}`);
		expect(r.status).toBe(200);
		const s = r.data;
		expect(Object.keys(s)).toEqual(FIELD_ORDER);
		expect(s.id).toBe(jobId);
		expect(s.jobType).toBe('RUNPROFILE');
		expect(s.flowName).toBe('sales');
		expect(s.runProfileName).toBe('default');
		expect(s.jobName).toBe('sales_default');
		expect(s.runProfile).toBe('sales_default');
		expect(String(s.startTime)).toMatch(MS_13);
		expect(s.startTime).toBe(h.clock.now() - 1500);
		// The spec's RUNNING row.
		expect(s.executionStatus).toBe('RUNNING');
		expect(s.endTime).toBeNull();
		expect(s.log).toBeNull();
		expect(s.currentStepStatus).toBe('RUNNING');
		expect(s.runtimeFormatted).toBe('');
		expect(s.endTimeFormatted).toBe('');
		expect(s.executionPerformanceReport).toBeNull();
		expect(s.error).toBeNull();
		expect(s.currentStepId).toMatch(STEP_ID);
		expect(s.currentStepId).toBe('Step 2');
		expect(s.currentStepDescription).toMatch(STEP_RUNNING);
		expect(s.currentStepDescription).toBe('Step 2 (1 of 3 completed)');
		expect(s.currentStepStartTime).toBe(s.startTime + 1000);
		expect(s.startTimeFormatted).toMatch(TIMESTAMP_TEXT);
		expect(s.startTimeFormatted).toBe('2026-11-21 10:15:00.000');
		expect(s.currentStepElapsedTime).toMatch(ELAPSED_TEXT);
		expect(s.currentStepElapsedTime).toBe('0:00:00');
	});

	it('walks the steps and ends with the COMPLETED combination', async () => {
		const { jobId } = await submit(h);
		const seen: string[] = [];
		for (let t = 0; t < 3; t++) {
			const s = (await h.http.get(`/api/v1/jobs/${jobId}`)).data;
			seen.push(s.currentStepDescription);
			h.clock.advance(1000);
		}
		expect(seen).toEqual(['Step 1 (0 of 3 completed)', 'Step 2 (1 of 3 completed)', 'Step 3 (2 of 3 completed)']);
		const s = (await h.http.get(`/api/v1/jobs/${jobId}`)).data;
		expect(Object.keys(s)).toEqual(FIELD_ORDER);
		// The spec's COMPLETED row.
		expect(s.executionStatus).toBe('COMPLETED');
		expect(Number.isInteger(s.endTime)).toBe(true);
		expect(String(s.endTime)).toMatch(MS_13);
		expect(s.endTime).toBe(s.startTime + 3000);
		expect(typeof s.log).toBe('string');
		expect(s.log.length).toBeGreaterThan(0);
		expect(s.currentStepStatus).toBe('COMPLETED');
		expect(s.runtimeFormatted).toMatch(RUNTIME_TEXT);
		expect(s.runtimeFormatted).toBe('3.000 seconds');
		expect(s.endTimeFormatted).toMatch(TIMESTAMP_TEXT);
		expect(s.endTimeFormatted).toBe('2026-11-21 10:15:03.000');
		expect(s.currentStepId).toBe('Step 3');
		expect(s.currentStepDescription).toMatch(STEP_DONE);
		expect(s.currentStepDescription).toBe('Step 3 (3)');
		expect(s.currentStepStartTime).toBe(s.startTime + 2000);
		expect(s.currentStepElapsedTime).toBe('N/A');
	});

	it('shows H:MM:SS elapsed time of a long step', async () => {
		const { jobId } = await submit(h, { flowFileName: '/Shared/Flows/long.flow' });
		// Unknown flow: defaults (3 steps of the server's stepMs, 1000 ms); make the clock cross a step.
		h.clock.advance(1999);
		const s = (await h.http.get(`/api/v1/jobs/${jobId}`)).data;
		expect(s.flowName).toBe('long');
		expect(s.currentStepElapsedTime).toBe('0:00:00');
		expect(s.currentStepDescription).toBe('Step 2 (1 of 3 completed)');
		const h2 = await startHarness({ stepMs: 4_000_000 });
		try {
			const { jobId: id2 } = await submit(h2, { flowFileName: '/Shared/Flows/slow.flow' });
			h2.clock.advance(3_723_000);
			const s2 = (await h2.http.get(`/api/v1/jobs/${id2}`)).data;
			expect(s2.currentStepElapsedTime).toBe('1:02:03');
		} finally {
			await h2.server.close();
		}
	});

	it('keeps jobs QUEUED beyond the concurrency limit (202) and starts them when a slot frees', async () => {
		const a = await submit(h);
		h.clock.advance(500);
		const b = await submit(h);
		const c = await submit(h);
		expect([a.status, b.status, c.status]).toEqual([200, 200, 202]);
		const q = (await h.http.get(`/api/v1/jobs/${c.jobId}`)).data;
		expect(Object.keys(q)).toEqual(FIELD_ORDER);
		expect(q.executionStatus).toBe('QUEUED');
		expect(q.startTime).toBeNull();
		expect(q.endTime).toBeNull();
		expect(q.log).toBeNull();
		expect(q.currentStepId).toBe('Step 1');
		expect(q.currentStepDescription).toBe('Step 1 (0 of 3 completed)');
		expect(q.currentStepStartTime).toBeNull();
		expect(q.currentStepStatus).toBe('RUNNING');
		expect(q.runtimeFormatted).toBe('');
		expect(q.startTimeFormatted).toBe('');
		expect(q.endTimeFormatted).toBe('');
		expect(q.currentStepElapsedTime).toBe('0:00:00');
		// a ends at +3000 (submitted at 0): c starts exactly then, even if nobody asked at that moment.
		h.clock.advance(4000);
		const aS = (await h.http.get(`/api/v1/jobs/${a.jobId}`)).data;
		const cS = (await h.http.get(`/api/v1/jobs/${c.jobId}`)).data;
		expect(aS.executionStatus).toBe('COMPLETED');
		expect(cS.executionStatus).toBe('RUNNING');
		expect(cS.startTime).toBe(aS.endTime);
		expect(cS.currentStepDescription).toBe('Step 2 (1 of 3 completed)');
		expect(cS.currentStepElapsedTime).toBe('0:00:00');
	});

	it('ends ERROR jobs in their last step, after passing through RUNNING', async () => {
		const { jobId } = await submit(h, { flowFileName: BROKEN });
		h.clock.advance(600);
		const running = (await h.http.get(`/api/v1/jobs/${jobId}`)).data;
		expect(running.executionStatus).toBe('RUNNING');
		expect(running.currentStepDescription).toBe('Step 2 (1 of 2 completed)');
		h.clock.advance(400);
		const s = (await h.http.get(`/api/v1/jobs/${jobId}`)).data;
		expect(s.executionStatus).toBe('ERROR');
		expect(s.endTime).toBe(s.startTime + 1000);
		expect(s.currentStepDescription).toBe('Step 2 (2)');
		expect(s.currentStepStatus).toBe('COMPLETED');
		expect(s.runtimeFormatted).toBe('1.000 seconds');
		expect(s.log).toMatch(/\[worker-1\] INFO Step 2 failed: .*disk full/);
		expect(s.log).toMatch(/finished with status ERROR in 1\.000 seconds$/);
		expect(s.error).toBeNull();
	});

	it('ends CANCELLED jobs in their last step', async () => {
		const { jobId } = await submit(h, { flowFileName: STOPPED, runProfileName: 'any-profile' });
		h.clock.advance(999);
		expect((await h.http.get(`/api/v1/jobs/${jobId}`)).data.executionStatus).toBe('RUNNING');
		h.clock.advance(1);
		const s = (await h.http.get(`/api/v1/jobs/${jobId}`)).data;
		expect(s.executionStatus).toBe('CANCELLED');
		expect(s.currentStepDescription).toBe('Step 4 (4)');
		expect(s.log).toMatch(/\[main\] INFO Step 4 cancelled: /);
	});

	it('answers the executionStatus filter as a JSON string by default', async () => {
		const { jobId } = await submit(h);
		const r = await h.http.get(`/api/v1/jobs/${jobId}?filter=executionStatus`, { transformResponse: (x) => x });
		expect(r.status).toBe(200);
		expect(r.headers['content-type']).toMatch(/^application\/json/);
		expect(r.data).toBe('"RUNNING"');
		h.clock.advance(3000);
		const done = await h.http.get(`/api/v1/jobs/${jobId}?filter=executionStatus`);
		expect(done.data).toBe('COMPLETED');
	});

	it('rejects unknown job ids and unknown status filters with 400 {message}', async () => {
		const { jobId } = await submit(h);
		const unknown = await h.http.get('/api/v1/jobs/00000000-0000-4000-8000-000000000000');
		expect(unknown.status).toBe(400);
		expect(unknown.data.message).toMatch(/unknown job id/);
		const badFilter = await h.http.get(`/api/v1/jobs/${jobId}?filter=status`);
		expect(badFilter.status).toBe(400);
		expect(badFilter.data.message).toMatch(/filter/);
		const twice = await h.http.get(`/api/v1/jobs/${jobId}?filter=executionStatus&filter=executionStatus`);
		expect(twice.status).toBe(400);
		expect((await h.http.get(`/api/v1/jobs/${jobId}`)).status).toBe(200);
	});
});

describe('native API: status filter forms', () => {
	it.each([
		['bareText' as const, 'RUNNING', /^text\/plain/],
		['object' as const, '{"executionStatus":"RUNNING"}', /^application\/json/],
		['jsonString' as const, '"RUNNING"', /^application\/json/],
	])('status filter form %s → body %s', async (form, body, type) => {
		const h = await startHarness({ statusFilterForm: form });
		try {
			const { jobId } = await submit(h);
			const r = await h.http.get(`/api/v1/jobs/${jobId}?filter=executionStatus`, { transformResponse: (x) => x });
			expect(r.status).toBe(200);
			expect(r.data).toBe(body);
			expect(r.headers['content-type']).toMatch(type);
		} finally {
			await h.server.close();
		}
	});
});

describe('native API: job lists', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness({ concurrency: 3 });
	});
	afterAll(async () => {
		await h.server.close();
	});

	it('lists at most 100 jobs, newest submission first, and filters active and history', async () => {
		const ids: string[] = [];
		// 105 jobs, one per ms: the 3 newest run or wait, the older ones finished long ago.
		for (let i = 0; i < 105; i++) {
			ids.push((await submit(h)).jobId);
			if (i < 101) h.clock.advance(3000);
		}
		const all = await h.http.get('/api/v1/jobs');
		expect(all.status).toBe(200);
		expect(Array.isArray(all.data)).toBe(true);
		expect(all.data).toHaveLength(100);
		expect(all.data.map((s: { id: string }) => s.id)).toEqual(ids.slice(5).reverse());
		expect(Object.keys(all.data[0])).toEqual(FIELD_ORDER);

		const active = (await h.http.get('/api/v1/jobs?filter=active')).data as Array<{ id: string; executionStatus: string }>;
		expect(active.map((s) => s.executionStatus).sort()).toEqual(['QUEUED', 'RUNNING', 'RUNNING', 'RUNNING']);
		expect(active.map((s) => s.id)).toEqual(ids.slice(101).reverse());

		const history = (await h.http.get('/api/v1/jobs?filter=history')).data as Array<{ id: string; executionStatus: string }>;
		expect(history).toHaveLength(100);
		expect(history.every((s) => s.executionStatus === 'COMPLETED')).toBe(true);
		expect(history[0].id).toBe(ids[100]);

		const bad = await h.http.get('/api/v1/jobs?filter=running');
		expect(bad.status).toBe(400);
		expect(bad.data.message).toMatch(/unknown filter/);
	});
});

describe('native API: navigation page', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness();
	});
	afterAll(async () => {
		await h.server.close();
	});

	it('answers a small HTML page naming flow, profile and node, escaped', async () => {
		const r = await h.http.get('/api/v1/flows', { params: { flowFileName: '/Shared/Flows/<b>&"x".flow', runProfile: "night'ly<i>", nodeId: 'node_12' } });
		expect(r.status).toBe(200);
		expect(r.headers['content-type']).toMatch(/^text\/html/);
		expect(r.data).toContain('/Shared/Flows/&lt;b&gt;&amp;&quot;x&quot;.flow');
		expect(r.data).toContain('night&#39;ly&lt;i&gt;');
		expect(r.data).toContain('node_12');
		expect(r.data).not.toContain('<b>');
		expect(r.data).not.toContain('<i>');
		const noNode = await h.http.get('/api/v1/flows', { params: { flowFileName: SALES, runProfile: 'default' } });
		expect(noNode.status).toBe(200);
		expect(noNode.data).toContain('Flow sales');
		expect(noNode.data).toContain('no node selected');
	});

	it('refuses missing flowFileName or runProfile and a bad nodeId with 400', async () => {
		for (const params of [
			{ runProfile: 'default' },
			{ flowFileName: SALES },
			{ flowFileName: SALES, runProfile: 'default', nodeId: 'node_x' },
			{ flowFileName: SALES, runProfile: 'default', nodeId: '12' },
			{ flowFileName: SALES, runProfile: 'default', nodeId: 'node_1<script>' },
		]) {
			const r = await h.http.get('/api/v1/flows', { params });
			expect(r.status).toBe(400);
			expect(typeof r.data.message).toBe('string');
		}
	});
});

describe('native API: bad input', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness();
	});
	afterAll(async () => {
		await h.server.close();
	});

	const cases: Array<[string, unknown, RegExp]> = [
		['body not an object', [1, 2], /object/],
		['JSON null', null, /object/],
		['missing flowFileName', { runProfileName: 'default' }, /flowFileName/],
		['empty flowFileName', { flowFileName: '', runProfileName: 'default' }, /flowFileName/],
		['flowFileName not a string', { flowFileName: 7, runProfileName: 'default' }, /flowFileName/],
		['missing runProfileName', { flowFileName: SALES }, /runProfileName/],
		['empty runProfileName', { flowFileName: SALES, runProfileName: '' }, /runProfileName/],
		['run profile not allowed by the catalog', { flowFileName: SALES, runProfileName: 'weekly' }, /runProfileName.*weekly/],
		['notificationEnabled not boolean', jobBody({ notificationEnabled: 'yes' }), /notificationEnabled/],
		['parameters not an array', jobBody({ parameters: { a: 1 } }), /parameters/],
		['parameter without name', jobBody({ parameters: [{ type: 'string', value: 'x' }] }), /parameters\[0\]\.name/],
		['parameter with empty name', jobBody({ parameters: [{ name: '', type: 'string', value: 'x' }] }), /parameters\[0\]\.name/],
		['duplicate parameter', jobBody({ parameters: [{ name: 'a', type: 'string', value: 'x' }, { name: 'a', type: 'string', value: 'y' }] }), /duplicate.*"a"/],
		['upper-case type', jobBody({ parameters: [{ name: 'a', type: 'STRING', value: 'x' }] }), /type/],
		['unsupported type', jobBody({ parameters: [{ name: 'a', type: 'boolean', value: 'true' }] }), /type/],
		...['4.2', 'abc', '', '1e3'].map((v): [string, unknown, RegExp] => [`integer ${JSON.stringify(v)}`, jobBody({ parameters: [{ name: 'n', type: 'integer', value: v }] }), /integer/]),
		['integer 4.5 number', jobBody({ parameters: [{ name: 'n', type: 'integer', value: 4.5 }] }), /integer/],
		...['abc', '', 'NaN', 'Infinity', '1.2.3'].map((v): [string, unknown, RegExp] => [`float ${JSON.stringify(v)}`, jobBody({ parameters: [{ name: 'f', type: 'float', value: v }] }), /float/]),
		['missing value', jobBody({ parameters: [{ name: 'a', type: 'string' }] }), /value/],
	];

	it.each(cases.map(([name, body, re]): [string, RegExp, unknown] => [name, re, body]))('%s → 400 whose message matches %s', async (_name, re, body) => {
		const r = await h.http.post('/api/v1/jobs', body, { headers: { 'content-type': 'application/json' } });
		expect(r.status).toBe(400);
		expect(Object.keys(r.data)).toEqual(['message']);
		expect(r.data.message).toMatch(re);
		// The server still answers.
		expect((await h.http.get('/api/v1/jobs')).status).toBe(200);
	});

	it('400 for malformed JSON and an empty body', async () => {
		for (const raw of ['{"flowFileName": ', 'not json', '']) {
			const r = await h.http.post('/api/v1/jobs', raw, { headers: { 'content-type': 'application/json' }, transformRequest: (x) => x });
			expect(r.status).toBe(400);
			expect(r.data.message).toMatch(/JSON/);
		}
	});

	it('accepts good integers and floats and keeps the values as strings', async () => {
		const parameters = [
			{ name: 'i1', type: 'integer', value: 42 },
			{ name: 'i2', type: 'integer', value: '-7' },
			{ name: 'f1', type: 'float', value: 3.5 },
			{ name: 'f2', type: 'float', value: '1e3' },
			{ name: 'f3', type: 'float', value: '-0.25' },
			{ name: 's', type: 'string', value: 'EMEA' },
		];
		const r = await h.http.post('/api/v1/jobs', jobBody({ parameters }));
		expect(r.status).toBe(200);
		const stored = h.server.store.all().find((j) => j.id === r.data.jobId);
		expect(stored?.parameters.map((p) => p.value)).toEqual(['42', '-7', '3.5', '1e3', '-0.25', 'EMEA']);
	});

	it('413 for a body over 1 MiB, then keeps answering', async () => {
		const huge = JSON.stringify(jobBody({ parameters: [{ name: 'x', type: 'string', value: 'y'.repeat(1024 * 1024) }] }));
		const r = await h.http.post('/api/v1/jobs', huge, { headers: { 'content-type': 'application/json' } });
		expect(r.status).toBe(413);
		expect(r.data.message).toMatch(/1 MiB/);
		expect((await h.http.get('/api/v1/jobs')).status).toBe(200);
		expect((await h.http.post('/api/v1/jobs', jobBody())).status).toBe(200);
	});

	it('413 for a chunked body (no content-length) that grows over 1 MiB', async () => {
		const chunks = [Buffer.alloc(600_000, 0x20), Buffer.alloc(600_000, 0x20)];
		const r = await h.http.post('/api/v1/jobs', Readable.from(chunks), { headers: { 'content-type': 'application/json' } });
		expect(r.status).toBe(413);
		expect((await h.http.get('/api/v1/jobs')).status).toBe(200);
	});

	it('404 for unknown paths and 405 for wrong methods', async () => {
		const r404 = await h.http.get('/api/v1/nothing');
		expect(r404.status).toBe(404);
		expect(typeof r404.data.message).toBe('string');
		expect((await h.http.get('/')).status).toBe(404);
		expect((await h.http.get('/api/v1/jobs/a/b')).status).toBe(404);
		const r405 = await h.http.delete('/api/v1/jobs');
		expect(r405.status).toBe(405);
		expect(r405.headers.allow).toBe('GET, POST');
		expect((await h.http.post('/api/v1/flows', {})).status).toBe(405);
	});

	it('gives 120 concurrent submissions 120 distinct ids', async () => {
		const results = await Promise.all(Array.from({ length: 120 }, () => h.http.post('/api/v1/jobs', jobBody())));
		expect(results.every((r) => r.status === 200 || r.status === 202)).toBe(true);
		const ids = new Set(results.map((r) => r.data.jobId));
		expect(ids.size).toBe(120);
		for (const id of ids) expect(id).toMatch(UUID_V4);
	});

	it('counts requests by route', async () => {
		const before = h.server.stats.requests;
		await h.http.get('/api/v1/jobs');
		await h.http.get('/nowhere');
		expect(h.server.stats.requests).toBe(before + 2);
		expect(h.server.stats.byRoute['GET /api/v1/jobs']).toBeGreaterThan(0);
		expect(h.server.stats.byRoute.other).toBeGreaterThan(0);
	});
});

describe('native API: optional authentication', () => {
	it.each([
		[{ type: 'bearer' as const, token: 's3cret-token' }, { Authorization: 'Bearer s3cret-token' }, { Authorization: 'Bearer wrong' }],
		[{ type: 'basic' as const, user: 'ann', password: 'pw:x' }, { Authorization: `Basic ${Buffer.from('ann:pw:x').toString('base64')}` }, { Authorization: `Basic ${Buffer.from('ann:nope').toString('base64')}` }],
		[{ type: 'header' as const, name: 'X-Api-Key', value: 'k-123' }, { 'x-api-key': 'k-123' }, { 'x-api-key': 'k-124' }],
	])('native auth %j → 401 without or with wrong credentials, 200 with the right ones', async (nativeAuth, good, bad) => {
		const h = await startHarness({ nativeAuth });
		try {
			const missing = await h.http.get('/api/v1/jobs');
			expect(missing.status).toBe(401);
			expect(JSON.stringify(missing.data)).not.toMatch(/s3cret|pw:x|k-123/);
			expect((await h.http.get('/api/v1/jobs', { headers: bad })).status).toBe(401);
			expect((await h.http.get('/api/v1/jobs', { headers: good })).status).toBe(200);
			expect((await h.http.post('/api/v1/jobs', jobBody(), { headers: good })).status).toBe(200);
			// The relay has its own keys; native auth does not apply to it.
			const relayed = await h.relay.get('/call/status', { headers: { endpoint: '/api/v1/jobs', method: 'GET' } });
			expect(relayed.status).toBe(200);
			// The navigation page opens in a browser, which sends no credentials.
			expect((await h.http.get('/api/v1/flows', { params: { flowFileName: SALES, runProfile: 'default' } })).status).toBe(200);
		} finally {
			await h.server.close();
		}
	});
});
