/**
 * The cases of real-size job lists, per log size (issue 26 §1), through n8n's engine against a service on 127.0.0.1
 * that sends exact bytes: the trigger fires for each newly finished job, Get Many returns the 100 jobs and the Job ID
 * list lists them, each log over 65,536 characters cut and saying so. test/nodes/largeLists.test.ts runs them with
 * 100 KiB logs (9.9 MiB lists: past the 8 MiB kept whole, so every rule is at work), the soak tier with 1 MiB logs
 * (100 MiB lists: test/soak/largeLists1MiB.soak.test.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import { cutMarker, LIST_CUT_FIELD, LIST_KEPT_WHOLE_BYTES, listCutNote, MAX_LIST_FIELD_CHARS, transportTiming } from '../nodes/shared/transport';
import { runActionNode } from './engine';
import type { CredentialsMap } from './engine';
import type { Script } from './hostileServer';
import { serversClosedAfterEach } from './hostileServers';
import { jobId, listText, realisticLog } from './largeLists';
import { searchList } from './listSearch';
import { createPoller } from './poller';
import { expectNoSecrets } from './secrets';

export const LISTS_TOKEN = 'lists-token-&<>"\'+/%-9d';
export const listsCredentials = (url: string): CredentialsMap => ({ jobExecutionApi: { baseUrl: url, authType: 'bearerToken', token: LISTS_TOKEN } });
export const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

/** Active and history lists as the script's current texts (a test swaps them between polls). */
export function lists(texts: { active: string; history: string; all?: string }): Script {
	return (request) => {
		if (request.target.endsWith('filter=active')) return { kind: 'raw', text: texts.active };
		if (request.target.endsWith('filter=history')) return { kind: 'raw', text: texts.history };
		return { kind: 'raw', text: texts.all ?? texts.history };
	};
}

/**
 * These cases prove what comes out of large lists, not deadlines (deadlineMeasuresService.test.ts and
 * hostileService.test.ts do): the attempt and call limits are lifted, so a machine busy with other work, on which
 * reading 100 MiB takes several times as long, cannot end a read at its wall ceiling.
 */
export function liftedLimitsForLists(): void {
	const saved = { ...transportTiming, retryDelaysMs: [...transportTiming.retryDelaysMs] };
	beforeAll(() => Object.assign(transportTiming, { retryDelaysMs: [1, 1, 1], attemptMs: 110_000, callMs: 110_000 }));
	afterAll(() => Object.assign(transportTiming, saved));
}

/** The trigger and Get Many over 100 finished jobs with logs of `logBytes`, as one describe block. */
export function describeFinishedJobs(label: string, logBytes: number): void {
	const serve = serversClosedAfterEach();
	describe(`100 finished jobs with ${label} logs`, () => {
		test('the trigger fires once for each of the 10 newly finished jobs; their logs are cut and say so', async () => {
			const texts = { active: listText(range(100, 10), 0, 'RUNNING'), history: listText(range(0, 100), logBytes) };
			expect(texts.history.length).toBeGreaterThan(LIST_KEPT_WHOLE_BYTES);
			const server = await serve(lists(texts));
			const poller = createPoller({ triggerOn: 'statuses', statuses: ['COMPLETED'] }, listsCredentials(server.url));
			expect(await poller.poll()).toBeNull();
			texts.active = '[]';
			texts.history = listText([...range(100, 10), ...range(10, 90)], logBytes);
			const events = (await poller.poll()) ?? [];
			expect(events.map((event) => event.json.id)).toEqual(range(100, 10).map(jobId));
			for (const { json } of events) {
				const full = realisticLog(String(json.id), logBytes);
				expect(json.log === full.slice(0, MAX_LIST_FIELD_CHARS) + cutMarker(full.length - MAX_LIST_FIELD_CHARS)).toBe(true);
				expect(json[LIST_CUT_FIELD]).toEqual({ fields: ['log'], note: listCutNote() });
				expect(json.event).toBe('statusChanged');
			}
			expect(await poller.poll()).toBeNull();
			expect(server.requests).toHaveLength(6);
		}, 120_000);

		test('Get Many returns the 100 jobs, each log cut with its marker, every other field whole; the Job ID list lists them', async () => {
			const text = listText(range(0, 100), logBytes);
			const server = await serve(lists({ active: '[]', history: text, all: text }));
			const result = await runActionNode({ credentials: listsCredentials(server.url), parameters: { resource: 'job', operation: 'getMany', returnAll: true } });
			expect(result.error).toBeUndefined();
			expect(result.json).toHaveLength(100);
			const sent = JSON.parse(text) as IDataObject[];
			result.json.forEach((job, n) => {
				const { log, [LIST_CUT_FIELD]: marker, ...rest } = job;
				const { log: fullLog, ...sentRest } = sent[n];
				expect(rest).toEqual(sentRest);
				expect(log === String(fullLog).slice(0, MAX_LIST_FIELD_CHARS) + cutMarker(String(fullLog).length - MAX_LIST_FIELD_CHARS)).toBe(true);
				expect(marker).toEqual({ fields: ['log'], note: listCutNote() });
			});
			expectNoSecrets(result, listsCredentials(server.url));
			const found = await searchList('searchJobs', { authentication: 'jobExecutionApi' }, listsCredentials(server.url));
			expect(found.results).toHaveLength(100);
			expect(new Set(found.results.map((item) => item.value))).toEqual(new Set(range(0, 100).map(jobId)));
		}, 120_000);

	});
}
