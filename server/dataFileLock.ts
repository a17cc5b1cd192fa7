// One server per --data file, whatever name it is reached by: two servers on one file would each append their own
// view and overwrite the other's jobs. Node has no flock, so the lock is a file named by the data file's real path
// (`<real path>.lock`: a symlink leads to the same lock), created whole and atomically (written aside, then linked),
// holding who owns it: pid, the process's start time, boot id, pid namespace and host name. A data file with more
// than one name (a hard link) is refused: compaction replaces the file by rename, which would split the names.
// Liveness: where the owner's pid means something here (same boot id and pid namespace), the owner is alive when
// that pid runs with the start time the lock recorded (a reused pid is not the owner; a lock naming this very
// process is stale unless this process holds it). Elsewhere (a recreated container, another machine, a reboot)
// the pid proves nothing: the owner refreshes its lock's mtime every second, and a lock left unchanged for five
// seconds is stale. Such an owner may still run (paused): so the lock is checked again, by inode and content (a
// nonce), before and after every journal write (check()), and released only while it is still this one.
// docs/reference-service.md says what this protects against and what not.
import { randomBytes } from 'crypto';
import {
	closeSync, existsSync, fstatSync, futimes, linkSync, lstatSync, openSync, readdirSync, readFileSync, readlinkSync, realpathSync,
	renameSync, rmSync, statSync, writeFileSync,
} from 'fs';
import { hostname } from 'os';
import { basename, dirname, join, resolve } from 'path';

export class DataFileLockedError extends Error {}

// A write of a server whose lock is no longer its own (taken over while it was paused, or removed): refused.
export class DataFileLockLostError extends Error {
	readonly code = 'ELOCKLOST';
}

export interface DataFileLock {
	// The lock file.
	path: string;
	// The data file's real path: the file the journal writes (a symlink is followed, never replaced).
	dataPath: string;
	// Whether a stale lock was taken over, and why it was judged stale.
	tookOverStale: boolean;
	staleReason?: string;
	// The owner taken over was judged by its heartbeat, not its pid: it may still run (paused) and write through
	// its open file, so the new owner must not append to the file it found (it writes a new one and renames it in).
	ownerMayRun: boolean;
	// Throws DataFileLockLostError unless the lock file is still this one (same inode, same content): the journal
	// calls it before each write and again before the write is acknowledged. Once lost, always lost.
	check(): void;
	// Removes the lock file if it is still this one, never a successor's.
	release(): void;
}

// Who holds a lock. `start`, `boot` and `pidns` are '' where the system does not say (no /proc).
export interface LockOwner {
	pid: number;
	start: string;
	boot: string;
	pidns: string;
	host: string;
	// The data file's real path when the lock was taken.
	file: string;
}

// What the lock needs to know of processes; tests give their own.
export interface ProcessFacts {
	self: Omit<LockOwner, 'file'>;
	// The start time of a running pid ('' when the system does not say), undefined when no such process runs.
	startTimeOf(pid: number): string | undefined;
}

export interface LockOptions {
	facts?: ProcessFacts;
	// How often the owner refreshes its lock (default 1 s), and how long a lock whose pid cannot be checked must
	// stay unchanged to be stale (default 5 heartbeats).
	heartbeatMs?: number;
	watchMs?: number;
	sleep?: (ms: number) => Promise<void>;
	// Told once, when the lock is found lost (default: a line on stderr).
	onLost?: (message: string) => void;
}

// The heartbeat of the CLI server's lock, in ms (tests shorten it; default 1000).
export const HEARTBEAT_ENV = 'JES_LOCK_HEARTBEAT_MS';

function heartbeatFromEnv(): number | undefined {
	const ms = Number(process.env[HEARTBEAT_ENV]);
	return Number.isSafeInteger(ms) && ms > 0 ? ms : undefined;
}

const readText = (path: string) => {
	try {
		return readFileSync(path, 'utf8').trim();
	} catch {
		return '';
	}
};

// Field 22 of a /proc/<pid>/stat line (clock ticks after boot), undefined for a zombie (field 3: Z or X, killed
// but not yet reaped by its parent: it holds nothing). Fields are counted after the LAST ')': the name before it
// (field 2, in parentheses) may hold ')' and spaces, and no field after it holds ')'.
export function startTimeFromStat(stat: string): string | undefined {
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return fields[0] === 'Z' || fields[0] === 'X' ? undefined : (fields[19] ?? '');
}

function procStartTime(pid: number): string | undefined {
	let stat: string;
	try {
		stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	} catch {
		return undefined;
	}
	return startTimeFromStat(stat);
}

// Without /proc: alive unless the system says no such process (EPERM: it exists, owned by another user).
export function signalAlive(pid: number): string | undefined {
	try {
		process.kill(pid, 0);
		return '';
	} catch (err) {
		return (err as NodeJS.ErrnoException).code === 'EPERM' ? '' : undefined;
	}
}

export function systemFacts(): ProcessFacts {
	const proc = existsSync('/proc/self/stat');
	let pidns = '';
	try {
		pidns = readlinkSync('/proc/self/ns/pid');
	} catch {
		// No pid namespaces here: the boot id alone says whether a pid can be checked.
	}
	return {
		self: { pid: process.pid, start: (proc && procStartTime(process.pid)) || '', boot: readText('/proc/sys/kernel/random/boot_id'), pidns, host: hostname() },
		startTimeOf: proc ? procStartTime : signalAlive,
	};
}

// The data file's real path; for a file not created yet, its directory's real path and its name (a dangling
// symlink gets its target created, so that the lock is named by the file it will be).
export function realDataPath(dataPath: string): string {
	try {
		return realpathSync(dataPath);
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
	}
	if (lstatSync(dataPath, { throwIfNoEntry: false })?.isSymbolicLink()) {
		closeSync(openSync(dataPath, 'a'));
		return realpathSync(dataPath);
	}
	try {
		return join(realpathSync(dirname(resolve(dataPath))), basename(dataPath));
	} catch {
		return resolve(dataPath);
	}
}

// Lock files held by this process, by data file real path, with their inode.
const heldHere = new Map<string, number>();

interface FoundLock {
	owner: LockOwner | undefined;
	ino: number;
	text: string;
}

function parseOwner(text: string): LockOwner | undefined {
	try {
		const o = JSON.parse(text) as Partial<LockOwner>;
		if (!Number.isSafeInteger(o.pid) || typeof o.host !== 'string') return undefined;
		const str = (v: unknown) => (typeof v === 'string' ? v : '');
		return { pid: o.pid as number, host: o.host, start: str(o.start), boot: str(o.boot), pidns: str(o.pidns), file: str(o.file) };
	} catch {
		return undefined;
	}
}

// The lock's owner and inode read through one descriptor; undefined when there is no lock.
function readLock(lockPath: string): FoundLock | undefined {
	let fd: number;
	try {
		fd = openSync(lockPath, 'r');
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
		throw err;
	}
	try {
		const text = readFileSync(fd, 'utf8');
		return { ino: fstatSync(fd).ino, text, owner: parseOwner(text) };
	} finally {
		closeSync(fd);
	}
}

// Creates the lock whole: written aside, then linked into place (fails if one exists). Where the file system
// has no hard links, an exclusive create, then the write.
function createLock(lockPath: string, content: string): number | undefined {
	const aside = join(dirname(lockPath), `.${basename(lockPath)}.${process.pid}.${randomBytes(4).toString('hex')}.new`);
	writeFileSync(aside, content, { flag: 'wx' });
	try {
		linkSync(aside, lockPath);
		return lstatSync(lockPath).ino;
	} catch (err) {
		const code = (err as NodeJS.ErrnoException).code;
		if (code === 'EEXIST') return undefined;
		if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw err;
		try {
			writeFileSync(lockPath, content, { flag: 'wx' });
		} catch (err2) {
			if ((err2 as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
			throw err2;
		}
		return lstatSync(lockPath).ino;
	} finally {
		rmSync(aside, { force: true });
	}
}

// Removes the stale lock `ino`, and only it: moved aside first, put back if a racing starter's fresh lock was
// moved instead.
export function removeStaleLock(lockPath: string, ino: number): void {
	const aside = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
	try {
		renameSync(lockPath, aside);
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
		throw err;
	}
	try {
		if (lstatSync(aside).ino !== ino) linkSync(aside, lockPath);
	} catch {
		// Another lock was put in place meanwhile: the next attempt reads it.
	} finally {
		rmSync(aside, { force: true });
	}
}

type Verdict = { alive: true } | { alive: false; why: string };

// Decided by the pid where it means something here, else undefined (the heartbeat decides).
export function judgeByPid(owner: LockOwner, facts: ProcessFacts, holdsIt: boolean): Verdict | undefined {
	const me = facts.self;
	// A lock without a boot id (no /proc there, or an older server's) is checked by pid on the same host name only.
	const comparable = owner.boot !== '' ? owner.boot === me.boot && owner.pidns === me.pidns : owner.host === me.host;
	if (!comparable) return undefined;
	if (owner.pid === me.pid) {
		return holdsIt ? { alive: true } : { alive: false, why: `it names this very process (pid ${owner.pid}), which does not hold it: an earlier run with the same pid left it` };
	}
	const start = facts.startTimeOf(owner.pid);
	if (start === undefined) return { alive: false, why: `its process (pid ${owner.pid}) is gone` };
	if (start !== '' && owner.start !== '' && start !== owner.start) {
		return { alive: false, why: `pid ${owner.pid} is now another process (started at tick ${start}, the owner at ${owner.start})` };
	}
	return { alive: true };
}

const stampOf = (lockPath: string) => {
	const st = statSync(lockPath, { throwIfNoEntry: false });
	return st ? `${st.ino}:${st.mtimeMs}` : undefined;
};

// Watches a lock whose pid cannot be checked: changed (its owner's heartbeat) or gone, or unchanged for `watchMs`.
async function watchHeartbeat(lockPath: string, o: Required<Pick<LockOptions, 'heartbeatMs' | 'watchMs' | 'sleep'>>): Promise<'beats' | 'gone' | 'silent'> {
	const first = stampOf(lockPath);
	const step = Math.max(1, Math.floor(o.heartbeatMs / 2));
	for (let waited = 0; first !== undefined && waited < o.watchMs; waited += step) {
		await o.sleep(step);
		const now = stampOf(lockPath);
		if (now === undefined) return 'gone';
		if (now !== first) return 'beats';
	}
	return first === undefined ? 'gone' : 'silent';
}

function lockedError(dataPath: string, real: string, lockPath: string, owner: LockOwner | undefined, self: ProcessFacts['self']): DataFileLockedError {
	const same = resolve(dataPath) === real ? '' : ` (the same file as ${real})`;
	const who = owner ? `server pid ${owner.pid}${owner.host !== self.host ? ` on host ${owner.host}` : ''}` : 'another server';
	return new DataFileLockedError(
		`data file ${dataPath}${same} is in use by ${who} (lock file ${lockPath}): two servers on one data file would overwrite each ` +
			`other's jobs; stop that server, or use another --data file (remove the lock file only if no server uses it)`,
	);
}

// A data file with several names is refused, naming the server that holds one of them if its lock is in the
// same directory as one of the names.
function refuseHardLinks(dataPath: string, real: string): void {
	const st = statSync(real, { throwIfNoEntry: false });
	if (!st || st.nlink <= 1) return;
	let holder: string | undefined;
	for (const dir of new Set([dirname(resolve(dataPath)), dirname(real)])) {
		for (const entry of readdirSync(dir).filter((e) => e.endsWith('.lock'))) {
			const owner = parseOwner(readText(join(dir, entry)));
			const other = owner?.file ? statSync(owner.file, { throwIfNoEntry: false }) : undefined;
			if (owner && other && other.dev === st.dev && other.ino === st.ino) holder = `; it is in use by server pid ${owner.pid} on host ${owner.host} as ${owner.file} (lock file ${join(dir, entry)})`;
		}
	}
	throw new DataFileLockedError(
		`data file ${dataPath} has ${st.nlink} names (hard links)${holder ?? ''}: a server on each name would overwrite the other's jobs, and ` +
			`compaction would split the names; use one name (a symlink is fine) or another --data file`,
	);
}

// The owner keeps its lock's mtime moving (through its descriptor: a lock moved aside is not touched by name), and
// checks that the lock is still its own, so that an owner woken after a takeover says so at once.
// The descriptor is closed only once no touch is in flight, so that a reused descriptor number is never touched.
function startHeartbeat(lockPath: string, heartbeatMs: number, check: () => void): () => void {
	const fd = openSync(lockPath, 'r');
	let last = 0;
	let touching = false;
	let stopped = false;
	const timer = setInterval(() => {
		try {
			check();
		} catch {
			// Told by check() once; every write refuses from now on.
		}
		if (touching) return;
		touching = true;
		last = Math.max(Date.now() / 1000, last + 1);
		futimes(fd, last, last, () => {
			touching = false;
			if (stopped) closeSync(fd);
		});
	}, heartbeatMs);
	timer.unref();
	return () => {
		clearInterval(timer);
		stopped = true;
		if (!touching) closeSync(fd);
	};
}

// Takes the lock of `dataPath`, or throws DataFileLockedError naming the owner.
export async function lockDataFile(dataPath: string, options: LockOptions = {}): Promise<DataFileLock> {
	const facts = options.facts ?? systemFacts();
	const heartbeatMs = options.heartbeatMs ?? heartbeatFromEnv() ?? 1000;
	const watch = { heartbeatMs, watchMs: options.watchMs ?? 5 * heartbeatMs, sleep: options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms))) };
	const real = realDataPath(dataPath);
	const lockPath = `${real}.lock`;
	refuseHardLinks(dataPath, real);
	let staleReason: string | undefined;
	let ownerMayRun = false;
	// A stale lock is removed before ours is written: on a full disk its space is what ours needs.
	for (let attempt = 0; attempt < 8; attempt++) {
		const found = readLock(lockPath);
		if (found) {
			let verdict = found.owner ? judgeByPid(found.owner, facts, heldHere.get(real) === found.ino) : undefined;
			const byHeartbeat = !verdict;
			if (!verdict) {
				const seen = await watchHeartbeat(lockPath, watch);
				if (seen === 'gone') continue;
				verdict = seen === 'beats' ? { alive: true } : { alive: false, why: `it was not refreshed for ${watch.watchMs} ms (its owner cannot be checked from here)` };
			}
			if (verdict.alive) throw lockedError(dataPath, real, lockPath, found.owner, facts.self);
			removeStaleLock(lockPath, found.ino);
			staleReason = verdict.why;
			ownerMayRun ||= byHeartbeat;
		}
		// The nonce makes this lock's content its own, even beside a namesake (PID 1 in two containers).
		const content = JSON.stringify({ ...facts.self, file: real, nonce: randomBytes(8).toString('hex') });
		const ino = createLock(lockPath, content);
		const onLost = options.onLost ?? ((message: string) => process.stderr.write(`error: ${message}\n`));
		if (ino !== undefined) return holdLock({ lockPath, real, ino, content, heartbeatMs, staleReason, ownerMayRun, onLost });
	}
	throw lockedError(dataPath, real, lockPath, undefined, facts.self);
}

interface Held {
	lockPath: string;
	real: string;
	ino: number;
	content: string;
	heartbeatMs: number;
	staleReason: string | undefined;
	ownerMayRun: boolean;
	onLost: (message: string) => void;
}

const isLock = (found: FoundLock | undefined, held: Held) => found?.ino === held.ino && found.text === held.content;

function lostError(held: Held, found: FoundLock | undefined): DataFileLockLostError {
	const why = !found
		? `its lock file ${held.lockPath} was removed`
		: found.owner
			? `its lock file ${held.lockPath} was taken over by server pid ${found.owner.pid} on host ${found.owner.host}`
			: `its lock file ${held.lockPath} was replaced`;
	return new DataFileLockLostError(
		`data file ${held.real} is no longer this server's: ${why} (this server was paused, or its disk stalled, longer than its ` +
			`lock's heartbeat allows); it writes nothing more to the file and refuses every job (stop this server)`,
	);
}

// The fence: passes while the lock file is this one; once it is not, throws for ever (told once).
function ownershipCheck(held: Held): () => void {
	let lost: DataFileLockLostError | undefined;
	return () => {
		if (lost) throw lost;
		// An error reading the lock (EMFILE) is thrown as it is: this write fails, the next one checks again.
		const found = readLock(held.lockPath);
		if (isLock(found, held)) return;
		lost = lostError(held, found);
		held.onLost(lost.message);
		throw lost;
	};
}

// Removes the lock only if it is still this one (inode and content). Checked before the move, so that a
// successor's lock is never moved, not even for a moment; checked again after it, and put back if it changed.
function removeOwnLock(held: Held): void {
	if (!isLock(readLock(held.lockPath), held)) return;
	const aside = `${held.lockPath}.${process.pid}.${randomBytes(4).toString('hex')}.released`;
	try {
		renameSync(held.lockPath, aside);
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
		throw err;
	}
	try {
		if (!isLock(readLock(aside), held)) linkSync(aside, held.lockPath);
	} catch {
		// A newer lock is in place: it stays.
	} finally {
		// It is there: this server just moved it there, and nothing else removes such a name.
		rmSync(aside);
	}
}

function holdLock(held: Held): DataFileLock {
	heldHere.set(held.real, held.ino);
	const check = ownershipCheck(held);
	const stopBeat = startHeartbeat(held.lockPath, held.heartbeatMs, check);
	let released = false;
	return {
		path: held.lockPath,
		dataPath: held.real,
		tookOverStale: held.staleReason !== undefined,
		staleReason: held.staleReason,
		ownerMayRun: held.ownerMayRun,
		check,
		release() {
			if (released) return;
			released = true;
			stopBeat();
			if (heldHere.get(held.real) === held.ino) heldHere.delete(held.real);
			removeOwnLock(held);
		},
	};
}
