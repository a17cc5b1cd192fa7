// The reference server's command line: every flag in both forms, bad flags and catalogs, the URL alone on stdout, SIGTERM flushing --data.
import { spawn } from 'child_process';
import { existsSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';

import axios from 'axios';

import { loadDataFile, parseArgs, runCli } from '../../server';

function captureIo() {
	const out: string[] = [];
	const err: string[] = [];
	return { out, err, io: { stdout: (l: string) => out.push(l), stderr: (l: string) => err.push(l) } };
}

describe('CLI arguments', () => {
	it('parses every flag, in both --flag value and --flag=value forms', () => {
		expect(
			parseArgs([
				'--host', '0.0.0.0', '--port=0', '--catalog', 'c.json', '--relay-api-key', 'K', '--user-api-key=U',
				'--step-ms', '250', '--strict', '--data', 'd.json', '--concurrency', '2', '--native-token', 'T',
				'--headers-timeout-ms', '500', '--request-timeout-ms=1500',
			]),
		).toEqual({
			host: '0.0.0.0',
			port: 0,
			catalog: 'c.json',
			relayApiKey: 'K',
			userApiKey: 'U',
			stepMs: 250,
			strict: true,
			dataFile: 'd.json',
			concurrency: 2,
			nativeAuth: { type: 'bearer', token: 'T' },
			headersTimeoutMs: 500,
			requestTimeoutMs: 1500,
		});
		expect(parseArgs([])).toEqual({ port: 8080 });
	});

	it.each([
		[['--bogus']],
		[['--port']],
		[['--port', 'abc']],
		[['--port', '70000']],
		[['--step-ms', '0']],
		[['--concurrency', '-1']],
		[['--request-timeout-ms', '0']],
		[['--headers-timeout-ms', '-5']],
		[['--strict=yes']],
		[['--catalog', '--strict']],
		[['positional']],
	])('exits 2 on %j with a message on stderr', async (argv) => {
		const { out, err, io } = captureIo();
		const r = await runCli(argv, io);
		expect(r.code).toBe(2);
		expect(out).toEqual([]);
		expect(err[0]).toMatch(/^error: /);
		expect(err.join('\n')).toMatch(/usage:/);
	});

	it('exits 1 on a bad catalog file', async () => {
		const { out, err, io } = captureIo();
		const r = await runCli(['--port', '0', '--catalog', '/nonexistent/catalog.json'], io);
		expect(r.code).toBe(1);
		expect(out).toEqual([]);
		expect(err[0]).toMatch(/cannot read \/nonexistent\/catalog\.json/);
	});

	it('starts in-process, prints only the URL on stdout and the keys on stderr', async () => {
		const { out, err, io } = captureIo();
		const r = await runCli(['--port', '0', '--relay-api-key', 'rk', '--user-api-key', 'uk', '--step-ms', '10', '--concurrency', '1'], io);
		const server = r.server;
		if (!server) throw new Error('server did not start');
		try {
			expect(out).toEqual([`http://127.0.0.1:${server.port}`]);
			expect(err.join('\n')).toContain('rk');
			expect(err.join('\n')).toContain('/Shared/Flows/sales.flow');
			const list = await axios.get(`${out[0]}/call/status`, { headers: { apiKey: 'rk', 'user-api-key': 'uk', endpoint: '/api/v1/jobs', method: 'GET' } });
			expect(list.status).toBe(200);
			expect(server.store.concurrency).toBe(1);
			expect(server.store.stepMs).toBe(10);
		} finally {
			await server.close();
		}
	});
});

// REFERENCE_SERVER_MAIN points the test at another build of main.js.
const compiledMain = process.env.REFERENCE_SERVER_MAIN ?? resolve(__dirname, '../../dist/server/main.js');
const describeCompiled = existsSync(compiledMain) ? describe : describe.skip;
if (!existsSync(compiledMain)) {
	// Not an error: the spawn test needs `npm run build` (tsc) first; CI builds before testing.
	console.warn(`skipping the compiled CLI test: ${compiledMain} does not exist (run the build first)`);
}

describeCompiled('compiled CLI (dist/server/main.js)', () => {
	let dir: string;
	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), 'jes-cli-'));
	});
	afterAll(() => {
		rmSync(dir, { recursive: true, force: true });
	});

	it('prints one URL line, serves, and exits 0 on SIGTERM after flushing --data', async () => {
		const dataFile = join(dir, 'jobs.json');
		const child = spawn(process.execPath, [compiledMain, '--port', '0', '--data', dataFile, '--native-token', 'tok'], { stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		child.stderr.on('data', (d) => (stderr += d));
		const url = await new Promise<string>((resolveUrl, reject) => {
			child.stdout.on('data', (d) => {
				stdout += d;
				if (stdout.includes('\n')) resolveUrl(stdout.split('\n')[0]);
			});
			child.on('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
		});
		expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		const denied = await axios.get(`${url}/api/v1/jobs`, { validateStatus: () => true });
		expect(denied.status).toBe(401);
		const r = await axios.post(`${url}/api/v1/jobs`, { flowFileName: '/Shared/Flows/sales.flow', runProfileName: 'default' }, { headers: { Authorization: 'Bearer tok' } });
		expect(r.status).toBe(200);
		const code = await new Promise<number | null>((resolveCode) => {
			child.on('exit', (c) => resolveCode(c));
			child.kill('SIGTERM');
		});
		expect(code).toBe(0);
		expect(stdout.trim().split('\n')).toEqual([url]);
		expect(loadDataFile(dataFile)[0].id).toBe(r.data.jobId);
	});

	it('exits 2 on a bad flag', async () => {
		const child = spawn(process.execPath, [compiledMain, '--nope'], { stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '';
		child.stdout.on('data', (d) => (stdout += d));
		const code = await new Promise<number | null>((resolveCode) => child.on('exit', (c) => resolveCode(c)));
		expect(code).toBe(2);
		expect(stdout).toBe('');
	});
});
