// The job log the reference server writes (docs/log-format.md) and its formats: timestamps, seconds, runtimes, escaped cells.
import { formatElapsed, formatRuntime, formatSeconds, formatTimestamp } from '../../server';
import { BROKEN, STOPPED, keyValues, parseCells, parseLog, startHarness, submit } from './helpers';
import type { Harness } from './helpers';

const NODE_RE = /^Node (node_\d+) \((.*)\): elapsed (\d+\.\d{3}) seconds(?:, rows (\d+), (\d+(?:\.\d+)?) rows\/s)?$/;
const FINAL_RE = /^Job (.+) finished with status (COMPLETED|ERROR|CANCELLED) in (\d+\.\d{3}) seconds$/;

async function finishedLog(h: Harness, overrides: Record<string, unknown>, ms: number) {
	const { jobId } = await submit(h, overrides);
	h.clock.advance(ms);
	const s = (await h.http.get(`/api/v1/jobs/${jobId}`)).data;
	return { jobId, status: s, entries: parseLog(s.log) };
}

describe('job log grammar (docs/log-format.md)', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness({ concurrency: 10 });
	});
	afterAll(async () => {
		await h.server.close();
	});

	it('writes a COMPLETED log with every message in order, escaping table cells', async () => {
		const parameters = [
			{ name: 'region', type: 'string', value: 'EM|EA\\x\ny' },
			{ name: 'batchSize', type: 'integer', value: 500 },
			{ name: 'ratio', type: 'float', value: '0.5' },
		];
		const { jobId, status, entries } = await finishedLog(h, { notificationEnabled: true, parameters }, 3000);
		expect(entries[0].thread).toBe('main');
		expect(entries[0].level).toBe('INFO');
		expect(keyValues(entries[0].message, 'Job execution details:')).toEqual({
			jobId,
			jobName: 'sales_default',
			jobType: 'RUNPROFILE',
			notificationEnabled: 'true',
		});
		expect(keyValues(entries[1].message, 'Execution details:')).toEqual({
			flowId: '3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10',
			flowName: 'sales',
			type: 'FLOW',
			runItem: '/Shared/Flows/sales.flow',
		});
		expect(entries[2].message).toBe('Parameter set:');
		expect(entries[2].table).toEqual([
			['Name', 'Type', 'Value'],
			['region', 'string', 'EM|EA\\x\ny'],
			['batchSize', 'integer', '500'],
			['ratio', 'float', '0.5'],
		]);
		expect(status.log).toContain('  | region | string | EM\\|EA\\\\x\\ny |');

		const perf = entries.filter((e) => e.level === 'PERFORMANCE');
		expect(perf.length).toBeGreaterThanOrEqual(3);
		expect(perf.length).toBeLessThanOrEqual(9);
		for (const e of perf) {
			expect(e.thread).toBe('worker-1');
			expect(e.message).toMatch(NODE_RE);
		}
		const names = perf.map((e) => (NODE_RE.exec(e.message) as RegExpExecArray)[2]);
		// Catalog node names, including one with parentheses and a pipe.
		expect(names.slice(0, 3)).toEqual(['Read orders', 'Filter (EU | US)', 'Write\\mart'].slice(0, Math.min(3, names.length)));
		const ids = perf.map((e) => (NODE_RE.exec(e.message) as RegExpExecArray)[1]);
		expect(ids).toEqual(ids.map((_, i) => `node_${i + 1}`));
		const elapsedTotal = perf.reduce((sum, e) => sum + Math.round(Number((NODE_RE.exec(e.message) as RegExpExecArray)[3]) * 1000), 0);
		expect(elapsedTotal).toBe(3000);

		const results = entries.find((e) => e.message === 'Execution results:');
		expect(results?.table).toEqual([
			['Step', 'Status', 'Runtime'],
			['Step 1', 'COMPLETED', '1.000 seconds'],
			['Step 2', 'COMPLETED', '1.000 seconds'],
			['Step 3', 'COMPLETED', '1.000 seconds'],
			['Total', 'COMPLETED', '3.000 seconds'],
		]);
		const last = entries[entries.length - 1];
		expect(last.message).toMatch(FINAL_RE);
		expect(last.message).toBe('Job sales_default finished with status COMPLETED in 3.000 seconds');
		expect(last.time).toBe(status.endTimeFormatted);
		expect(entries[0].time).toBe(status.startTimeFormatted);
		// Timestamps never go backwards.
		const times = entries.map((e) => e.time);
		expect([...times].sort()).toEqual(times);
	});

	it('omits the parameter table without parameters and is deterministic for a job', async () => {
		const { jobId, status, entries } = await finishedLog(h, { parameters: [] }, 3000);
		expect(entries.some((e) => e.message.startsWith('Parameter set'))).toBe(false);
		const again = (await h.http.get(`/api/v1/jobs/${jobId}`)).data;
		expect(again.log).toBe(status.log);
	});

	it('adds the failure entry before the results of an ERROR job', async () => {
		const { entries } = await finishedLog(h, { flowFileName: BROKEN }, 1000);
		const i = entries.findIndex((e) => /^Step 2 failed: /.test(e.message));
		expect(i).toBeGreaterThan(0);
		expect(entries[i].thread).toBe('worker-1');
		expect(entries[i].message).toContain('disk full');
		expect(entries[i + 1].message).toBe('Execution results:');
		expect(entries[i + 1].table.slice(-2)).toEqual([
			['Step 2', 'ERROR', '0.500 seconds'],
			['Total', 'ERROR', '1.000 seconds'],
		]);
		expect(entries[entries.length - 1].message).toBe('Job broken_default finished with status ERROR in 1.000 seconds');
	});

	it('adds the cancel entry before the results of a CANCELLED job', async () => {
		const { entries } = await finishedLog(h, { flowFileName: STOPPED }, 1000);
		const i = entries.findIndex((e) => /^Step 4 cancelled: /.test(e.message));
		expect(entries[i].thread).toBe('main');
		expect(entries[i + 1].table[entries[i + 1].table.length - 1]).toEqual(['Total', 'CANCELLED', '1.000 seconds']);
		expect(entries[i + 1].table).toHaveLength(6);
	});

	it('keeps `, ` and line breaks out of key=value messages', async () => {
		const { entries } = await finishedLog(h, { flowFileName: '/Shared/Flows/a, b\nc.flow', runProfileName: 'p, q' }, 3000);
		const kv = keyValues(entries[1].message, 'Execution details:');
		expect(kv.runItem).toBe('/Shared/Flows/a,b c.flow');
		expect(keyValues(entries[0].message, 'Job execution details:').jobName).toBe('a,b c_p,q');
	});
});

describe('formats', () => {
	it('formats timestamps, seconds, runtimes and elapsed times', () => {
		expect(formatTimestamp(Date.UTC(2026, 0, 2, 3, 4, 5, 6))).toBe('2026-01-02 03:04:05.006');
		expect(formatSeconds(1005)).toBe('1.005');
		expect(formatSeconds(2250)).toBe('2.250');
		expect(formatSeconds(0)).toBe('0.000');
		expect(formatRuntime(123456)).toBe('123.456 seconds');
		expect(formatElapsed(0)).toBe('0:00:00');
		expect(formatElapsed(59_999)).toBe('0:00:59');
		expect(formatElapsed(36_000_000 + 61_000)).toBe('10:01:01');
	});

	it('parses escaped cells back', () => {
		expect(parseCells('a\\|b | c\\\\ | d\\ne')).toEqual(['a|b', 'c\\', 'd\ne']);
	});
});
