/**
 * Soak tier (npm test runs every bomb in-process, in test/nodes/hostileService.test.ts: refused at once, one request).
 * Compression bombs through n8n's engine, each node run in a child process with a 256 MiB heap (testkit/heapCapped.ts),
 * against a real 127.0.0.1 server: a 1 KB brotli answer that decodes to 142,606,336 zeros, a 0.3 MB gzip job whose
 * log decodes to 288 MiB, a 0.5 MB multi-member gzip list of 528 MiB. Before the bounds, the first killed n8n (V8
 * abort after 15 s at 4 GB RSS), the second returned a 288 MiB item, the third was read 4 times and called the
 * service unreachable. Now each child survives, in little memory, with one request and an error that says what the
 * service sent, never "cannot be reached".
 */
import { runHeapCapped } from '../../testkit/heapCapped';
import type { ChildOutcome, ChildRun } from '../../testkit/heapCapped';
import { brotliZeros, gzipJobWithLog, startHostileServer } from '../../testkit/hostileServer';
import type { Answer } from '../../testkit/hostileServer';

const JOB = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const HEAP_MIB = 256;
/** The child's own baseline (n8n-core and the engine loaded) is about 190 MiB; a bomb read whole is gigabytes. */
const RSS_BOUND_MIB = 400;

const credentials = (url: string) => ({ jobExecutionApi: { baseUrl: url, authType: 'bearerToken', token: 'bomb-token-5d2c8e' } });

async function bombRun(answer: Answer, run: Omit<ChildRun, 'credentials'>): Promise<ChildOutcome & { requests: number; wireBytes: number }> {
	const server = await startHostileServer(() => answer);
	try {
		const outcome = await runHeapCapped({ ...run, credentials: credentials(server.url), retryDelaysMs: [250, 1000, 2500] }, { heapMiB: HEAP_MIB, timeoutMs: 60_000 });
		return { ...outcome, requests: server.requests.length, wireBytes: answer.kind === 'encoded' ? answer.bytes.length : 0 };
	} finally {
		await server.close();
	}
}

test('br, gzip and multi-member gzip bombs: the child survives under its heap cap, one request, "larger than N MiB"', async () => {
	const list = (): Answer => ({ kind: 'encoded', encoding: 'gzip', bytes: gzipJobWithLog(JOB, 528, { asList: true }) });
	const [br, gzipLog, gzipList, gzipListTrigger, gzipListSearch] = await Promise.all([
		brotliZeros(136).then((bytes) =>
			bombRun({ kind: 'encoded', encoding: 'br', bytes }, { target: 'action', parameters: { resource: 'job', operation: 'get', jobId: JOB } }),
		),
		bombRun(
			{ kind: 'encoded', encoding: 'gzip', bytes: gzipJobWithLog(JOB, 288) },
			{ target: 'action', parameters: { resource: 'job', operation: 'waitForCompletion', jobId: JOB, waitSettings: { pollInterval: 1, timeout: 30 } } },
		),
		bombRun(list(), { target: 'action', parameters: { resource: 'job', operation: 'getMany', returnAll: true } }),
		// The trigger and the Job ID list read lists as Get Many does; npm test runs them on the 4 MiB bombs only.
		bombRun(list(), { target: 'trigger', parameters: { triggerOn: 'anyChange', startFrom: 'existing' } }),
		bombRun(list(), { target: 'listSearch', parameters: { authentication: 'jobExecutionApi' } }),
	]);
	const figures = { br, gzipLog, gzipList, gzipListTrigger, gzipListSearch };
	process.stdout.write(
		`${Object.entries(figures)
			.map(([name, o]) => `${name}: ${o.wireBytes} B on the wire, ${o.elapsedMs} ms, peak RSS ${o.peakRssMiB} MiB, longest block ${o.maxBlockMs} ms, ${o.requests} request(s)`)
			.join('\n')}\n`,
	);
	for (const [name, outcome] of Object.entries(figures)) {
		expect({ name, code: outcome.code, signal: outcome.signal, stderr: outcome.code === 0 ? '' : outcome.stderrTail }).toEqual({ name, code: 0, signal: null, stderr: '' });
		expect(outcome.requests).toBe(1);
		expect(outcome.peakRssMiB).toBeLessThan(RSS_BOUND_MIB);
		expect(outcome.error).not.toContain('cannot be reached');
		expect(outcome.description).toContain('It was not retried');
	}
	expect(br.wireBytes).toBeLessThan(2048);
	expect(br.error).toBe("The service's answer is larger than 4 MiB (HTTP 200): not read further");
	expect(gzipLog.error).toBe("The service's answer is larger than 4 MiB (HTTP 200): not read further");
	// A list is streamed (not kept) up to 256 MiB: the 528 MiB list stops there, with one long field kept, cut.
	for (const outcome of [gzipList, gzipListTrigger, gzipListSearch]) expect(outcome.error).toBe("The service's answer is larger than 256 MiB (HTTP 200): not read further");
}, 90_000);
