// One server per --data file: two servers on one file would each append their own view and overwrite the other's
// jobs. The lock is a file next to the data file (`<data>.lock`) created exclusively, holding the owner's pid.
// A lock whose process is gone (kill -9, a crash) is stale and taken over; a live owner makes the start fail.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'fs';
import { hostname } from 'os';

export class DataFileLockedError extends Error {}

export interface DataFileLock {
	path: string;
	// Whether a stale lock (its process gone) was taken over.
	tookOverStale: boolean;
	release(): void;
}

interface LockOwner {
	pid: number;
	host: string;
}

function readOwner(lockPath: string): LockOwner | undefined {
	try {
		const owner = JSON.parse(readFileSync(lockPath, 'utf8')) as Partial<LockOwner>;
		return Number.isSafeInteger(owner.pid) && typeof owner.host === 'string' ? { pid: owner.pid as number, host: owner.host } : undefined;
	} catch {
		// Unreadable, or half-written by a process killed between create and write: nobody can be holding it.
		return undefined;
	}
}

// Alive unless the system says no such process (EPERM: it exists, owned by another user).
function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (err) {
		return (err as NodeJS.ErrnoException).code === 'EPERM';
	}
}

function createExclusive(lockPath: string): boolean {
	let fd: number;
	try {
		fd = openSync(lockPath, 'wx');
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
		throw err;
	}
	try {
		writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname() }));
	} finally {
		closeSync(fd);
	}
	return true;
}

// Takes the lock of `dataPath`, or throws DataFileLockedError naming the owner.
export function lockDataFile(dataPath: string): DataFileLock {
	const path = `${dataPath}.lock`;
	let tookOverStale = false;
	for (let attempt = 0; !createExclusive(path); attempt++) {
		const owner = readOwner(path);
		const otherHost = owner !== undefined && owner.host !== hostname();
		if (attempt > 0 || otherHost || (owner !== undefined && isAlive(owner.pid))) {
			const who = owner ? `server pid ${owner.pid}${otherHost ? ` on ${owner.host}` : ''}` : 'another server';
			throw new DataFileLockedError(
				`data file ${dataPath} is in use by ${who} (lock file ${path}): two servers on one data file would overwrite each ` +
					`other's jobs; stop that server, or use another --data file (remove the lock file only if no server uses it)`,
			);
		}
		// Its process is gone: a stale lock (kill -9), taken over.
		rmSync(path, { force: true });
		tookOverStale = true;
	}
	let released = false;
	return {
		path,
		tookOverStale,
		release() {
			if (released) return;
			released = true;
			if (readOwner(path)?.pid === process.pid) rmSync(path, { force: true });
		},
	};
}
