/**
 * One server per --data file, whatever name it is reached by (issues 26 §5 and 35): a second server on the file, a
 * symlink or a hard link to it is refused with a message naming the owner and the fix, so no acknowledged job is
 * overwritten; a lock left by a killed server (kill -9) is taken over, its pid reused or its host name changed.
 * A live owner whose process name holds ')' and spaces is not taken for stale, and a lock is released only by
 * its owner: after a takeover the old owner's release leaves the successor's lock (issue 48).
 * Also: a store with a journal has no way to show a job before it is saved (MemoryJobStore, submitDurably).
 */
import { spawn, spawnSync } from 'child_process';
import { once } from 'events';
import { existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'fs';
import { hostname, tmpdir } from 'os';
import { join } from 'path';

import axios from 'axios';
import fc from 'fast-check';

import { DataFileLockedError, DataFileLockLostError, HEARTBEAT_ENV, judgeByPid, lockDataFile, realDataPath, removeStaleLock, signalAlive, startTimeFromStat, systemFacts } from '../../server/dataFileLock';
import type { LockOptions, LockOwner } from '../../server/dataFileLock';
import { CatalogIndex, defaultCatalog, JobStore, loadDataFile, ManualClock, MemoryJobStore, startReferenceServer, submitDurably } from '../../server';
import { writeMeasuredBlock } from '../../testkit/measuredBlock';
import { COMPILED_MAIN, compiledMainExists, startCli } from './process';

// The fs module itself (not a namespace copy), so that a spy on it is seen by server/dataFileLock.ts.
const fs = jest.requireActual<typeof import('fs')>('fs');
const FLOW = { flowFileName: '/Shared/Flows/sales.flow', runProfileName: 'default' };

// The error of a start expected to be refused; a server that started anyway is closed (no open handle left).
async function refusal(dataFile: string): Promise<string> {
	try {
		await (await startReferenceServer({ dataFile, clock: new ManualClock() })).close();
		return 'it started';
	} catch (err) {
		return (err as Error).message;
	}
}

describe('one server per --data file', () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), 'jes-lock-'));
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	test('in one process: a second server on the file is refused while the first runs, and starts once it closed', async () => {
		const data = join(dir, 'jobs.json');
		const first = await startReferenceServer({ dataFile: data, clock: new ManualClock() });
		try {
			await expect(startReferenceServer({ dataFile: data, clock: new ManualClock() })).rejects.toThrow(
				new RegExp(`^data file .*jobs\\.json is in use by server pid ${process.pid} \\(lock file .*jobs\\.json\\.lock\\): two servers on one data file would overwrite each other's jobs; stop that server, or use another --data file`),
			);
		} finally {
			await first.close();
		}
		expect(existsSync(`${data}.lock`)).toBe(false);
		const second = await startReferenceServer({ dataFile: data, clock: new ManualClock() });
		await second.close();
	});

	// A lock whose owner cannot be checked by pid is watched for its heartbeat: no real waiting here.
	const noWait = { sleep: () => Promise.resolve() };

	test('a lock file that is half written, or names a process that is gone, is stale and taken over', async () => {
		const data = join(dir, 'jobs.json');
		for (const content of ['', '{"pid":', JSON.stringify({ ...systemFacts().self, pid: 2 ** 22 + 12_345, file: data })]) {
			writeFileSync(`${data}.lock`, content);
			const lock = await lockDataFile(data, noWait);
			expect(lock.tookOverStale).toBe(true);
			// A half-written lock was judged by its heartbeat (its owner may run); a pid gone by the pid.
			expect(lock.ownerMayRun).toBe(!content.includes('file'));
			expect(JSON.parse(readFileSync(lock.path, 'utf8')).pid).toBe(process.pid);
			await expect(lockDataFile(data, noWait)).rejects.toThrow(DataFileLockedError);
			lock.release();
			expect(existsSync(lock.path)).toBe(false);
		}
	});

	test('a symlink to the running server\'s data file is refused, naming the owner; a server on a symlink keeps it a symlink', async () => {
		const data = join(dir, 'jobs.json');
		const link = join(dir, 'link.json');
		symlinkSync(data, link);
		// A dangling symlink: its target is created, and the journal (rewritten at start) writes through it.
		const first = await startReferenceServer({ dataFile: link, clock: new ManualClock() });
		try {
			expect(await refusal(data)).toContain(`is in use by server pid ${process.pid} (lock file ${realpathSync(dir)}/jobs.json.lock)`);
			await expect(lockDataFile(link)).rejects.toThrow(
				new RegExp(`^data file .*link\\.json \\(the same file as .*jobs\\.json\\) is in use by server pid ${process.pid} `),
			);
			const id = (await first.submitJob({ flow: first.catalog.byFileName(FLOW.flowFileName)!, runProfileName: 'default', notificationEnabled: false, parameters: [] })).job.id;
			expect(lstatSync(link).isSymbolicLink()).toBe(true);
			expect(loadDataFile(data).map((job) => job.id)).toEqual([id]);
		} finally {
			await first.close();
		}
		expect(readdirSync(dir).sort()).toEqual(['jobs.json', 'link.json']);
	});

	test('a hard link to the running server\'s data file is refused, naming the owner; a file with two names is refused', async () => {
		const data = join(dir, 'jobs.json');
		const first = await startReferenceServer({ dataFile: data, clock: new ManualClock() });
		const other = join(dir, 'other.json');
		mkdirSync(join(dir, 'elsewhere'));
		const far = join(dir, 'elsewhere', 'far.json');
		try {
			linkSync(data, other);
			expect(await refusal(other)).toMatch(
				new RegExp(`^data file .*other\\.json has 2 names \\(hard links\\); it is in use by server pid ${process.pid} on host ${hostname()} as .*jobs\\.json \\(lock file .*jobs\\.json\\.lock\\): `),
			);
			rmSync(other);
			// In another directory the owner's lock is not found: still refused, the file has two names.
			linkSync(data, far);
			await expect(lockDataFile(far)).rejects.toThrow(/^data file .*far\.json has 2 names \(hard links\): a server on each name would overwrite/);
		} finally {
			await first.close();
		}
		await expect(lockDataFile(data)).rejects.toThrow(/has 2 names/);
		rmSync(far);
		(await lockDataFile(data)).release();
	});

	const ownerLock = (data: string, owner: Partial<LockOwner>) =>
		writeFileSync(`${data}.lock`, JSON.stringify({ ...systemFacts().self, file: data, ...owner }));
	const linux = existsSync(`/proc/${process.ppid}/stat`);

	(linux ? test : test.skip)('PID reuse: a lock naming a live pid with another start time is stale; with its own start time, alive', async () => {
		const data = join(dir, 'jobs.json');
		// The parent of this test process runs: its pid is live, under another start time than the lock says.
		ownerLock(data, { pid: process.ppid, start: '1' });
		const lock = await lockDataFile(data);
		expect(lock.staleReason).toMatch(new RegExp(`^pid ${process.ppid} is now another process \\(started at tick \\d+, the owner at 1\\)$`));
		lock.release();
		const start = systemFacts().startTimeOf(process.ppid);
		expect(start).toMatch(/^\d+$/);
		ownerLock(data, { pid: process.ppid, start });
		await expect(lockDataFile(data)).rejects.toThrow(`is in use by server pid ${process.ppid} (lock file`);
	});

	(linux ? test : test.skip)('a lock naming a zombie (killed, not yet reaped by its parent) is stale', async () => {
		// The shell starts `sleep` in the background, then becomes a `sleep` that never reaps it.
		const parent = spawn('sh', ['-c', 'sleep 60 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
		try {
			const pid = Number((await once(parent.stdout!, 'data'))[0].toString());
			const start = systemFacts().startTimeOf(pid);
			expect(start).toMatch(/^\d+$/);
			// The kill waits until the shell has become `sleep`: a shell still running could reap the child (forced, not hoped).
			while (readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim() !== 'sleep') await new Promise((r) => setTimeout(r, 5));
			process.kill(pid, 'SIGKILL');
			// Waits for the state the kill brings (no clock): the process stays listed as a zombie.
			while (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0] !== 'Z') await new Promise((r) => setTimeout(r, 5));
			const data = join(dir, 'jobs.json');
			ownerLock(data, { pid, start });
			const lock = await lockDataFile(data);
			expect(lock.staleReason).toBe(`its process (pid ${pid}) is gone`);
			lock.release();
		} finally {
			parent.kill('SIGKILL');
		}
	});

	(linux ? test : test.skip)("a live owner whose process name holds ')' and spaces is alive: its start time is read after the name's last ')'", async () => {
		// The shell renames itself: counted after the first ')', every field would be six places off.
		const name = 'x) 1 2 3 4 5 6';
		const owner = spawn('sh', ['-c', `printf '${name}' > /proc/$$/comm; echo named; read never`], { stdio: ['pipe', 'pipe', 'ignore'] });
		try {
			await once(owner.stdout!, 'data');
			const stat = readFileSync(`/proc/${owner.pid}/stat`, 'utf8');
			const head = `${owner.pid} (${name}) `;
			expect(stat.startsWith(head)).toBe(true);
			// Its start time, read here knowing the name: field 22.
			const start = stat.slice(head.length).split(' ')[19];
			const data = join(dir, 'jobs.json');
			ownerLock(data, { pid: owner.pid, start });
			await expect(lockDataFile(data)).rejects.toThrow(`is in use by server pid ${owner.pid} (lock file`);
		} finally {
			owner.kill('SIGKILL');
		}
	});

	test("generated: a /proc stat line's start time (field 22) and zombie state are read whatever the process name holds", () => {
		const nameUnit = fc.constantFrom(')', '(', ' ', ') ', 'a', '1', 'Z', '\n');
		fc.assert(
			fc.property(fc.string({ unit: nameUnit, maxLength: 15 }), fc.constantFrom('R', 'S', 'D', 'T', 'Z', 'X'), fc.bigInt({ min: 0n, max: 2n ** 40n }), (name, state, start) => {
				const line = `4242 (${name}) ${state} 1 4242 4242 0 -1 4194560 120 0 0 0 3 1 0 0 20 0 1 0 ${start} 2654208 399 18446744073709551615 0 0\n`;
				expect(startTimeFromStat(line)).toBe(state === 'Z' || state === 'X' ? undefined : String(start));
			}),
			{ seed: 48, numRuns: 300 },
		);
		// A line cut short of field 22 (a system that says less) gives no start time, not a wrong one.
		expect(startTimeFromStat('4242 (a) b) S 1 4242')).toBe('');
	});

	test('judgeByPid: the pid decides only where it means something here; a start time either side does not say is no proof of reuse', () => {
		const self = { pid: 100, start: '500', boot: 'boot-a', pidns: 'pid:[1]', host: 'host-a' };
		const running = new Map<number, string>([[200, '700'], [201, '']]);
		const facts = { self, startTimeOf: (pid: number) => running.get(pid) };
		const owner = (o: Partial<LockOwner>): LockOwner => ({ pid: 200, start: '700', boot: 'boot-a', pidns: 'pid:[1]', host: 'host-a', file: '/data/jobs.json', ...o });
		const judge = (o: Partial<LockOwner>) => judgeByPid(owner(o), facts, false);
		expect(judge({})).toEqual({ alive: true });
		// Another start time: the pid was reused.
		expect(judge({ start: '699' })).toEqual({ alive: false, why: 'pid 200 is now another process (started at tick 700, the owner at 699)' });
		// Either side without a start time: the running pid is taken for the owner.
		expect(judge({ pid: 201, start: '700' })).toEqual({ alive: true });
		expect(judge({ start: '' })).toEqual({ alive: true });
		expect(judge({ pid: 202 })).toEqual({ alive: false, why: 'its process (pid 202) is gone' });
		// Another boot, or another pid namespace on this boot: the pid proves nothing here.
		expect(judge({ boot: 'boot-b' })).toBeUndefined();
		expect(judge({ pidns: 'pid:[2]' })).toBeUndefined();
		// A lock without a boot id: judged by pid on the same host name only.
		expect(judge({ boot: '', pidns: '', pid: 202 })).toEqual({ alive: false, why: 'its process (pid 202) is gone' });
		expect(judge({ boot: '', pidns: '', host: 'host-b' })).toBeUndefined();
	});

	test('a lock naming this very process is stale unless this process holds it (PID 1 restarted in a container)', async () => {
		const data = join(dir, 'jobs.json');
		ownerLock(data, {});
		const lock = await lockDataFile(data);
		expect(lock.staleReason).toBe(`it names this very process (pid ${process.pid}), which does not hold it: an earlier run with the same pid left it`);
		await expect(lockDataFile(data)).rejects.toThrow(`is in use by server pid ${process.pid} (lock file`);
		lock.release();
	});

	// Another host name in another pid namespace (a recreated container on this kernel), or another boot (a reboot,
	// another machine): the pid proves nothing, even a live one; the owner's heartbeat decides.
	const elsewhere: Array<[string, Partial<LockOwner>]> = [
		['another host name and pid namespace, same boot', { host: 'old-container-3f2a', pidns: 'pid:[4026000001]', pid: process.ppid }],
		['the same host name, another boot id', { boot: '00000000-0000-4000-8000-000000000000', pid: process.ppid }],
	];
	test.each(elsewhere)('%s: stale when its lock stays unchanged for the watch, alive when it is refreshed', async (_case, owner) => {
		const data = join(dir, 'jobs.json');
		ownerLock(data, owner);
		const sleeps: number[] = [];
		const lock = await lockDataFile(data, { heartbeatMs: 1000, sleep: (ms) => Promise.resolve(void sleeps.push(ms)) });
		// Watched for 5 heartbeats, by half heartbeats.
		expect(sleeps).toEqual(Array(10).fill(500));
		expect(lock.staleReason).toBe('it was not refreshed for 5000 ms (its owner cannot be checked from here)');
		lock.release();
		ownerLock(data, owner);
		// The owner's heartbeat (its mtime moves) during the third wait: alive, the start is refused naming it.
		let waits = 0;
		const beating = (): Promise<void> => {
			if (++waits === 3) utimesSync(`${data}.lock`, new Date(), new Date(Date.now() + 60_000));
			return Promise.resolve();
		};
		const host = owner.host ? ` on host ${owner.host}` : '';
		await expect(lockDataFile(data, { sleep: beating })).rejects.toThrow(`is in use by server pid ${process.ppid}${host} (lock file`);
		expect(waits).toBe(3);
	});

	test('taking over a stale lock removes that lock only: a fresh one put in its place meanwhile stays', () => {
		const lockPath = join(dir, 'jobs.json.lock');
		writeFileSync(lockPath, 'stale');
		const staleIno = statSync(lockPath).ino;
		// Another server judged it stale too, and was faster: its own lock is now where the stale one was.
		writeFileSync(join(dir, 'fresh'), 'fresh');
		renameSync(join(dir, 'fresh'), lockPath);
		removeStaleLock(lockPath, staleIno);
		expect([readdirSync(dir), readFileSync(lockPath, 'utf8')]).toEqual([['jobs.json.lock'], 'fresh']);
		removeStaleLock(lockPath, statSync(lockPath).ino);
		expect(readdirSync(dir)).toEqual([]);
	});

	const HOUR = 3_600_000;
	// A successor that cannot check the owner by pid (another pid namespace): the owner's unchanged lock decides.
	const successorLock = (): LockOptions => {
		const facts = systemFacts();
		return { facts: { ...facts, self: { ...facts.self, pidns: 'pid:[4026000099]' } }, sleep: () => Promise.resolve() };
	};

	test("after a takeover the old owner's check fails, naming its successor, once told; its release leaves the successor's lock, unmoved", async () => {
		const data = join(dir, 'jobs.json');
		const told: string[] = [];
		const old = await lockDataFile(data, { heartbeatMs: HOUR, onLost: (m) => told.push(m) });
		old.check();
		const successor = await lockDataFile(data, successorLock());
		expect([successor.ownerMayRun, old.ownerMayRun, old.tookOverStale]).toEqual([true, false, false]);
		const text = readFileSync(successor.path, 'utf8');
		const why = `its lock file ${successor.path} was taken over by server pid ${process.pid} on host ${hostname()}`;
		expect(() => old.check()).toThrow(DataFileLockLostError);
		expect(() => old.check()).toThrow(why);
		expect(told).toEqual([expect.stringContaining(why)]);
		const renames = jest.spyOn(fs, 'renameSync');
		old.release();
		expect(renames).not.toHaveBeenCalled();
		renames.mockRestore();
		expect(readFileSync(successor.path, 'utf8')).toBe(text);
		// The successor still holds it, in this process too: a third start with its facts is refused, not taking
		// over a lock "naming this very process" (the old owner's release forgot only its own).
		await expect(lockDataFile(data, successorLock())).rejects.toThrow(DataFileLockedError);
		successor.check();
		successor.release();
		expect(readdirSync(dir)).toEqual([]);
		// A second release does nothing (no descriptor closed twice), whatever lock is there now.
		const next = await lockDataFile(data, { heartbeatMs: HOUR });
		old.release();
		successor.release();
		next.check();
		next.release();
	});

	test('a lock rewritten in place (same inode, another content) is no longer its owner\'s: the check fails, the release leaves it', async () => {
		const data = join(dir, 'jobs.json');
		const lock = await lockDataFile(data, { heartbeatMs: HOUR, onLost: () => undefined });
		const ino = statSync(lock.path).ino;
		const other = JSON.stringify({ ...systemFacts().self, pid: 4242, file: lock.dataPath });
		writeFileSync(lock.path, other);
		expect(statSync(lock.path).ino).toBe(ino);
		expect(() => lock.check()).toThrow(`its lock file ${lock.path} was taken over by server pid 4242 on host`);
		lock.release();
		expect(readFileSync(lock.path, 'utf8')).toBe(other);
		// Rewritten to name this very process: once released, this process no longer holds that inode, so it is stale.
		writeFileSync(lock.path, JSON.stringify({ ...systemFacts().self, file: lock.dataPath }));
		const again = await lockDataFile(data);
		expect(again.staleReason).toBe(`it names this very process (pid ${process.pid}), which does not hold it: an earlier run with the same pid left it`);
		again.release();
	});

	test('a takeover between the release\'s check and its move: the successor\'s lock, moved by mistake, is put back', async () => {
		const data = join(dir, 'jobs.json');
		const lock = await lockDataFile(data, { heartbeatMs: HOUR, onLost: () => undefined });
		const realRename = fs.renameSync;
		const successor = JSON.stringify({ ...systemFacts().self, pid: 4242, file: lock.dataPath });
		jest.spyOn(fs, 'renameSync').mockImplementationOnce((from, to) => {
			// The successor's takeover lands right here: the old lock moved aside, its own linked in place.
			realRename(lock.path, `${lock.path}.taken`);
			writeFileSync(lock.path, successor, { flag: 'wx' });
			realRename(from, to);
		});
		lock.release();
		jest.restoreAllMocks();
		expect(readFileSync(lock.path, 'utf8')).toBe(successor);
		expect(readdirSync(dir).sort()).toEqual(['jobs.json.lock', 'jobs.json.lock.taken']);
	});

	test.each([
		['removed', (path: string) => rmSync(path), 'was removed'],
		['replaced by what is no lock', (path: string) => writeFileSync(path, 'not a lock'), 'was replaced'],
	])('a lock file %s is no longer its owner\'s: the check says so, on stderr by default', async (_case, change, why) => {
		const data = join(dir, 'jobs.json');
		const lock = await lockDataFile(data, { heartbeatMs: HOUR });
		change(lock.path);
		const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
		try {
			const message = `data file ${lock.dataPath} is no longer this server's: its lock file ${lock.path} ${why} (this server was paused`;
			expect(() => lock.check()).toThrow(message);
			expect(stderr.mock.calls).toEqual([[expect.stringMatching(new RegExp(`^error: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*\\n$`))]]);
		} finally {
			stderr.mockRestore();
		}
		lock.release();
	});

	test('the release: a lock gone between its check and its move is fine; another error is thrown', async () => {
		const data = join(dir, 'jobs.json');
		for (const code of ['ENOENT', 'EACCES']) {
			const lock = await lockDataFile(data, { heartbeatMs: HOUR });
			jest.spyOn(fs, 'renameSync').mockImplementationOnce(() => {
				throw Object.assign(new Error(code), { code });
			});
			if (code === 'ENOENT') lock.release();
			else expect(() => lock.release()).toThrow(code);
			jest.restoreAllMocks();
			rmSync(lock.path);
		}
	});

	test.each([
		['7', 3, 12],
		['1', 1, 5],
		['0', 500, 10],
		['-5', 500, 10],
		['2.5', 500, 10],
	])(`${HEARTBEAT_ENV}=%s: the heartbeat's period (a foreign lock is watched by sleeps of %i ms, %i of them)`, async (env, step, count) => {
		const data = join(dir, 'jobs.json');
		ownerLock(data, { boot: '00000000-0000-4000-8000-000000000000' });
		const sleeps: number[] = [];
		expect(HEARTBEAT_ENV).toBe('JES_LOCK_HEARTBEAT_MS');
		process.env.JES_LOCK_HEARTBEAT_MS = env;
		try {
			const lock = await lockDataFile(data, { sleep: (ms) => Promise.resolve(void sleeps.push(ms)) });
			lock.release();
		} finally {
			delete process.env.JES_LOCK_HEARTBEAT_MS;
		}
		expect(sleeps).toEqual(Array(count).fill(step));
	});

	test('where the file system has no hard links (EPERM, ENOTSUP, ENOSYS), the lock is created exclusively; another link error is thrown, no file left', async () => {
		const data = join(dir, 'jobs.json');
		for (const code of ['EPERM', 'ENOTSUP', 'ENOSYS', 'EIO']) {
			jest.spyOn(fs, 'linkSync').mockImplementation(() => {
				throw Object.assign(new Error(code), { code });
			});
			try {
				if (code === 'EIO') {
					await expect(lockDataFile(data)).rejects.toThrow(code);
					expect(readdirSync(dir)).toEqual([]);
				} else {
					const lock = await lockDataFile(data, { heartbeatMs: HOUR });
					expect([readdirSync(dir), JSON.parse(readFileSync(lock.path, 'utf8')).pid]).toEqual([['jobs.json.lock'], process.pid]);
					lock.check();
					lock.release();
				}
			} finally {
				jest.restoreAllMocks();
			}
		}
	});

	test('an owner whose lock was taken over says so at its next heartbeat, with no write to refuse', async () => {
		const data = join(dir, 'jobs.json');
		const told: string[] = [];
		const lock = await lockDataFile(data, { heartbeatMs: 5, onLost: (m) => told.push(m) });
		removeStaleLock(lock.path, statSync(lock.path).ino);
		writeFileSync(lock.path, JSON.stringify({ ...systemFacts().self, pid: 4242, host: 'other-host', file: lock.dataPath }));
		// Waits for the heartbeat (every 5 ms), a bounded number of times: a heartbeat that never checks fails here.
		for (let waits = 0; told.length === 0 && waits < 400; waits++) await new Promise((r) => setTimeout(r, 5));
		expect(told).toEqual([
			`data file ${lock.dataPath} is no longer this server's: its lock file ${lock.path} was taken over by server pid 4242 on host other-host ` +
				"(this server was paused, or its disk stalled, longer than its lock's heartbeat allows); it writes nothing more to the file and refuses every job (stop this server)",
		]);
		lock.release();
		expect(existsSync(lock.path)).toBe(true);
	});

	test('the heartbeat: one touch of the lock at a time, its descriptor closed on release whether a touch is in flight or not', async () => {
		const data = join(dir, 'jobs.json');
		// Descriptors open on the lock file (under its name, moved aside, or deleted).
		const openFds = () =>
			readdirSync('/proc/self/fd').filter((fd) => {
				try {
					return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${realpathSync(dir)}/jobs.json.lock`);
				} catch {
					return false;
				}
			}).length;
		const realFutimes = fs.futimes;
		const held: Array<() => void> = [];
		// Each touch is held until the test lets it finish: a release can come while one is in flight.
		jest.spyOn(fs, 'futimes').mockImplementation(((fd: number, atime: number, mtime: number, done: (err: NodeJS.ErrnoException | null) => void) => {
			held.push(() => realFutimes(fd, atime, mtime, done));
		}) as typeof fs.futimes);
		try {
			const before = openFds();
			const lock = await lockDataFile(data, { heartbeatMs: 2 });
			while (held.length === 0) await new Promise((r) => setTimeout(r, 2));
			// Several beats later, still the one touch: a beat does not touch again while one is in flight.
			await new Promise((r) => setTimeout(r, 40));
			expect(held).toHaveLength(1);
			lock.release();
			// Released with the touch in flight: the descriptor closes once the touch ends, not before.
			expect(openFds()).toBe(before + 1);
			held.shift()?.();
			await new Promise((r) => setTimeout(r, 20));
			expect(openFds()).toBe(before);
			expect(held).toHaveLength(0);
			// Released with no touch in flight: closed at once.
			jest.restoreAllMocks();
			const again = await lockDataFile(data, { heartbeatMs: 60_000 });
			expect(openFds()).toBe(before + 1);
			again.release();
			expect(openFds()).toBe(before);
		} finally {
			jest.restoreAllMocks();
			for (const finish of held) finish();
		}
	});

	/** The lock's mtimes seen while it beats every 5 ms, until 3 differ (or 2 s of waits pass). */
	const threeStamps = async (lockPath: string): Promise<Set<number>> => {
		const stamps = new Set([statSync(lockPath).mtimeMs]);
		for (let waits = 0; stamps.size < 3 && waits < 400; waits++) {
			await new Promise((r) => setTimeout(r, 5));
			stamps.add(statSync(lockPath).mtimeMs);
		}
		return stamps;
	};

	test('the heartbeat keeps the lock moving: its mtime changes beat after beat, not once', async () => {
		const data = join(dir, 'jobs.json');
		const startedAt = Date.now();
		const lock = await lockDataFile(data, { heartbeatMs: 5 });
		const stamps = await threeStamps(lock.path);
		lock.release();
		expect(stamps.size).toBe(3);
		// Each beat is the clock's time (or a second past the last beat): a lock's age reads true to a person too.
		for (const stamp of stamps) expect(stamp).toBeGreaterThanOrEqual(startedAt - 1000);
	});

	(linux ? test : test.skip)("a start that loses the race to create the lock reads the winner's lock: refused, naming it", async () => {
		const data = join(dir, 'jobs.json');
		const realLink = fs.linkSync;
		let raced = false;
		// Another server's lock appears between this start's look (none) and its create.
		jest.spyOn(fs, 'linkSync').mockImplementation((from, to) => {
			if (!raced && String(to).endsWith('.lock')) {
				raced = true;
				ownerLock(data, { pid: process.ppid, start: systemFacts().startTimeOf(process.ppid) ?? '' });
			}
			realLink(from, to);
		});
		try {
			await expect(lockDataFile(data)).rejects.toThrow(`is in use by server pid ${process.ppid} (lock file`);
			expect(raced).toBe(true);
		} finally {
			jest.restoreAllMocks();
		}
	});

	test('a lock whose owner cannot be checked, removed while it is watched, is no takeover: the start takes a new lock', async () => {
		const data = join(dir, 'jobs.json');
		ownerLock(data, { boot: '00000000-0000-4000-8000-000000000000', pid: process.ppid });
		let waits = 0;
		const removing = (): Promise<void> => {
			if (++waits === 2) rmSync(`${data}.lock`);
			return Promise.resolve();
		};
		const lock = await lockDataFile(data, { sleep: removing });
		expect(waits).toBe(2);
		expect([lock.tookOverStale, lock.staleReason]).toEqual([false, undefined]);
		lock.release();
	});

	/** What a throw carried (its code), or undefined when nothing was thrown. */
	const thrown = (run: () => unknown): unknown => {
		try {
			run();
		} catch (err) {
			return err;
		}
		return undefined;
	};
	/** A pid no process has: one that ran and was reaped. */
	const gonePid = (): number => spawnSync('true').pid as number;

	(linux ? test : test.skip)('what this process writes of itself: its pid, start time, boot id, pid namespace and host, read exactly', () => {
		const self = systemFacts().self;
		expect(self).toEqual({
			pid: process.pid,
			start: startTimeFromStat(readFileSync('/proc/self/stat', 'utf8')),
			boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
			pidns: readlinkSync('/proc/self/ns/pid'),
			host: hostname(),
		});
		expect([self.start, self.boot, self.pidns]).toEqual([expect.stringMatching(/^\d+$/), expect.stringMatching(/^[0-9a-f-]{36}$/), expect.stringMatching(/^pid:\[\d+\]$/)]);
	});

	test('without /proc, a pid is alive unless the system says there is no such process (EPERM: it exists, another user\'s)', () => {
		expect([signalAlive(process.pid), signalAlive(gonePid())]).toEqual(['', undefined]);
		for (const [code, alive] of [['EPERM', ''], ['EINVAL', undefined]] as const) {
			jest.spyOn(process, 'kill').mockImplementationOnce(() => {
				throw Object.assign(new Error(code), { code });
			});
			expect(signalAlive(4242)).toBe(alive);
			jest.restoreAllMocks();
		}
	});

	test('a lock whose pid is not whole or whose host is not text is unreadable (its heartbeat decides); a start time not text is none', async () => {
		const data = join(dir, 'jobs.json');
		// Read as they stand, each would name a pid that is gone, here: a takeover saying so, not the heartbeat's.
		for (const owner of [{ pid: 1.5 }, { pid: gonePid(), host: 42 }]) {
			ownerLock(data, owner as unknown as Partial<LockOwner>);
			const lock = await lockDataFile(data, noWait);
			expect(lock.staleReason).toBe('it was not refreshed for 5000 ms (its owner cannot be checked from here)');
			lock.release();
		}
		// A start time of another type is no start time: the live pid is not taken for reused.
		ownerLock(data, { pid: process.ppid, start: 1 as unknown as string });
		await expect(lockDataFile(data, noWait)).rejects.toThrow(`is in use by server pid ${process.ppid} (lock file`);
	});

	test('a lock that cannot be opened for another reason than its absence is an error, not a free lock', async () => {
		const data = join(dir, 'jobs.json');
		symlinkSync('jobs.json.lock', `${data}.lock`);
		await expect(lockDataFile(data, noWait)).rejects.toMatchObject({ code: 'ELOOP' });
	});

	test('a lock found at each try and gone at each watch: eight tries, no wait, then refused naming no owner', async () => {
		const data = join(dir, 'jobs.json');
		ownerLock(data, { boot: '00000000-0000-4000-8000-000000000000', pid: process.ppid });
		const realStat = fs.statSync;
		jest.spyOn(fs, 'statSync').mockImplementation(((path: string, options?: object) => (String(path).endsWith('.lock') ? undefined : realStat(path, options))) as typeof fs.statSync);
		const opened = jest.spyOn(fs, 'openSync');
		let sleeps = 0;
		try {
			await expect(lockDataFile(data, { sleep: () => Promise.resolve(void sleeps++) })).rejects.toThrow(
				new RegExp(`^data file .*jobs\\.json is in use by another server \\(lock file .*jobs\\.json\\.lock\\): two servers`),
			);
			expect([opened.mock.calls.filter(([path]) => String(path).endsWith('.lock')).length, sleeps]).toEqual([8, 0]);
		} finally {
			jest.restoreAllMocks();
		}
	});

	test('a file with two names: only a lock on that very file names its holder; other locks, unreadable ones and other files do not', async () => {
		const data = join(dir, 'jobs.json');
		const unrelated = join(dir, 'unrelated.json');
		writeFileSync(data, '[]');
		writeFileSync(unrelated, '[]');
		linkSync(data, join(dir, 'other.json'));
		const owner = (file: string) => JSON.stringify({ ...systemFacts().self, pid: process.ppid, file });
		writeFileSync(`${unrelated}.lock`, owner(unrelated));
		writeFileSync(join(dir, 'broken.lock'), 'not a lock');
		writeFileSync(join(dir, 'missing.json.lock'), owner(join(dir, 'missing.json')));
		writeFileSync(join(dir, 'notes.txt'), owner(data));
		await expect(lockDataFile(join(dir, 'other.json'), noWait)).rejects.toThrow(
			new DataFileLockedError(
				`data file ${join(dir, 'other.json')} has 2 names (hard links): a server on each name would overwrite the other's jobs, and compaction would split the names; use one name (a symlink is fine) or another --data file`,
			),
		);
	});

	test('where the file system has no hard links, a lock another start created meanwhile is not overwritten: refused, naming it', async () => {
		const data = join(dir, 'jobs.json');
		jest.spyOn(fs, 'linkSync').mockImplementationOnce(() => {
			ownerLock(data, { pid: process.ppid, start: systemFacts().startTimeOf(process.ppid) ?? '' });
			throw Object.assign(new Error('EPERM'), { code: 'EPERM' });
		});
		try {
			await expect(lockDataFile(data, noWait)).rejects.toThrow(`is in use by server pid ${process.ppid} (lock file`);
		} finally {
			jest.restoreAllMocks();
		}
	});

	test('removing a stale lock that is already gone is fine; another error is thrown', () => {
		expect(thrown(() => removeStaleLock(join(dir, 'none.lock'), 1))).toBeUndefined();
		writeFileSync(join(dir, 'file'), '');
		expect(thrown(() => removeStaleLock(join(dir, 'file', 'x.lock'), 1))).toMatchObject({ code: 'ENOTDIR' });
		// An error that leaves nothing behind to trip over later (the move itself failed): thrown all the same.
		writeFileSync(join(dir, 'jobs.json.lock'), 'stale');
		jest.spyOn(fs, 'renameSync').mockImplementationOnce(() => {
			throw Object.assign(new Error('EIO'), { code: 'EIO' });
		});
		try {
			expect(thrown(() => removeStaleLock(join(dir, 'jobs.json.lock'), 1))).toMatchObject({ code: 'EIO' });
		} finally {
			jest.restoreAllMocks();
		}
	});

	test('where the file system has no hard links, an exclusive create that fails for another reason than a lock there is thrown', async () => {
		const data = join(dir, 'jobs.json');
		const realWrite = fs.writeFileSync;
		jest.spyOn(fs, 'linkSync').mockImplementation(() => {
			throw Object.assign(new Error('EPERM'), { code: 'EPERM' });
		});
		jest.spyOn(fs, 'writeFileSync').mockImplementation(((path: string, ...rest: Parameters<typeof fs.writeFileSync> extends [unknown, ...infer R] ? R : never) => {
			if (String(path).endsWith('.lock')) throw Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' });
			return realWrite(path, ...rest);
		}) as typeof fs.writeFileSync);
		try {
			await expect(lockDataFile(data, noWait)).rejects.toMatchObject({ code: 'ENOSPC' });
		} finally {
			jest.restoreAllMocks();
		}
	});

	test("a data file in a folder that does not exist is named by its absolute path (the lock's create then fails there, not elsewhere)", () => {
		const missing = join(dir, 'missing', 'jobs.json');
		expect(realDataPath(missing)).toBe(missing);
	});

	test('the heartbeat moves the lock on even while the clock stands still: a second a beat', async () => {
		const data = join(dir, 'jobs.json');
		const lock = await lockDataFile(data, { heartbeatMs: 5 });
		jest.spyOn(Date, 'now').mockReturnValue(Date.now());
		let stamps = new Set<number>();
		try {
			stamps = await threeStamps(lock.path);
		} finally {
			jest.restoreAllMocks();
			lock.release();
		}
		expect(stamps.size).toBe(3);
	});

	test('with no sleep given, the watch of an owner that cannot be checked waits in real time: one beating every 10 ms is alive', async () => {
		const data = join(dir, 'jobs.json');
		ownerLock(data, { boot: '00000000-0000-4000-8000-000000000000', pid: process.ppid });
		const beat = setInterval(() => utimesSync(`${data}.lock`, new Date(), new Date()), 10);
		try {
			await expect(lockDataFile(data, { heartbeatMs: 20 })).rejects.toThrow(`is in use by server pid ${process.ppid} (lock file`);
		} finally {
			clearInterval(beat);
		}
	});

	test('the owner refreshes its lock (its heartbeat), and stops once it released it', async () => {
		const data = join(dir, 'jobs.json');
		const lock = await lockDataFile(data, { heartbeatMs: 5 });
		const before = statSync(lock.path).mtimeMs;
		while (statSync(lock.path).mtimeMs === before) await new Promise((r) => setTimeout(r, 5));
		lock.release();
		expect(existsSync(lock.path)).toBe(false);
	});

	(compiledMainExists ? test : test.skip)(
		'two CLI servers on one --data file, the second through a symlink: it exits 1 saying why; after kill -9, with the pid reused, 20 of 20 acknowledged jobs are back',
		async () => {
			const data = join(dir, 'jobs.json');
			const first = await startCli(['--data', data]);
			// The second is started on a symlink to the first one's file: the same file, so the same lock.
			const link = join(dir, 'link.json');
			symlinkSync(data, link);
			const second = spawn(process.execPath, [COMPILED_MAIN, '--port', '0', '--data', link], { stdio: ['ignore', 'pipe', 'pipe'] });
			let stderr = '';
			second.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
			const code = await new Promise<number | null>((resolve) => second.on('exit', resolve));
			expect(code).toBe(1);
			expect(stderr).toMatch(new RegExp(`^error: data file .*link\\.json \\(the same file as .*jobs\\.json\\) is in use by server pid ${first.child.pid} \\(lock file .*jobs\\.json\\.lock\\): two servers on one data file`));
			const acknowledged: string[] = [];
			for (let i = 0; i < 20; i++) acknowledged.push((await axios.post(`${first.url}/api/v1/jobs`, FLOW)).data.jobId as string);
			// kill -9: the lock stays behind, stale; the next server takes it over and holds every acknowledged job.
			// Its pid is then given to a live process (this one), as a reused pid or a container's PID 1 would be.
			await first.kill();
			const left = JSON.parse(readFileSync(`${data}.lock`, 'utf8')) as LockOwner;
			expect(left.pid).toBe(first.child.pid);
			writeFileSync(`${data}.lock`, JSON.stringify({ ...left, pid: process.pid }));
			const restarted = await startCli(['--data', data]);
			try {
				while (!restarted.stderr().includes('relay apiKey')) await once(restarted.child.stderr!, 'data');
				expect(restarted.stderr()).toContain(`data file: took over a stale lock (pid ${process.pid} is now another process (started at tick `);
				const served = ((await axios.get(`${restarted.url}/api/v1/jobs`)).data as Array<{ id: string }>).map((job) => job.id);
				expect(served.slice().sort()).toEqual(acknowledged.slice().sort());
				const kept = new Set(loadDataFile(data).map((job) => job.id));
				const lost = acknowledged.filter((id) => !kept.has(id)).length;
				expect(lost).toBe(0);
				const figure = `Two servers on one --data file: the second refused (exit ${code}); ${lost} of ${acknowledged.length} acknowledged jobs lost after kill -9 and restart.`;
				process.stdout.write(`${figure}\n`);
				writeMeasuredBlock(join(__dirname, '../../docs/guarantees.md'), 'data-file-lock', 'test/server/dataFileLock.test.ts', figure);
			} finally {
				await restarted.kill();
			}
		},
	);
});

describe('a store with a journal shows a job only once it is saved', () => {
	const catalog = new CatalogIndex(defaultCatalog(), false);
	const input = { flow: catalog.byFileName(FLOW.flowFileName)!, runProfileName: 'default', notificationEnabled: false, parameters: [] };

	test('JobStore has no submit(); only MemoryJobStore, which cannot take a journal, shows a job as it is submitted', () => {
		const journaled = new JobStore({ clock: new ManualClock(), journal: true });
		expect((journaled as unknown as { submit?: unknown }).submit).toBeUndefined();
		const memory = new MemoryJobStore({ clock: new ManualClock(), ...({ journal: true } as object) });
		const { job } = memory.submit(input);
		expect(memory.has(job.id)).toBe(true);
		// A journal option smuggled past the type is ignored: nothing is kept for a data file.
		expect(memory.takeChanges().jobs).toEqual([]);
	});

	test('submitDurably: no reader sees the job while it is being saved; a failed save leaves no job', async () => {
		const store = new JobStore({ clock: new ManualClock(), journal: true });
		let seenDuringSave: boolean | undefined;
		const saved = await submitDurably(store, async () => {
			seenDuringSave = store.count() > 0 || store.list('active').length > 0;
		}, input);
		expect(seenDuringSave).toBe(false);
		expect(store.has(saved.job.id)).toBe(true);
		await expect(submitDurably(store, () => Promise.reject(new Error('ENOSPC')), input)).rejects.toThrow('ENOSPC');
		expect(store.count()).toBe(1);
		expect(store.stagedIds()).toEqual([]);
	});
});
