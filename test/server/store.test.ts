// The reference server's store: strict and lenient catalogs, retention of finished jobs, --data across restarts, the default catalog.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import axios from 'axios';

import { ManualClock, defaultCatalog, loadCatalogFile, loadDataFile, startReferenceServer, validateCatalog } from '../../server';
import { SALES, TEST_CATALOG, jobBody, startHarness, submit } from './helpers';

describe('strict mode', () => {
	it('refuses unknown flows with 400 naming the flow, accepts catalog flows', async () => {
		const h = await startHarness({ strict: true });
		try {
			const r = await h.http.post('/api/v1/jobs', jobBody({ flowFileName: '/Shared/Flows/ghost.flow' }));
			expect(r.status).toBe(400);
			expect(r.data.message).toContain('/Shared/Flows/ghost.flow');
			expect((await h.http.post('/api/v1/jobs', jobBody())).status).toBe(200);
			const nav = await h.http.get('/api/v1/flows', { params: { flowFileName: '/Shared/Flows/ghost.flow', runProfile: 'default' } });
			expect(nav.status).toBe(400);
		} finally {
			await h.server.close();
		}
	});

	it('accepts unknown flows with defaults when not strict (name from the file, stable flowId)', async () => {
		const h = await startHarness();
		try {
			const { jobId } = await submit(h, { flowFileName: '/Shared/Flows/Sub Dir/orders.v2.flow', runProfileName: 'anything' });
			const s = (await h.http.get(`/api/v1/jobs/${jobId}`)).data;
			expect(s.flowName).toBe('orders.v2');
			const a = h.server.store.all()[0];
			const { jobId: second } = await submit(h, { flowFileName: '/Shared/Flows/Sub Dir/orders.v2.flow', runProfileName: 'anything' });
			expect(h.server.store.all().find((j) => j.id === second)?.flowId).toBe(a.flowId);
			expect(a.steps).toBe(3);
		} finally {
			await h.server.close();
		}
	});
});

describe('retention', () => {
	it('evicts the oldest terminal jobs beyond maxJobs and keeps running ones', async () => {
		const h = await startHarness({ maxJobs: 5, concurrency: 10 });
		try {
			const done: string[] = [];
			for (let i = 0; i < 4; i++) done.push((await submit(h)).jobId);
			h.clock.advance(3000);
			const running: string[] = [];
			for (let i = 0; i < 4; i++) running.push((await submit(h)).jobId);
			// 8 jobs, limit 5: the 3 oldest terminal ones go.
			expect(h.server.store.count()).toBe(5);
			for (const id of done.slice(0, 3)) expect((await h.http.get(`/api/v1/jobs/${id}`)).status).toBe(400);
			expect((await h.http.get(`/api/v1/jobs/${done[3]}`)).status).toBe(200);
			// Only running jobs left beyond the limit: they are all kept.
			for (let i = 0; i < 3; i++) running.push((await submit(h)).jobId);
			expect(h.server.store.count()).toBe(7);
			expect((await h.http.get('/api/v1/jobs?filter=active')).data).toHaveLength(7);
		} finally {
			await h.server.close();
		}
	});

	it('keeps a running job at the front and evicts the terminal jobs after it, oldest first', async () => {
		const h = await startHarness({ maxJobs: 3, concurrency: 10 });
		const quick = { flowFileName: '/Shared/Flows/<b>&"x".flow' };
		try {
			const slow = (await submit(h)).jobId; // 3 s
			const early = [(await submit(h, quick)).jobId, (await submit(h, quick)).jobId]; // 100 ms
			h.clock.advance(500);
			const late = [(await submit(h, quick)).jobId, (await submit(h, quick)).jobId];
			expect(h.server.store.all().map((job) => job.id)).toEqual([slow, ...late]);
			for (const id of early) expect((await h.http.get(`/api/v1/jobs/${id}`)).status).toBe(400);
		} finally {
			await h.server.close();
		}
	});
});

describe('--data persistence', () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), 'jes-data-'));
	});
	afterEach(() => {
		rmSync(dir, { recursive: true, force: true });
	});

	it('keeps jobs across a restart, with their timeline', async () => {
		const dataFile = join(dir, 'jobs.json');
		const clock = new ManualClock();
		const first = await startReferenceServer({ port: 0, clock, catalog: TEST_CATALOG, dataFile, concurrency: 1 });
		const c1 = axios.create({ baseURL: first.url, validateStatus: () => true });
		const a = (await c1.post('/api/v1/jobs', jobBody({ parameters: [{ name: 'n', type: 'integer', value: '7' }] }))).data;
		const b = await c1.post('/api/v1/jobs', jobBody());
		expect(b.status).toBe(202);
		const bId = b.data.jobId;
		// The submit answered after the write: the file already holds both jobs.
		expect(loadDataFile(dataFile).map((j) => j.id)).toEqual([a.jobId, bId]);
		expect(readdirSync(dir).sort()).toEqual(['jobs.json', 'jobs.json.lock']);
		clock.advance(1500);
		const before = (await c1.get(`/api/v1/jobs/${a.jobId}`)).data;
		await first.close();
		expect(readdirSync(dir)).toEqual(['jobs.json']); // closing releases the lock

		const second = await startReferenceServer({ port: 0, clock, catalog: TEST_CATALOG, dataFile, concurrency: 1 });
		const c2 = axios.create({ baseURL: second.url, validateStatus: () => true });
		try {
			expect(second.store.count()).toBe(2);
			const after = (await c2.get(`/api/v1/jobs/${a.jobId}`)).data;
			expect(after).toEqual(before);
			clock.advance(3000);
			const bS = (await c2.get(`/api/v1/jobs/${bId}`)).data;
			expect(bS.executionStatus).toBe('RUNNING');
			expect(bS.startTime).toBe(before.startTime + 3000);
			const aS = (await c2.get(`/api/v1/jobs/${a.jobId}`)).data;
			expect(aS.log).toContain('  | n | integer | 7 |');
			// New jobs come after the restored ones: newest first.
			const c = (await c2.post('/api/v1/jobs', jobBody())).data;
			const list = (await c2.get('/api/v1/jobs')).data;
			expect(list.map((s: { id: string }) => s.id)).toEqual([c.jobId, bId, a.jobId]);
		} finally {
			await second.close();
		}
	});

	it('coalesces concurrent submissions into few writes (group commit)', async () => {
		const dataFile = join(dir, 'jobs.json');
		const server = await startReferenceServer({ port: 0, clock: new ManualClock(), catalog: TEST_CATALOG, dataFile });
		try {
			const answers = await Promise.all(Array.from({ length: 50 }, () => axios.post(`${server.url}/api/v1/jobs`, jobBody())));
			expect(new Set(answers.map((x) => x.data.jobId)).size).toBe(50);
			expect(server.dataFileWrites()).toBeLessThan(50);
			expect(loadDataFile(dataFile)).toHaveLength(50);
		} finally {
			await server.close();
		}
	});

	it('refuses to start on a corrupt data file with a clear error', async () => {
		const dataFile = join(dir, 'jobs.json');
		writeFileSync(dataFile, '{"version":1,"jobs":[{"id":');
		await expect(startReferenceServer({ port: 0, dataFile })).rejects.toThrow(/data file .*jobs\.json is corrupt/);
		writeFileSync(dataFile, JSON.stringify({ version: 1, jobs: [{ id: 'x' }] }));
		await expect(startReferenceServer({ port: 0, dataFile })).rejects.toThrow(/corrupt: jobs\[0\]\.flowFileName/);
	});
});

describe('catalog', () => {
	let dir: string;
	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), 'jes-cat-'));
	});
	afterAll(() => {
		rmSync(dir, { recursive: true, force: true });
	});

	it('ships a valid default catalog with COMPLETED, ERROR and CANCELLED flows', () => {
		const c = defaultCatalog();
		expect(c.flows.length).toBeGreaterThanOrEqual(4);
		const outcomes = c.flows.map((f) => f.outcome ?? 'COMPLETED');
		expect(outcomes).toEqual(expect.arrayContaining(['COMPLETED', 'ERROR', 'CANCELLED']));
	});

	it.each([
		[{}, /flows must be an array/],
		[{ flows: [{}] }, /flows\[0\]\.flowFileName/],
		[{ flows: [{ flowFileName: 'a', flowId: 'nope' }] }, /flows\[0\]\.flowId must be a UUID/],
		[{ flows: [{ flowFileName: 'a', steps: 0 }] }, /flows\[0\]\.steps/],
		[{ flows: [{ flowFileName: 'a', stepMs: 1.5 }] }, /flows\[0\]\.stepMs/],
		[{ flows: [{ flowFileName: 'a', outcome: 'FAILED' }] }, /flows\[0\]\.outcome/],
		[{ flows: [{ flowFileName: 'a', runProfiles: [] }] }, /flows\[0\]\.runProfiles/],
		[{ flows: [{ flowFileName: 'a' }, { flowFileName: 'a' }] }, /flows\[1\]\.flowFileName duplicates/],
	])('%j → refused with %s', (catalog, re) => {
		expect(() => validateCatalog(catalog)).toThrow(re);
	});

	it('loads a catalog file and reports a bad one at start', async () => {
		const good = join(dir, 'good.json');
		writeFileSync(good, JSON.stringify({ flows: [{ flowFileName: '/x/y.flow', steps: 1, stepMs: 10 }] }));
		expect(loadCatalogFile(good).flows[0].flowFileName).toBe('/x/y.flow');
		const server = await startReferenceServer({ port: 0, catalog: good, strict: true, clock: new ManualClock() });
		try {
			const r = await axios.post(`${server.url}/api/v1/jobs`, { flowFileName: SALES, runProfileName: 'default' }, { validateStatus: () => true });
			expect(r.status).toBe(400);
		} finally {
			await server.close();
		}
		const bad = join(dir, 'bad.json');
		writeFileSync(bad, '{ nope');
		await expect(startReferenceServer({ port: 0, catalog: bad })).rejects.toThrow(/not valid JSON/);
	});
});
