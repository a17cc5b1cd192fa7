// The paused-owner scenario of issue 48, with real processes: an owner in its own pid namespace (a container) is
// paused with SIGSTOP (as `docker pause` or a frozen VM does) while requests are in flight, a second server takes
// its lock over, the owner is woken (SIGCONT) and both are sent jobs. Needs root and unshare(1).
import { spawn, spawnSync } from 'child_process';
import type { ChildProcess } from 'child_process';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';

import axios from 'axios';

import { loadDataFile } from '../../server';
import { HEARTBEAT_ENV } from '../../server/dataFileLock';
import { COMPILED_MAIN, compiledMainExists } from './process';

// Why the scenario cannot run here ('' when it can).
export function pidNamespaceUnavailable(): string {
	if (!compiledMainExists) return 'dist/server/main.js is not compiled';
	if (process.getuid?.() !== 0) return 'needs root for unshare --pid';
	const probe = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true'], { encoding: 'utf8' });
	if (probe.error || probe.status !== 0) return `unshare --pid --fork --mount-proc failed: ${probe.error?.message ?? probe.stderr.trim()}`;
	return '';
}

interface Server {
	url: string;
	// The server's pid here (the owner's is pid 1 in its namespace).
	pid: number;
	child: ChildProcess;
	stderr: () => string;
	exited: Promise<number | null>;
}

// A short heartbeat (100 ms, so a lock left unchanged for 500 ms is stale): the scenario takes about a second.
async function startServer(command: string[], data: string, main: string): Promise<Server> {
	const argv = [...command, process.execPath, main, '--port', '0', '--data', data];
	const child = spawn(argv[0], argv.slice(1), {
		stdio: ['ignore', 'pipe', 'pipe'],
		env: { ...process.env, [HEARTBEAT_ENV]: '100' },
	});
	let stderr = '';
	child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
	const exited = new Promise<number | null>((done) => child.once('exit', done));
	const url = await new Promise<string>((resolve, reject) => {
		let stdout = '';
		child.stdout!.on('data', (d: Buffer) => {
			stdout += d.toString();
			if (stdout.includes('\n')) resolve(stdout.split('\n')[0]);
		});
		void exited.then((code) => reject(new Error(`server exited ${code}: ${stderr}`)));
	});
	// Under unshare, the server is unshare's child.
	const pid = command.length === 0 ? child.pid! : Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim());
	return { url, pid, child, stderr: () => stderr, exited };
}

const FLOW = { flowFileName: '/Shared/Flows/sales.flow', runProfileName: 'default' };

interface Answer {
	server: 'owner' | 'successor';
	// Whether the owner had been woken when the request was sent.
	afterWake: boolean;
	status: number;
	jobId?: string;
	message?: string;
}

const post = async (s: Server, server: Answer['server'], afterWake: boolean): Promise<Answer> => {
	const r = await axios.post(`${s.url}/api/v1/jobs`, FLOW, { validateStatus: () => true });
	return { server, afterWake, status: r.status, jobId: r.data.jobId, message: r.data.message };
};

export interface PausedOwnerRun {
	answers: Answer[];
	acknowledged: string[];
	// Acknowledged jobs the file does not hold once both servers stopped.
	lost: string[];
	ownerStderr: string;
	successorPid: number;
	// What the lock file named once the woken owner had stopped (the successor's, or nothing).
	lockAfterOwnerStopped: string;
}

// Waits until every thread of `pid` is stopped (state T): no heartbeat of the owner can land after this.
async function stopped(pid: number): Promise<void> {
	const state = (tid: string) => readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
	while (!readdirSync(`/proc/${pid}/task`).every((tid) => state(tid) === 'T')) await new Promise((r) => setTimeout(r, 2));
}

const signal = (pid: number, name: NodeJS.Signals) => {
	try {
		process.kill(pid, name);
	} catch {
		// Gone already.
	}
};

// One run: 10 jobs acknowledged by the owner, 3 sent `pauseAfterMs` before it is paused (wherever they then are in
// its write path), 10 to the successor (5 of them while the woken owner is sent 5 at the same time). `main` is the
// server to run (a build of another commit: the before).
export async function pausedOwnerRun(dir: string, pauseAfterMs: number, main = COMPILED_MAIN): Promise<PausedOwnerRun> {
	const data = join(dir, 'jobs.json');
	const owner = await startServer(['unshare', '--pid', '--fork', '--mount-proc', '--kill-child'], data, main);
	let successor: Server | undefined;
	try {
		const answers: Answer[] = [];
		for (let i = 0; i < 10; i++) answers.push(await post(owner, 'owner', false));
		const inFlight = [0, 1, 2].map(() => post(owner, 'owner', false));
		await new Promise((r) => setTimeout(r, pauseAfterMs));
		process.kill(owner.pid, 'SIGSTOP');
		await stopped(owner.pid);
		successor = await startServer([], data, main);
		for (let i = 0; i < 5; i++) answers.push(await post(successor, 'successor', false));
		process.kill(owner.pid, 'SIGCONT');
		answers.push(...(await Promise.all(inFlight)));
		for (let i = 0; i < 5; i++) {
			answers.push(...(await Promise.all([post(owner, 'owner', true), post(successor, 'successor', true)])));
		}
		// The woken owner stops (SIGTERM: it releases its lock, or what it thinks is its lock).
		process.kill(owner.pid, 'SIGTERM');
		await owner.exited;
		const lockAfterOwnerStopped = readFileSync(`${data}.lock`, 'utf8');
		process.kill(successor.pid, 'SIGTERM');
		await successor.exited;
		const acknowledged = answers.filter((a) => a.status === 200 || a.status === 202).map((a) => a.jobId!);
		const kept = new Set(loadDataFile(data).map((job) => job.id));
		return { answers, acknowledged, lost: acknowledged.filter((id) => !kept.has(id)), ownerStderr: owner.stderr(), successorPid: successor.pid, lockAfterOwnerStopped };
	} finally {
		for (const s of [owner, successor]) {
			if (s && s.child.exitCode === null && s.child.signalCode === null) {
				signal(s.pid, 'SIGKILL');
				s.child.kill('SIGKILL');
			}
		}
	}
}

// The rules of one run: no acknowledged job lost; after it is woken the owner acknowledges nothing, and says why;
// the successor acknowledges every job; the owner's release left the successor's lock.
export function expectOneWriter(run: PausedOwnerRun): void {
	expect(run.lost).toEqual([]);
	const woken = run.answers.filter((a) => a.server === 'owner' && a.afterWake);
	expect(woken.map((a) => [a.status, a.message])).toEqual(woken.map(() => [400, 'could not save the job (ELOCKLOST); it was not accepted']));
	expect(run.answers.filter((a) => a.server === 'successor').every((a) => a.status === 200 || a.status === 202)).toBe(true);
	expect(run.acknowledged.length).toBeGreaterThanOrEqual(20);
	expect(run.ownerStderr).toMatch(
		new RegExp(`error: data file \\S+jobs\\.json is no longer this server's: its lock file \\S+jobs\\.json\\.lock was taken over by server pid ${run.successorPid} on host `),
	);
	expect(JSON.parse(run.lockAfterOwnerStopped).pid).toBe(run.successorPid);
}
