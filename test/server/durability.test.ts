// With --data a job is shown to readers only once it is on disk: a submission whose write fails (disk full)
// leaves no trace any reader could have seen. Proven in-process with an injected write failure, and as a real
// process on a full tmpfs (when this machine lets the test mount one).
import { spawnSync } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'fs';
import { Agent } from 'http';
import { tmpdir } from 'os';
import { join } from 'path';

import axios from 'axios';

import { journalFs, loadDataFile } from '../../server';
import { jobBody, startHarness } from './helpers';
import type { Harness } from './helpers';
import { compiledMainExists, startCli } from './process';

const idsIn = (list: Array<{ id: string }>) => list.map((s) => s.id);

describe('a job is visible only once saved (injected write failure)', () => {
	let dir: string;
	let h: Harness;
	let release: (fail: boolean) => void;
	let writeStarted: Promise<void>;
	beforeEach(async () => {
		dir = mkdtempSync(join(tmpdir(), 'jes-durable-'));
		h = await startHarness({ dataFile: join(dir, 'jobs.json') });
		const realWrite = journalFs.write;
		let started: () => void;
		writeStarted = new Promise((r) => (started = r));
		// The next append writes part of its record, waits for the test, then fails as a full disk does (the
		// message names the path) or goes on.
		jest.spyOn(journalFs, 'write').mockImplementationOnce(async (fd, buf, at) => {
			await realWrite(fd, buf.subarray(0, 10), at);
			started();
			const fail = await new Promise<boolean>((r) => (release = r));
			if (!fail) return realWrite(fd, buf, at);
			throw Object.assign(new Error(`ENOSPC: no space left on device, write '${join(dir, 'jobs.json')}'`), { code: 'ENOSPC' });
		});
	});
	afterEach(async () => {
		jest.restoreAllMocks();
		await h.server.close();
		rmSync(dir, { recursive: true, force: true });
	});

	const everyView = async (id: string) => ({
		all: idsIn((await h.http.get('/api/v1/jobs')).data),
		active: idsIn((await h.http.get('/api/v1/jobs?filter=active')).data),
		relay: idsIn((await h.relay.get('/call/status', { headers: { endpoint: '/api/v1/jobs?filter=active', method: 'GET' } })).data),
		status: (await h.http.get(`/api/v1/jobs/${id}`)).status,
	});

	it('a refused submission was never listed nor readable, and its 400 names no path', async () => {
		const answer = h.http.post('/api/v1/jobs', jobBody());
		await writeStarted;
		const staged = h.server.store.all();
		expect(staged).toEqual([]);
		const [stagedId] = h.server.store.stagedIds();
		expect(await everyView(stagedId)).toEqual({ all: [], active: [], relay: [], status: 400 });
		const sizeBefore = statSync(join(dir, 'jobs.json')).size;
		release(true);
		const r = await answer;
		expect(r.status).toBe(400);
		expect(r.data).toEqual({ message: 'could not save the job (ENOSPC); it was not accepted' });
		expect(JSON.stringify(r.data)).not.toContain(dir);
		expect(await everyView(stagedId)).toEqual({ all: [], active: [], relay: [], status: 400 });
		// The part of its record already written was cut off: the file is as before the submission.
		expect(statSync(join(dir, 'jobs.json')).size).toBe(sizeBefore - 10);
		// The next submission is saved and shown; the file never held the refused one.
		const next = await h.http.post('/api/v1/jobs', jobBody());
		expect(next.status).toBe(200);
		expect(loadDataFile(join(dir, 'jobs.json')).map((j) => j.id)).toEqual([next.data.jobId]);
		expect(readdirSync(dir).sort()).toEqual(['jobs.json', 'jobs.json.lock']); // the lock: this server owns the file
	});

	it('an accepted submission appears only after its write, already running from its submission time', async () => {
		const submittedAt = h.clock.now();
		const answer = h.http.post('/api/v1/jobs', jobBody());
		await writeStarted;
		const [stagedId] = h.server.store.stagedIds();
		h.clock.advance(500);
		expect(await everyView(stagedId)).toEqual({ all: [], active: [], relay: [], status: 400 });
		release(false);
		const r = await answer;
		expect(r.status).toBe(200);
		expect(r.data.jobId).toBe(stagedId);
		const status = (await h.http.get(`/api/v1/jobs/${stagedId}`)).data;
		expect([status.executionStatus, status.startTime]).toEqual(['RUNNING', submittedAt]);
		expect(loadDataFile(join(dir, 'jobs.json'))[0].startTime).toBe(submittedAt);
	});
});

describe('a submission is acknowledged only once its record is fsynced', () => {
	afterEach(() => jest.restoreAllMocks());

	it('the answer waits for the fsync of the file its record was written to; until then no reader sees the job', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'jes-fsync-'));
		const h = await startHarness({ dataFile: join(dir, 'jobs.json') });
		let release: (() => void) | undefined;
		try {
			const calls: string[] = [];
			const realWrite = journalFs.write;
			const realFsync = journalFs.fsync;
			let writtenFd = -1;
			jest.spyOn(journalFs, 'write').mockImplementation((fd, buf, at) => {
				calls.push('write');
				writtenFd = fd;
				return realWrite(fd, buf, at);
			});
			let fsyncCalled!: () => void;
			const called = new Promise<string>((resolve) => (fsyncCalled = () => resolve('fsync')));
			const gate = new Promise<void>((resolve) => (release = resolve));
			jest.spyOn(journalFs, 'fsync').mockImplementation(async (fd) => {
				calls.push(fd === writtenFd ? 'fsync of the written file' : 'fsync of another file');
				fsyncCalled();
				await gate;
				await realFsync(fd);
				calls.push('synced');
			});
			const answer = h.http.post('/api/v1/jobs', jobBody()).then((r) => {
				calls.push('answered');
				return r;
			});
			// Without an fsync the answer comes first, and the test fails here.
			expect(await Promise.race([called, answer.then(() => 'answered')])).toBe('fsync');
			// Held in its fsync for a whole round trip of another request: unanswered, and unseen.
			const [stagedId] = h.server.store.stagedIds();
			expect((await h.http.get(`/api/v1/jobs/${stagedId}`)).status).toBe(400);
			expect(calls).toEqual(['write', 'fsync of the written file']);
			release?.();
			expect((await answer).status).toBe(200);
			expect(calls).toEqual(['write', 'fsync of the written file', 'synced', 'answered']);
			expect((await h.http.get(`/api/v1/jobs/${stagedId}`)).status).toBe(200);
		} finally {
			release?.();
			await h.server.close();
			rmSync(dir, { recursive: true, force: true });
		}
	});
});

describe('leftovers of an interrupted write', () => {
	it('temp files of the data file are removed at start, other files are left alone', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'jes-leftover-'));
		try {
			writeFileSync(join(dir, '.jobs.json.4242.0a1b2c3d.tmp'), '{"version":1,"jobs":[');
			writeFileSync(join(dir, '.jobs.json.4243.ffffffff.tmp'), '');
			writeFileSync(join(dir, '.other.json.4242.0a1b2c3d.tmp'), 'not ours');
			const h = await startHarness({ dataFile: join(dir, 'jobs.json') });
			try {
				expect(h.server.leftoversRemoved).toBe(2);
				expect(readdirSync(dir).sort()).toEqual(['.other.json.4242.0a1b2c3d.tmp', 'jobs.json', 'jobs.json.lock']);
			} finally {
				await h.server.close();
			}
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});

// A real disk full is a small tmpfs: root mounts it, another user through `sudo -n` (CI runners allow it). Where
// neither works the test is skipped, and says why in its name and on stderr (never silently).
const asRoot = process.getuid?.() === 0;
function privileged(command: string[]): { ok: boolean; why: string } {
	const [cmd, ...args] = asRoot ? command : ['sudo', '-n', ...command];
	const run = spawnSync(cmd, args, { encoding: 'utf8' });
	return { ok: run.status === 0, why: `${[cmd, ...args].join(' ')}: ${run.error?.message ?? run.stderr.trim()}` };
}
const mountTmpfs = (dir: string, size: string) => privileged(['mount', '-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
function whyNoTmpfs(): string | undefined {
	if (process.platform !== 'linux') return `needs Linux to mount a tmpfs (this is ${process.platform})`;
	if (!compiledMainExists) return 'needs the compiled server, dist/server/main.js (npm test builds it first)';
	const probe = mkdtempSync(join(tmpdir(), 'jes-probe-'));
	try {
		const mounted = mountTmpfs(probe, '64k');
		if (mounted.ok) privileged(['umount', probe]);
		return mounted.ok ? undefined : `cannot mount a tmpfs as uid ${process.getuid?.()} (${mounted.why})`;
	} finally {
		rmSync(probe, { recursive: true, force: true });
	}
}
const noTmpfs = whyNoTmpfs();
if (noTmpfs) process.stderr.write(`test/server/durability.test.ts: SKIPPED the real disk-full test: ${noTmpfs}\n`);

describe('disk full, real process', () => {
	const name = 'no reader ever sees a refused job; every id a reader saw is on disk after kill -9 and restart';
	(noTmpfs ? it.skip : it)(noTmpfs ? `${name} (SKIPPED: ${noTmpfs})` : name, async () => {
		const dir = mkdtempSync(join(tmpdir(), 'jes-full-'));
		const disk = join(dir, 'disk');
		mkdirSync(disk);
		expect(mountTmpfs(disk, '160k')).toMatchObject({ ok: true });
		const dataFile = join(disk, 'jobs.json');
		let server = await startCli(['--data', dataFile, '--step-ms', '50', '--concurrency', '4']);
		try {
			const client = axios.create({ baseURL: server.url, validateStatus: () => true, httpAgent: new Agent({ keepAlive: true, maxSockets: 32 }) });
			const seen = new Set<string>();
			let reading = true;
			const reader = (async () => {
				for (let i = 0; reading; i++) {
					const r = await client.get(i % 2 ? '/api/v1/jobs' : '/api/v1/jobs?filter=active');
					for (const id of idsIn(r.data)) seen.add(id);
				}
			})();
			const accepted: string[] = [];
			const refused: string[] = [];
			const parameters = [{ name: 'payload', type: 'string', value: 'x'.repeat(4000) }];
			for (let burst = 0; burst < 8; burst++) {
				const answers = await Promise.all(Array.from({ length: 8 }, () => client.post('/api/v1/jobs', jobBody({ flowFileName: '/Shared/Flows/disk.flow', parameters }))));
				for (const r of answers) {
					if (r.status === 200 || r.status === 202) accepted.push(r.data.jobId);
					else refused.push(r.data.message);
				}
			}
			reading = false;
			await reader;
			expect(refused.length).toBeGreaterThan(0);
			expect(accepted.length).toBeGreaterThan(0);
			expect([...new Set(refused)]).toEqual(['could not save the job (ENOSPC); it was not accepted']);
			expect([...seen].filter((id) => !accepted.includes(id))).toEqual([]);
			await server.kill();
			server = await startCli(['--data', dataFile, '--step-ms', '50', '--concurrency', '4']);
			const onDisk = new Set(loadDataFile(dataFile).map((j: { id: string }) => j.id));
			expect([...seen].filter((id) => !onDisk.has(id))).toEqual([]);
			expect(accepted.filter((id) => !onDisk.has(id))).toEqual([]);
			process.stdout.write(`disk full (tmpfs 160 KiB): ${accepted.length} accepted, ${refused.length} refused with ENOSPC, ${seen.size} ids seen by readers, all on disk after kill -9\n`);
		} finally {
			await server.kill();
			privileged(['umount', disk]);
			if (!existsSync(dataFile)) rmSync(dir, { recursive: true, force: true });
		}
	});
});
