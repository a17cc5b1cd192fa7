// The --data file as a journal: a write appends only its change, an unfinished last record (kill -9) is ignored
// and cut, the older one-object format is read and rewritten, compaction keeps exactly the kept jobs, and the
// stored bytes are bounded with a clear refusal.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { JOURNAL_HEADER, journalFs, LogCache, loadDataFile, readDataFile, recordBytes } from '../../server';
import type { StoredJob } from '../../server';
import { jobBody, startHarness, submit } from './helpers';
import type { Harness } from './helpers';

const LONG = { flowFileName: '/Shared/Flows/sales.flow' }; // 3 steps of 1 s
const QUICK = { flowFileName: '/Shared/Flows/<b>&"x".flow' }; // 1 step of 100 ms
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter((line) => line !== '');

describe('the data file as a journal', () => {
	let dir: string;
	let dataFile: string;
	const open: Harness[] = [];
	const start = async (options: Parameters<typeof startHarness>[0] = {}) => {
		const h = await startHarness({ dataFile, concurrency: 100, ...options });
		open.push(h);
		return h;
	};
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), 'jes-journal-'));
		dataFile = join(dir, 'jobs.json');
	});
	afterEach(async () => {
		for (const h of open.splice(0)) await h.server.close();
		rmSync(dir, { recursive: true, force: true });
	});

	it('a submission appends its own record only, whatever the store holds', async () => {
		const h = await start();
		for (let i = 0; i < 50; i++) await submit(h, { parameters: [{ name: 'big', type: 'string', value: 'x'.repeat(4000) }] });
		const before = statSync(dataFile).size;
		const { jobId } = await submit(h, { parameters: [{ name: 'n', type: 'integer', value: '1' }] });
		const appended = readFileSync(dataFile, 'utf8').slice(before);
		expect(appended).toBe(`{"job":${JSON.stringify(h.server.store.all().find((job) => job.id === jobId))}}\n`);
		expect(Buffer.byteLength(appended)).toBe(recordBytes(appended.slice(7, -2)));
		expect(lines(dataFile)[0]).toBe(JOURNAL_HEADER);
	});

	it('a queued job that starts is journaled with its start time; a restart sees the same timeline', async () => {
		const h = await start({ concurrency: 1 });
		const first = await submit(h, LONG);
		const second = await submit(h, LONG);
		expect(second.status).toBe(202);
		h.clock.advance(3000); // the first ends, the second starts
		const third = await submit(h, QUICK); // its write carries the second's start
		expect(lines(dataFile).slice(-2)).toEqual([expect.stringContaining(third.jobId), `{"start":"${second.jobId}","at":${h.clock.now()}}`]);
		const statuses = await Promise.all([first, second, third].map(async ({ jobId }) => (await h.http.get(`/api/v1/jobs/${jobId}`)).data));
		await h.server.close();
		open.pop();
		const again = await startHarness({ dataFile, concurrency: 1, clock: h.clock });
		open.push(again);
		for (const status of statuses) expect((await again.http.get(`/api/v1/jobs/${status.id}`)).data).toEqual(status);
	});

	it('an unfinished last record (kill -9 mid-write) is ignored and cut; the file then takes new records', async () => {
		const h = await start();
		const a = await submit(h);
		const b = await submit(h);
		await h.server.close();
		open.pop();
		const whole = statSync(dataFile).size;
		const torn = '{"job":{"id":"0b7c3d5e-1f2a-4a6b-9c8d-e4f5a6b7c8d9","seq":3,"flowFi';
		appendFileSync(dataFile, torn);
		const again = await start();
		expect(again.server.tornBytesIgnored).toBe(torn.length);
		expect(statSync(dataFile).size).toBe(whole);
		expect(again.server.store.all().map((job) => job.id)).toEqual([a.jobId, b.jobId]);
		const c = await submit(again);
		expect(loadDataFile(dataFile).map((job) => job.id)).toEqual([a.jobId, b.jobId, c.jobId]);
	});

	it('a failed write whose remains could not be cut is cut before the next write', async () => {
		const h = await start();
		const first = await submit(h);
		const realWrite = journalFs.write;
		jest.spyOn(journalFs, 'write').mockImplementationOnce(async (fd, buf, at) => {
			await realWrite(fd, Buffer.concat([buf, buf, buf]), at); // three lines where one was asked
			throw Object.assign(new Error('EIO'), { code: 'EIO' });
		});
		jest.spyOn(journalFs, 'truncate').mockRejectedValueOnce(Object.assign(new Error('EIO'), { code: 'EIO' }));
		try {
			const refused = await h.http.post('/api/v1/jobs', jobBody());
			expect([refused.status, refused.data.message]).toEqual([400, 'could not save the job (EIO); it was not accepted']);
			const second = await submit(h, QUICK);
			expect(loadDataFile(dataFile).map((job) => job.id)).toEqual([first.jobId, second.jobId]);
		} finally {
			jest.restoreAllMocks();
		}
	});

	it('a record that cannot be read before the last one is a startup error naming the line', async () => {
		const h = await start();
		await submit(h);
		await h.server.close();
		open.pop();
		const text = readFileSync(dataFile, 'utf8').split('\n');
		writeFileSync(dataFile, [text[0], '{"job":{"id":1}}', text[1], ''].join('\n'));
		await expect(startHarness({ dataFile })).rejects.toThrow(/data file .*jobs\.json is corrupt: line 2\.job\.id must be a non-empty string/);
		writeFileSync(dataFile, [text[0], '{"job":', text[1], ''].join('\n'));
		await expect(startHarness({ dataFile })).rejects.toThrow(/corrupt: line 2: /);
	});

	it('a data file in the format before the journal is read, then rewritten as a journal', async () => {
		const job = (seq: number, startTime: number | null) => ({
			id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`, seq, submittedAt: 1000, flowFileName: '/Shared/Flows/sales.flow',
			flowId: '3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10', flowName: 'sales', runProfileName: 'default', notificationEnabled: false,
			parameters: [{ name: 'n', type: 'integer', value: String(seq) }], steps: 3, stepMs: 1000, outcome: 'COMPLETED', startTime,
		});
		writeFileSync(dataFile, JSON.stringify({ version: 1, jobs: [job(1, 1000), job(2, null)] }));
		expect(readDataFile(dataFile).format).toBe('snapshot');
		const h = await start({ concurrency: 1 });
		// The first ran from 1000 to 4000; with one slot the second started then.
		expect(h.server.store.all().map((j) => [j.seq, j.startTime])).toEqual([[1, 1000], [2, 4000]]);
		expect(readDataFile(dataFile).format).toBe('journal');
		expect(lines(dataFile)).toHaveLength(3);
		await submit(h);
		expect(loadDataFile(dataFile).map((j) => [j.seq, j.startTime])).toEqual([[1, 1000], [2, 4000], [3, h.clock.now()]]);
	});

	it('compaction keeps exactly the kept jobs, and the file stays within twice their records plus the slack', async () => {
		const slack = 4096;
		const h = await start({ maxJobs: 5, compactSlackBytes: slack });
		let maxSize = 0;
		for (let i = 0; i < 120; i++) {
			// Bursts of four: appends go on while a compaction is being written.
			await Promise.all(Array.from({ length: 4 }, () => submit(h, QUICK)));
			maxSize = Math.max(maxSize, statSync(dataFile).size);
			// The next burst waits for a compaction begun in this one: how many bursts come during one is the machine's
			// speed, not the journal's rule (a loaded machine let a fourth in).
			while (h.server.dataFileStats()?.compacting === true) await new Promise((resolve) => setTimeout(resolve, 1));
			h.clock.advance(200);
		}
		const stats = h.server.dataFileStats()!;
		expect(stats.compactions).toBeGreaterThan(5);
		const record = recordBytes(JSON.stringify(h.server.store.all()[0]));
		// At most 9 jobs are kept (5 finished, 4 running); the file grows past twice their records by the slack and
		// by what is appended while a compaction is written (here the rest of its burst of four).
		expect(maxSize).toBeLessThan(2 * 9 * record + slack + 4 * (record + 60));
		const kept = h.server.store.all().map((job) => job.id);
		expect(kept).toHaveLength(5);
		await h.server.close();
		open.pop();
		expect(loadDataFile(dataFile).map((job) => job.id)).toEqual(kept);
	});
});

describe('the bound on stored bytes', () => {
	const value = 'v'.repeat(2000);
	const body = (flow: Record<string, unknown>) => jobBody({ ...flow, parameters: [{ name: 'p', type: 'string', value }] });

	it('forgets the oldest finished jobs past it, and refuses with 503 naming it when only active jobs are kept', async () => {
		const h = await startHarness({ maxStoredBytes: 10_000, concurrency: 100 });
		try {
			const first = await submit(h, { ...QUICK, parameters: [{ name: 'p', type: 'string', value }] });
			h.clock.advance(200); // finished
			const kept: string[] = [];
			for (let i = 0; i < 4; i++) kept.push((await h.http.post('/api/v1/jobs', body(LONG))).data.jobId);
			// Four running jobs and the finished one do not fit: the finished one is forgotten.
			expect(h.server.store.bytesStored()).toBeLessThanOrEqual(10_000);
			expect((await h.http.get(`/api/v1/jobs/${first.jobId}`)).status).toBe(400);
			const refused = await h.http.post('/api/v1/jobs', body(LONG));
			expect(refused.status).toBe(503);
			expect(refused.headers['retry-after']).toBe('1');
			const [, taken, size] = /^the store is full: waiting and running jobs take (\d+) bytes, this job (\d+), at most 10000 are stored \(--max-stored-bytes\); try again later$/
				.exec(refused.data.message)!
				.map(Number);
			expect([taken, taken + size > 10_000]).toEqual([4 * size, true]);
			expect(h.server.store.all().map((job) => job.id)).toEqual(kept);
			h.clock.advance(3000); // they finish: room again
			expect((await h.http.post('/api/v1/jobs', body(LONG))).status).toBe(200);
		} finally {
			await h.server.close();
		}
	});
});

describe('logs of jobs with large parameters', () => {
	it('are kept in a cache bounded in characters, most recently read last', () => {
		const job = (id: string) => ({ id }) as StoredJob;
		const [a, b, c] = [job('a'), job('b'), job('c')];
		const cache = new LogCache(100);
		cache.set(a, 'a'.repeat(40));
		cache.set(b, 'b'.repeat(40));
		expect(cache.get(a)).toBe('a'.repeat(40)); // a is now the most recent
		cache.set(c, 'c'.repeat(40));
		expect([cache.get(a)?.length, cache.get(b), cache.get(c)?.length]).toEqual([40, undefined, 40]);
		cache.set(b, 'b'.repeat(101)); // longer than the whole cache: not kept
		expect(cache.get(b)).toBeUndefined();
	});
});
