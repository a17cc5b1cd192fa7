/**
 * One writer per data file for as long as it runs (issue 48): an owner paused at any step of a write while a second
 * server takes its lock over (it judged the owner gone) never acknowledges after it wakes, and never touches the
 * successor's file. Each pause is forced (the owner's fs call is held until the takeover is done), never hoped for.
 * The successor runs in this process and is told the owner is in another pid namespace, so that its heartbeat,
 * not its pid, decides (as for a paused container); the real pid-namespace scenario is pausedOwner.test.ts.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import axios from 'axios';
import fc from 'fast-check';

import { journalFs, loadDataFile, ManualClock, startReferenceServer } from '../../server';
import type { ReferenceServer } from '../../server';
import { DataFileLockLostError, systemFacts } from '../../server/dataFileLock';
import type { LockOptions } from '../../server/dataFileLock';

const HOUR = 3_600_000;
type FsName = 'open' | 'write' | 'fsync' | 'rename' | 'truncate' | 'close';

// The owner's next `name` call matching `which` (its `nth` such call) is held until `resume()`: the owner paused
// right there.
function pauseAt(name: FsName, which: (...args: unknown[]) => boolean = () => true, nth = 1) {
	const fs = journalFs as unknown as Record<FsName, (...args: unknown[]) => Promise<unknown>>;
	const real = fs[name];
	let resume!: () => void;
	const resumed = new Promise<void>((r) => (resume = r));
	let reached!: () => void;
	const paused = new Promise<void>((r) => (reached = r));
	let seen = 0;
	const spy = jest.spyOn(fs, name).mockImplementation((...args: unknown[]) => {
		if (!which(...args) || ++seen < nth) return real(...args);
		spy.mockRestore();
		reached();
		return resumed.then(() => real(...args));
	});
	return { paused, resume, restore: () => spy.mockRestore() };
}

// A successor that cannot check the owner by pid (another pid namespace): the owner's unchanged lock decides.
const successorLock = (): LockOptions => {
	const facts = systemFacts();
	return { facts: { ...facts, self: { ...facts.self, pidns: 'pid:[4026000099]' } }, sleep: () => Promise.resolve() };
};

describe('an owner paused mid-write while its lock is taken over', () => {
	let dir: string;
	let data: string;
	let told: string[];
	const servers: ReferenceServer[] = [];
	beforeEach(() => {
		dir = realpathSync(mkdtempSync(join(tmpdir(), 'jes-fence-')));
		data = join(dir, 'jobs.json');
		told = [];
	});
	afterEach(async () => {
		for (const s of servers.splice(0)) await s.close().catch(() => undefined);
		rmSync(dir, { recursive: true, force: true });
	});

	// The owner's heartbeat never runs here: only its lock going unchanged, then taken over, is seen.
	const startOwner = async () => {
		const s = await startReferenceServer({ dataFile: data, clock: new ManualClock(), lock: { heartbeatMs: HOUR, onLost: (m) => told.push(m) } });
		servers.push(s);
		return s;
	};
	const startSuccessor = async () => {
		const s = await startReferenceServer({ dataFile: data, clock: new ManualClock(), lock: successorLock() });
		servers.push(s);
		expect(s.staleLockTakenOver).toBe('it was not refreshed for 5000 ms (its owner cannot be checked from here)');
		return s;
	};
	const submit = async (s: ReferenceServer) => (await s.submitJob({ flow: s.catalog.byFileName('/Shared/Flows/sales.flow')!, runProfileName: 'default', notificationEnabled: false, parameters: [] })).job.id;
	const lostMessage = (successorPid: number) =>
		`data file ${data} is no longer this server's: its lock file ${data}.lock was taken over by server pid ${successorPid} on host ` +
		`${systemFacts().self.host} (this server was paused, or its disk stalled, longer than its lock's heartbeat allows); it writes ` +
		'nothing more to the file and refuses every job (stop this server)';

	// `write`: after its check, before its write (it writes the file the successor replaced). `fsync`: after its
	// write, before its acknowledgement (its record is in the file the successor read, and it is still refused).
	test.each<[string, FsName]>([
		['before its write', 'write'],
		['after its write, before acknowledging', 'fsync'],
	])('paused %s: the woken owner refuses the job and every later one, saying why; 0 acknowledged jobs lost', async (_when, step) => {
		const owner = await startOwner();
		const acknowledged = [await submit(owner), await submit(owner), await submit(owner)];
		const pause = pauseAt(step);
		const inFlight = submit(owner).then((id) => `acknowledged ${id}`, (err: Error) => err);
		await pause.paused;
		const successor = await startSuccessor();
		acknowledged.push(await submit(successor), await submit(successor));
		pause.resume();
		const refusal = await inFlight;
		expect(refusal).toBeInstanceOf(DataFileLockLostError);
		expect((refusal as Error).message).toBe(lostMessage(process.pid));
		expect(told).toEqual([lostMessage(process.pid)]);
		// Woken: refused before any write, over HTTP too (the error code only, as any failed write).
		const writes = jest.spyOn(journalFs, 'write');
		const answer = await axios.post(`${owner.url}/api/v1/jobs`, { flowFileName: '/Shared/Flows/sales.flow', runProfileName: 'default' }, { validateStatus: () => true });
		expect([answer.status, answer.data]).toEqual([400, { message: 'could not save the job (ELOCKLOST); it was not accepted' }]);
		expect(writes).not.toHaveBeenCalled();
		writes.mockRestore();
		acknowledged.push(await submit(successor));
		// The owner closes: its release leaves the successor's lock.
		const successorLockText = readFileSync(`${data}.lock`, 'utf8');
		await owner.close();
		expect(readFileSync(`${data}.lock`, 'utf8')).toBe(successorLockText);
		acknowledged.push(await submit(successor));
		await successor.close();
		const kept = loadDataFile(data).map((job) => job.id);
		expect(acknowledged.filter((id) => !kept.includes(id))).toEqual([]);
		// Nothing but the acknowledged jobs, and the refused one when it was written before the takeover.
		expect(kept.length).toBe(acknowledged.length + (step === 'fsync' ? 1 : 0));
	});

	// An owner's start writes the file anew (a temp file renamed over it), or opens it to append after cutting an
	// unfinished record: each is reached by path, so each is fenced.
	test.each<[string, FsName, (...args: unknown[]) => boolean]>([
		['before creating its temp file: its check before the rename refuses', 'open', (path) => String(path).endsWith('.tmp')],
		['after that check, before its rename: the successor removed the temp file, the rename fails', 'rename', () => true],
	])('an owner paused starting a new file, %s; the successor keeps its file and its lock', async (_when, step, which) => {
		const pause = pauseAt(step, which);
		const starting = startOwner().then(() => 'started', (err: Error) => err.message);
		await pause.paused;
		const successor = await startSuccessor();
		const acknowledged = [await submit(successor), await submit(successor)];
		const successorLockText = readFileSync(`${data}.lock`, 'utf8');
		pause.resume();
		expect(await starting).toMatch(step === 'open' ? lostMessage(process.pid) : /^ENOENT: no such file or directory, rename /);
		expect(readFileSync(`${data}.lock`, 'utf8')).toBe(successorLockText);
		acknowledged.push(await submit(successor));
		expect(loadDataFile(data).map((job) => job.id)).toEqual(acknowledged);
	});

	test('an owner paused opening the file it appends to: it opens the successor\'s file, and its check refuses before it cuts anything', async () => {
		const first = await startOwner();
		const before = [await submit(first), await submit(first)];
		await first.close();
		servers.length = 0;
		const pause = pauseAt('open', (_path, flags) => flags === 'r+');
		const starting = startOwner().then(() => 'started', (err: Error) => err.message);
		await pause.paused;
		const successor = await startSuccessor();
		const acknowledged = [...before, await submit(successor), await submit(successor)];
		pause.resume();
		expect(await starting).toBe(lostMessage(process.pid));
		acknowledged.push(await submit(successor));
		expect(loadDataFile(data).map((job) => job.id)).toEqual(acknowledged);
	});
	// The model: wherever the owner is paused (any journal fs call, its nth, at its start or in a submission), the
	// takeover loses no acknowledged job, the woken owner acknowledges nothing more, and its release leaves the
	// successor's lock.
	test('generated: an owner paused at any journal fs call, while its lock is taken over, loses no acknowledged job', async () => {
		const steps: FsName[] = ['open', 'write', 'fsync', 'rename', 'truncate', 'close'];
		await fc.assert(
			fc.asyncProperty(fc.boolean(), fc.integer({ min: 0, max: 2 }), fc.constantFrom(...steps), fc.integer({ min: 1, max: 4 }), async (existing, before, step, nth) => {
				rmSync(data, { force: true });
				const acknowledged: string[] = [];
				if (existing) {
					const first = await startOwner();
					acknowledged.push(await submit(first));
					await first.close();
				}
				servers.length = 0;
				let owner: ReferenceServer | undefined;
				const pause = pauseAt(step, () => true, nth);
				const running = (async () => {
					owner = await startOwner();
					for (let i = 0; i <= before; i++) acknowledged.push(await submit(owner));
				})().catch(() => undefined);
				// Paused there, or done without passing there (then the takeover comes after).
				if (!(await Promise.race([pause.paused.then(() => true), running.then(() => false)]))) pause.restore();
				const successor = await startSuccessor();
				acknowledged.push(await submit(successor));
				pause.resume();
				await running;
				if (owner) await expect(submit(owner)).rejects.toThrow(DataFileLockLostError);
				const lockText = readFileSync(`${data}.lock`, 'utf8');
				await owner?.close().catch(() => undefined);
				expect(readFileSync(`${data}.lock`, 'utf8')).toBe(lockText);
				acknowledged.push(await submit(successor));
				await successor.close();
				servers.length = 0;
				const kept = new Set(loadDataFile(data).map((job) => job.id));
				expect(acknowledged.filter((id) => !kept.has(id))).toEqual([]);
			}),
			{ seed: 48, numRuns: 30 },
		);
	});
});
