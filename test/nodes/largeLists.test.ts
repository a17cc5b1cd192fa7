/**
 * Real-size job lists (issue 26 §1) through n8n's engine against a service on 127.0.0.1 that sends exact bytes
 * (testkit/hostileServer.ts, lists from testkit/largeLists.ts): 100 finished jobs with 100 KiB logs (9.9 MiB on the
 * wire, past the 8 MiB kept whole; the same cases with 1 MiB logs, 100 MiB, run in the soak tier:
 * test/soak/largeLists1MiB.soak.test.ts). The trigger fires for each newly finished job, Get Many returns the 100
 * jobs, the Job ID list lists them (testkit/largeListCases.ts); a list within 8 MiB comes out exactly as the service
 * sent it, a longer one has each field over 65,536 characters cut and its job says so (`cutInList`), at the edges of
 * both bounds. The memory and event-loop figures of one poll, Get Many and the Job ID list over 100 jobs of 1 MiB
 * logs (each in a child process) are in the soak tier: test/soak/largeListsMemory.soak.test.ts.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { cutMarker, LIST_CUT_FIELD, LIST_KEPT_WHOLE_BYTES, listCutNote, MAX_LIST_FIELD_CHARS } from '../../nodes/shared/transport';
import { runActionNode } from '../../testkit/engine';
import { jobStatus } from '../../testkit/hostileServer';
import { serversClosedAfterEach } from '../../testkit/hostileServers';
import { describeFinishedJobs, liftedLimitsForLists, lists, LISTS_TOKEN as TOKEN, listsCredentials as credentials, range } from '../../testkit/largeListCases';
import { jobId, listText, LOG_100_KIB, LOG_1_MIB } from '../../testkit/largeLists';
import { searchList } from '../../testkit/listSearch';
import { createPoller } from '../../testkit/poller';
import { expectNoSecrets } from '../../testkit/secrets';

const serve = serversClosedAfterEach();

liftedLimitsForLists();
describeFinishedJobs('100 KiB', LOG_100_KIB);

/**
 * A list of `count` jobs whose JSON text is exactly `bytes` bytes (ASCII): logs of 60,000 characters (under the
 * per-field cap), the last job's log taking up the rest (under the 2 Mi characters every answer's strings are cut at).
 */
function listOfBytes(count: number, bytes: number): string {
	const jobs = range(0, count).map((n) => ({ ...jobStatus(jobId(n), 'COMPLETED', { start: 1, end: 2 }), log: 'x'.repeat(60_000) }));
	const text = JSON.stringify(jobs);
	const rest = bytes - text.length;
	expect(rest).toBeGreaterThanOrEqual(0);
	jobs[count - 1].log = 'x'.repeat(60_000 + rest);
	const exact = JSON.stringify(jobs);
	expect(Buffer.byteLength(exact)).toBe(bytes);
	return exact;
}

async function getMany(text: string, parameters: INodeParameters = {}): Promise<IDataObject[]> {
	const server = await serve(() => ({ kind: 'raw', text }));
	const result = await runActionNode({ credentials: credentials(server.url), parameters: { resource: 'job', operation: 'getMany', returnAll: true, ...parameters } });
	expect(result.error).toBeUndefined();
	return result.json;
}

describe('the bounds at their edges', () => {
	test(`a list of exactly ${LIST_KEPT_WHOLE_BYTES} bytes comes out as the service sent it (version 1, as before); one byte more has its long fields cut`, async () => {
		const whole = listOfBytes(130, LIST_KEPT_WHOLE_BYTES);
		// Compared as text: a failing diff of 8 MiB would drown the report.
		expect(JSON.stringify(await getMany(whole)) === JSON.stringify(JSON.parse(whole))).toBe(true);
		const over = listOfBytes(130, LIST_KEPT_WHOLE_BYTES + 1);
		const jobs = await getMany(over);
		const sent = JSON.parse(over) as IDataObject[];
		expect(JSON.stringify(jobs.slice(0, 129)) === JSON.stringify(sent.slice(0, 129))).toBe(true);
		const last = sent[129].log as string;
		expect(last.length).toBeGreaterThan(MAX_LIST_FIELD_CHARS);
		expect(jobs[129].log === last.slice(0, MAX_LIST_FIELD_CHARS) + cutMarker(last.length - MAX_LIST_FIELD_CHARS)).toBe(true);
		expect(jobs[129][LIST_CUT_FIELD]).toEqual({ fields: ['log'], note: listCutNote() });
	}, 60_000);

	test(`past ${LIST_KEPT_WHOLE_BYTES} bytes, a field of exactly ${MAX_LIST_FIELD_CHARS} characters is kept whole, one more is cut; nested fields name their top field`, async () => {
		const filler = range(0, 130).map((n) => ({ ...jobStatus(jobId(n), 'COMPLETED'), log: 'f'.repeat(MAX_LIST_FIELD_CHARS) }));
		const atCap = { ...jobStatus('at-cap', 'COMPLETED'), log: 'a\n"é'.repeat(MAX_LIST_FIELD_CHARS / 4) };
		const over = { ...jobStatus('over', 'ERROR'), log: 'b'.repeat(MAX_LIST_FIELD_CHARS + 1), error: { trace: 'c'.repeat(MAX_LIST_FIELD_CHARS + 2) } };
		const text = JSON.stringify([atCap, over, ...filler]);
		expect(text.length).toBeGreaterThan(LIST_KEPT_WHOLE_BYTES);
		const jobs = await getMany(text, { returnAll: false, limit: 2 });
		expect(JSON.stringify(jobs[0]) === JSON.stringify(atCap)).toBe(true);
		expect(jobs[1][LIST_CUT_FIELD]).toEqual({ fields: ['log', 'error'], note: listCutNote() });
		expect(JSON.stringify(jobs[1]) === JSON.stringify({
			...over,
			log: 'b'.repeat(MAX_LIST_FIELD_CHARS) + cutMarker(1),
			error: { trace: 'c'.repeat(MAX_LIST_FIELD_CHARS) + cutMarker(2) },
			[LIST_CUT_FIELD]: { fields: ['log', 'error'], note: listCutNote() },
		})).toBe(true);
	}, 60_000);

	test('Parse Log on a log cut in the list says so instead of parsing half a log; a whole log still parses', async () => {
		const text = listText(range(0, 10), LOG_1_MIB);
		const [cut] = await getMany(text, { returnAll: false, limit: 1, options: { parseLog: true } });
		expect(cut.logParsed).toBeNull();
		expect(cut.logNotParsed).toBe(`The log was cut in the job list (see "${LIST_CUT_FIELD}"): read the job by its ID (Get) to parse its log whole.`);
		const small = listText(range(0, 2), 1000);
		const [whole] = await getMany(small, { returnAll: false, limit: 1, options: { parseLog: true } });
		expect(whole.logNotParsed).toBeUndefined();
		expect(whole.logParsed).not.toBeUndefined();
	}, 60_000);

	test('a key echoed in a cut log is redacted before the cut: no part of it stays at the edge', async () => {
		const log = `${'l'.repeat(MAX_LIST_FIELD_CHARS - 6)} ${TOKEN}\n${'t'.repeat(LIST_KEPT_WHOLE_BYTES)}`;
		const text = JSON.stringify([{ ...jobStatus('echo', 'COMPLETED'), log }]);
		const [job] = await getMany(text);
		// A key is found as a token (redaction.ts), so a space stands before it, as in a log line.
		expect(String(job.log).startsWith(`${'l'.repeat(MAX_LIST_FIELD_CHARS - 6)} `)).toBe(true);
		expect(String(job.log)).not.toContain(TOKEN.slice(0, 5));
		expect(job[LIST_CUT_FIELD]).toEqual({ fields: ['log'], note: listCutNote() });
	}, 60_000);
});

describe(`a key in a short field of a list over ${LIST_KEPT_WHOLE_BYTES} bytes (no field of it is cut)`, () => {
	// The service echoes the request's header line into a job's name and message: fields far under the 65,536
	// characters at which the list reader cuts (and redacts), so only the final redaction of the built list hides them.
	const echoed = `authorization: Bearer ${TOKEN}`;
	const text = JSON.stringify([
		{ ...jobStatus(jobId(0), 'COMPLETED', { start: 1, end: 2 }), jobName: `sales ${TOKEN}`, message: echoed, log: 'x'.repeat(60_000) },
		...range(1, 140).map((n) => ({ ...jobStatus(jobId(n), 'COMPLETED', { start: 1, end: 2 }), log: 'x'.repeat(60_000) })),
	]);

	test('Get Many, the trigger and the Job ID list show no form of it', async () => {
		expect(Buffer.byteLength(text)).toBeGreaterThan(LIST_KEPT_WHOLE_BYTES);
		const server = await serve(lists({ active: '[]', history: text, all: text }));
		const many = await runActionNode({ credentials: credentials(server.url), parameters: { resource: 'job', operation: 'getMany', returnAll: true } });
		expect(many.error).toBeUndefined();
		expect(many.json).toHaveLength(141);
		expect(many.json[0][LIST_CUT_FIELD]).toBeUndefined();
		expectNoSecrets(many, credentials(server.url));
		expect(JSON.stringify(many.json[0])).not.toContain(TOKEN);
		const events = (await createPoller({ triggerOn: 'anyChange', startFrom: 'existing' }, credentials(server.url)).poll()) ?? [];
		expect(events).toHaveLength(141);
		expect(JSON.stringify(events.map((event) => event.json))).not.toContain(TOKEN);
		const found = await searchList('searchJobs', { authentication: 'jobExecutionApi' }, credentials(server.url));
		expect(found.results).toHaveLength(141);
		expect(JSON.stringify(found.results)).not.toContain(TOKEN);
	}, 60_000);
});
