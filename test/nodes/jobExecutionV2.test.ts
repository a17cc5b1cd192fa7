/**
 * Version 2 of the action node (issue 27 §1-4, 6, 7) through n8n's engine, against services that list jobs oldest
 * first: jobId on every job item, Simplify on by default (Output as an AI tool), Get Many newest first with Sort and
 * time filters, names picked from the service's lists, the log as a file, and the hints.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import type { IDataObject, INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { ACTION_NODE_TYPE, NODE_NAME, nodeClasses, runActionNode, TRIGGER_NODE_TYPE } from '../../testkit/engine';
import type { RunNodeOptions, RunNodeResult } from '../../testkit/engine';
import { advanceWhileWaiting, BROKEN, credentialsFor, NATIVE_TOKEN, SALES, startFixture } from '../../testkit/fixtures';
import { isoInZone, labelInZone } from '../../nodes/shared/jobVocabulary';
import type { Fixture } from '../../testkit/fixtures';
import { searchList } from '../../testkit/listSearch';
import { startScriptedJobService } from '../../testkit/scriptedJobService';
import type { Job, ScriptedJobService } from '../../testkit/scriptedJobService';
import { JobExecution } from '../../nodes/JobExecution/JobExecution.node';
import { distinctLogFileName, logFileName } from '../../nodes/JobExecution/helpers/jobItems';
import fc from 'fast-check';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SUMMARY_KEYS = ['jobId', 'executionStatus', 'outcome', 'flowName', 'runProfileName', 'startTime', 'endTime', 'runtimeSeconds', 'stepsCompleted', 'stepsTotal'];

// The variant n8n builds for AI agents from a usableAsTool node: the same node, its type name ending in "Tool"
// (n8n's convertNodeToAiTool, packages/cli/src/.../convert-node-to-ai-tool: description.name += 'Tool').
const TOOL_NODE_TYPE = `${ACTION_NODE_TYPE}Tool`;
const toolNode: INodeType = new JobExecution();
toolNode.description = { ...toolNode.description, name: `${toolNode.description.name}Tool` };
nodeClasses[TOOL_NODE_TYPE] = toolNode;

/** Resolves once `probe` holds (a test waits for what the service saw, never for a time). */
async function until(probe: () => boolean): Promise<void> {
	while (!probe()) await new Promise((resolve) => setTimeout(resolve, 10));
}

const hintsOf = (result: RunNodeResult) => (result.run.data.resultData.runData[NODE_NAME]?.[0]?.hints ?? []).map((hint) => hint.message);

describe('version 2 against the reference server listing jobs oldest first', () => {
	let fx: Fixture;
	const run = (parameters: IDataObject, extra: Partial<RunNodeOptions> = {}) =>
		runActionNode({ credentials: fx.credentials, typeVersion: 2, ...extra, parameters: { authentication: fx.authentication, resource: 'job', ...parameters } as RunNodeOptions['parameters'] });
	const submit = async (runProfileName: string, flow = SALES) => {
		const result = await run({ operation: 'submit', ...fx.flow(flow), runProfileName });
		expect(result.error).toBeUndefined();
		return result.json[0].jobId as string;
	};

	beforeEach(async () => {
		fx = await startFixture('native', { listOrder: 'oldestFirst' });
	});
	afterEach(async () => {
		await fx.server.close();
	});

	test('§1 every item that describes a job carries jobId: Get (every shape), Get Many, Wait, Submit with and without wait', async () => {
		const jobId = await submit('default');
		fx.clock.advance(60_000);
		const shapes = [{}, { simplify: false }, { options: { statusOnly: true } }];
		for (const shape of shapes) expect((await run({ operation: 'get', jobId, ...shape })).json[0].jobId).toBe(jobId);
		expect((await run({ operation: 'getMany' })).json.map((job) => job.jobId)).toEqual([jobId]);
		expect((await run({ operation: 'waitForCompletion', jobId, simplify: false })).json[0]).toMatchObject({ jobId, id: jobId });
		const timer = setInterval(() => fx.clock.advance(60_000), 20);
		try {
			const options = { logAsFile: true };
			const waited = await run({ operation: 'submit', ...fx.flow(SALES), runProfileName: 'default', waitForCompletion: true, waitSettings: { pollInterval: 1 }, options });
			expect(waited.json[0].jobId).toMatch(UUID);
			expect(Object.keys(waited.json[0])).toEqual(SUMMARY_KEYS);
			// §6 on Submit with wait too: the log of the job it waited for, in the default binary property.
			const log = fx.server.store.status(waited.json[0].jobId as string)?.log as string;
			expect(Buffer.from(waited.items[0].binary!.data.data, 'base64').toString('utf8')).toBe(log);
		} finally {
			clearInterval(timer);
		}
		const url = await run({ resource: 'flow', operation: 'getNavigationUrl', flowFileName: SALES.path, runProfile: 'default' });
		expect(url.json[0]).toEqual({ navigationUrl: `${fx.server.url}/api/v1/flows?flowFileName=%2FShared%2FFlows%2Fsales.flow&runProfile=default`, flowFileName: SALES.path, runProfileName: 'default' });
	});

	test('§2 Simplify is on by default: ten flat fields, times as ISO, progress as numbers, the outcome to branch on', async () => {
		const jobId = await submit('default');
		fx.clock.advance(1500);
		const running = (await run({ operation: 'get', jobId })).json[0];
		expect(Object.keys(running)).toEqual(SUMMARY_KEYS);
		expect(running).toMatchObject({ jobId, executionStatus: 'RUNNING', outcome: null, flowName: 'sales', runProfileName: 'default', endTime: null, stepsCompleted: 1, stepsTotal: 3 });
		expect(running.startTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
		fx.clock.advance(60_000);
		const done = (await run({ operation: 'get', jobId })).json[0];
		expect(done).toMatchObject({ executionStatus: 'COMPLETED', outcome: 'completed', runtimeSeconds: 3, stepsCompleted: 3, stepsTotal: 3 });
		const raw = (await run({ operation: 'get', jobId, simplify: false })).json[0];
		expect(typeof raw.log).toBe('string');
		expect(raw.currentStepDescription).toBe('Step 3 (3)');
	});

	test('§2 as an AI tool: Output is Simplified by default, Raw gives every field, Selected Fields the chosen ones and jobId', async () => {
		const jobId = await submit('default');
		fx.clock.advance(60_000);
		const tool = (parameters: IDataObject) => run({ operation: 'get', jobId, ...parameters }, { nodeType: TOOL_NODE_TYPE });
		expect(Object.keys((await tool({})).json[0])).toEqual(SUMMARY_KEYS);
		expect((await tool({ simplify: true, output: 'raw' })).json[0]).toMatchObject({ jobId, id: jobId, jobName: 'sales_default' });
		expect((await tool({ output: 'selected', fields: ['executionStatus', 'runtimeFormatted'] })).json[0]).toEqual({ jobId, executionStatus: 'COMPLETED', runtimeFormatted: '3.000 seconds' });
		expect((await tool({ output: 'selected', fields: ['password'] })).error?.message).toMatch(/^Fields must be among jobType/);
	});

	test('§3 Get Many is newest first whatever the service sends: Limit 10 returns the 10 newest; Sort and time filters', async () => {
		const ids: string[] = [];
		for (let i = 0; i < 15; i++) {
			ids.push(await submit(`p${i}`));
			fx.clock.advance(60_000);
		}
		const listed = (await run({ operation: 'getMany', scope: 'history' })).json;
		expect(listed).toHaveLength(15);
		const newest = (await run({ operation: 'getMany', scope: 'history', limit: 10 })).json.map((job) => job.jobId);
		expect(newest).toEqual(ids.slice(5).reverse());
		// Version 1 passes the service's order on: here, the ten oldest.
		const v1 = await run({ operation: 'getMany', scope: 'history', limit: 10 }, { typeVersion: 1 });
		expect(v1.json.map((job) => job.id)).toEqual(ids.slice(0, 10));
		const oldestByEnd = await run({ operation: 'getMany', scope: 'history', limit: 3, sort: { field: 'endTime', direction: 'ascending' } });
		expect(oldestByEnd.json.map((job) => job.jobId)).toEqual(ids.slice(0, 3));
		const start = Date.parse(listed[14].startTime as string);
		// Jobs started a minute apart: started at or after the 3rd, before the 6th → the 3rd, 4th and 5th.
		const window = { startedAfter: new Date(start + 2 * 60_000).toISOString(), startedBefore: new Date(start + 5 * 60_000).toISOString() };
		const inWindow = await run({ operation: 'getMany', scope: 'history', filters: window });
		expect(inWindow.json.map((job) => job.jobId)).toEqual([ids[4], ids[3], ids[2]]);
		// n8n's date picker writes no zone: the text is read in the workflow's time zone (n8n's default, New York: UTC-5 in November).
		const newYork = (ms: number) => new Date(ms - 5 * 3600_000).toISOString().slice(0, 19);
		const picked = await run({ operation: 'getMany', scope: 'history', filters: { startedAfter: newYork(start + 2 * 60_000), startedBefore: newYork(start + 5 * 60_000) } });
		expect(picked.json.map((job) => job.jobId)).toEqual([ids[4], ids[3], ids[2]]);
		const endedBefore = await run({ operation: 'getMany', scope: 'history', filters: { endedBefore: new Date(start + 3_000).toISOString() } });
		expect(endedBefore.json.map((job) => job.jobId)).toEqual([]);
		const endedByThen = await run({ operation: 'getMany', scope: 'history', filters: { endedBefore: new Date(start + 3_001).toISOString() } });
		expect(endedByThen.json.map((job) => job.jobId)).toEqual([ids[0]]);
		expect((await run({ operation: 'getMany', filters: { endedAfter: 'yesterday-ish' } })).error?.message).toMatch(/^Ended After filter must be a date and time, got "yesterday-ish"/);
	});

	test('§4 Flow Name and Run Profile come from the lists the service holds, and are used as picked', async () => {
		await submit('nightly');
		await submit('default');
		await submit('nightly', { path: '/Shared/Flows/broken.flow', id: 'c41d7a90-93e5-4f1b-8e26-7b0a5c6d9e12' });
		fx.clock.advance(1500);
		const parameters = { authentication: fx.authentication, resource: 'job', operation: 'getMany' };
		expect((await searchList('searchRunProfiles', parameters, fx.credentials)).results).toEqual([
			{ name: 'default', value: 'default' },
			{ name: 'nightly', value: 'nightly' },
		]);
		expect((await searchList('searchFlowNames', parameters, fx.credentials, 'BRO')).results).toEqual([{ name: 'broken', value: 'broken' }]);
		const picked = { __rl: true, mode: 'list', value: 'nightly' };
		const filtered = await run({ operation: 'getMany', filters: { runProfileName: picked, flowName: { __rl: true, mode: 'name', value: 'sales' } } });
		expect(filtered.json.map((job) => [job.flowName, job.runProfileName])).toEqual([['sales', 'nightly']]);
		const submitted = await run({ operation: 'submit', ...fx.flow(SALES), runProfileName: { __rl: true, mode: 'list', value: 'weekly' } });
		expect(submitted.json[0].runProfileName).toBe('weekly');
		expect(fx.server.store.status(submitted.json[0].jobId as string)?.runProfileName).toBe('weekly');
	});

	test('§6 Log as File puts the log in a binary property as a text/plain .log file (Get, Wait)', async () => {
		const jobId = await submit('default');
		fx.clock.advance(60_000);
		const log = fx.server.store.status(jobId)?.log as string;
		for (const operation of ['get', 'waitForCompletion']) {
			const result = await run({ operation, jobId, options: { logAsFile: true, logFileProperty: 'jobLog' } });
			const file = result.items[0].binary?.jobLog;
			expect(file).toMatchObject({ mimeType: 'text/plain', fileName: `job-${jobId}.log`, fileExtension: 'log' });
			expect(Buffer.from(file!.data, 'base64').toString('utf8')).toBe(log);
			expect(result.items[0].json.jobId).toBe(jobId);
		}
		expect((await run({ operation: 'get', jobId })).items[0].binary).toBeUndefined();
	});
});

describe('issue 36 on version 2.1, against the reference server', () => {
	let fx: Fixture;
	const NEW_YORK = 'America/New_York'; // n8n's default workflow time zone (the engine's workflows set none)
	const run = (parameters: IDataObject, typeVersion = 2.1) =>
		runActionNode({ credentials: fx.credentials, typeVersion, parameters: { authentication: fx.authentication, resource: 'job', ...parameters } as RunNodeOptions['parameters'] });
	beforeEach(async () => {
		fx = await startFixture('native', { listOrder: 'oldestFirst' });
	});
	afterEach(async () => {
		await fx.server.close();
	});

	test('row 1: the time shown is the time typed: Simplify writes times in the workflow\'s zone, the filters read typed times in it, numbers as the jobs\' times', async () => {
		const ids: string[] = [];
		for (let i = 0; i < 3; i++) {
			ids.push((await run({ operation: 'submit', ...fx.flow(SALES), runProfileName: 'default' })).json[0].jobId as string);
			fx.clock.advance(60_000);
		}
		const listed = (await run({ operation: 'getMany', scope: 'history' })).json;
		const start = Date.parse(listed[1].startTime as string);
		// The second job's start as 2.1 shows it: in New York, with its offset; version 2 shows the same instant in UTC.
		expect(listed[1].startTime).toBe(isoInZone(start, NEW_YORK));
		expect(listed[1].startTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}-0[45]:00$/);
		expect((await run({ operation: 'getMany', scope: 'history' }, 2)).json[1].startTime).toBe(new Date(start).toISOString());
		// Typed back as n8n's date picker writes it (no zone): the same instant, so the second and third jobs started at or after it.
		const typed = (listed[1].startTime as string).slice(0, 23);
		const after = await run({ operation: 'getMany', scope: 'history', filters: { startedAfter: typed } });
		expect(after.json.map((job) => job.jobId)).toEqual([ids[2], ids[1]]);
		const oneMsLater = (await run({ operation: 'getMany', scope: 'history', filters: { startedAfter: isoInZone(start + 1, NEW_YORK).slice(0, 23) } })).json;
		expect(oneMsLater.map((job) => job.jobId)).toEqual([ids[2]]);
		// $now.toSeconds() and $now.toMillis(): epoch seconds and milliseconds, read as such.
		expect((await run({ operation: 'getMany', scope: 'history', filters: { startedBefore: start / 1000 } })).json.map((job) => job.jobId)).toEqual([ids[0]]);
		expect((await run({ operation: 'getMany', scope: 'history', filters: { startedBefore: start } })).json.map((job) => job.jobId)).toEqual([ids[0]]);
		const refused = await run({ operation: 'getMany', scope: 'history', filters: { startedBefore: 12_345_678 } });
		expect(refused.error?.message).toBe('Started Before filter must be a date and time, got 12345678 [item 0]');
		expect(refused.error?.description).toBe("A date and time without a zone is read in the workflow's time zone (America/New_York); a number is epoch seconds (10 digits) or milliseconds (13 digits).");
		// The Job ID list: each start time in the workflow's zone, its offset said.
		const names = (await searchList('searchJobs', { authentication: fx.authentication, resource: 'job', operation: 'get' }, fx.credentials, undefined, { typeVersion: 2.1 })).results.map((item) => item.name);
		expect(names[1]).toBe(`sales · default · COMPLETED · ${labelInZone(start, NEW_YORK)}`);
		expect(names[1]).toMatch(/ [-+]\d\d:\d\d$/);		// Row 9: 2.1's Sort is one row (By and Direction together); version 2's collection is read as before.
		const oldest = await run({ operation: 'getMany', scope: 'history', limit: 2, sort: { property: { field: 'startTime', direction: 'ascending' } } });
		expect(oldest.json.map((job) => job.jobId)).toEqual([ids[0], ids[1]]);
		const v2Sort = await run({ operation: 'getMany', scope: 'history', limit: 2, sort: { direction: 'ascending' } }, 2);
		expect(v2Sort.json.map((job) => job.jobId)).toEqual([ids[0], ids[1]]);
		const sorts = nodeClasses[ACTION_NODE_TYPE].description.properties.filter((property) => property.name === 'sort').map((property) => property.type);
		expect(sorts).toEqual(['collection', 'fixedCollection']);
	});

	test('issue 49: in a workflow whose zone is Asia/Kolkata, Simplify and Parse Log write that zone\'s time with its offset; a typed time filters at the instant shown', async () => {
		const KOLKATA = 'Asia/Kolkata';
		const inKolkata = (parameters: IDataObject) =>
			runActionNode({ credentials: fx.credentials, typeVersion: 2.1, timezone: KOLKATA, parameters: { authentication: fx.authentication, resource: 'job', ...parameters } as RunNodeOptions['parameters'] });
		const jobId = (await run({ operation: 'submit', ...fx.flow(SALES), runProfileName: 'default' })).json[0].jobId as string;
		fx.clock.advance(60_000);
		const [got] = (await inKolkata({ operation: 'get', jobId, options: { parseLog: true } })).json;
		const raw = fx.server.store.status(jobId) as { startTime: number; endTime: number };
		expect([got.startTime, got.endTime]).toEqual([isoInZone(raw.startTime, KOLKATA), isoInZone(raw.endTime, KOLKATA)]);
		expect(got.startTime).toMatch(/\+05:30$/);
		// Every entry of the parsed log: the log's UTC time, written in the workflow's zone (the same instant).
		const entries = (got.logParsed as { entries: Array<{ time: string }> }).entries;
		const rawEntries = (await run({ operation: 'get', jobId, simplify: false, options: { parseLog: true } }, 2)).json[0].logParsed as { entries: Array<{ time: string }> };
		expect(entries.length).toBeGreaterThan(3);
		expect(entries.map((entry) => entry.time)).toEqual(rawEntries.entries.map((entry) => isoInZone(Date.parse(`${entry.time.replace(' ', 'T')}Z`), KOLKATA)));
		// The start time shown, typed back without its offset: the job started at it, not a millisecond later.
		const typed = (got.startTime as string).slice(0, 23);
		expect((await inKolkata({ operation: 'getMany', scope: 'history', filters: { startedAfter: typed } })).json.map((job) => job.jobId)).toEqual([jobId]);
		expect((await inKolkata({ operation: 'getMany', scope: 'history', filters: { startedBefore: typed } })).json).toEqual([]);
	});

	test('issue 49: a wall time that happens twice or never in the workflow\'s zone, an impossible date, an unknown zone: refused naming the filter, asking for the offset', async () => {
		const refused = async (filters: IDataObject, timezone?: string) => {
			const result = await runActionNode({ credentials: fx.credentials, typeVersion: 2.1, timezone, parameters: { authentication: fx.authentication, resource: 'job', operation: 'getMany', scope: 'history', filters } as RunNodeOptions['parameters'] });
			return [result.error?.message, result.error?.description];
		};
		expect(await refused({ startedAfter: '2026-11-01T01:30' })).toEqual([
			'Started After filter happens twice in the workflow\'s time zone (America/New_York), got "2026-11-01T01:30": add its offset [item 0]',
			'The clocks go back then: 2026-11-01T01:30:00.000-04:00 is the first time, 2026-11-01T01:30:00.000-05:00 the second. Write the one you mean, with its offset (-04:00 or -05:00).',
		]);
		expect((await refused({ endedBefore: '2026-03-08 02:30' }))[0]).toBe('Ended Before filter never happens in the workflow\'s time zone (America/New_York), got "2026-03-08 02:30": add its offset [item 0]');
		expect(await refused({ startedBefore: '2026-02-30' })).toEqual([
			'Started Before filter is not a real date and time, got "2026-02-30" [item 0]',
			'No calendar has that day or time (a 30 February, an hour 24): Luxon, n8n\'s date library, calls it invalid.',
		]);
		expect((await refused({ endedAfter: '2026-11-21T10:00' }, 'Mars/Olympus'))[0]).toBe('Ended After filter has no offset and the workflow\'s time zone "Mars/Olympus" is unknown, got "2026-11-21T10:00": add its offset [item 0]');
		// With its offset, each is an instant: read, whatever the zone.
		expect(await refused({ startedAfter: '2026-11-01T01:30-05:00', endedAfter: '2026-11-21T10:00Z' }, 'Mars/Olympus')).toEqual([undefined, undefined]);
		// Output in an unknown zone: UTC, and said once.
		const jobId = (await run({ operation: 'submit', ...fx.flow(SALES), runProfileName: 'default' })).json[0].jobId as string;
		fx.clock.advance(60_000);
		const mars = await runActionNode({ credentials: fx.credentials, typeVersion: 2.1, timezone: 'Mars/Olympus', parameters: { authentication: fx.authentication, resource: 'job', operation: 'getMany', scope: 'history' } as RunNodeOptions['parameters'] });
		expect(mars.json.map((job) => job.jobId)).toEqual([jobId]);
		expect(mars.json[0].startTime).toMatch(/\+00:00$/);
		expect(hintsOf(mars)).toEqual(['The workflow\'s time zone "Mars/Olympus" is not one this n8n knows: times are shown in UTC (+00:00). Set the time zone in the workflow\'s settings.']);
		expect(hintsOf(await run({ operation: 'getMany', scope: 'history' }))).toEqual([]);
	});

	test('rows 2 and 5: a failed job\'s error and Simplify carry why it failed; the step it failed in is not counted as completed', async () => {
		const stop = advanceWhileWaiting(fx.clock, 1000);
		try {
			const failed = await run({ operation: 'submit', ...fx.flow(BROKEN), runProfileName: 'default', waitForCompletion: true, waitSettings: { pollInterval: 1 } });
			// Issue 49: 2.1 says the step and why, without the log line's time stamp, thread and level.
			expect(failed.error?.message).toMatch(/^Job [0-9a-f-]{36} ended with status ERROR: Step 2 failed: Node node_\d+ \(.+\) failed: node raised an error$/);
			const data = await run({ operation: 'submit', ...fx.flow(BROKEN), runProfileName: 'default', waitForCompletion: true, waitSettings: { pollInterval: 1, onJobFailure: 'returnData' } });
			expect(data.json[0]).toMatchObject({ executionStatus: 'ERROR', outcome: 'failed', stepsCompleted: 1, stepsTotal: 2 });
			expect(Object.keys(data.json[0])).toEqual(['jobId', 'executionStatus', 'outcome', 'failureReason', 'flowName', 'startTime', 'endTime', 'runtimeSeconds', 'stepsCompleted', 'stepsTotal']);
			expect(data.json[0].failureReason).toMatch(/^Step 2 failed: Node node_\d+ \(.+\) failed: node raised an error$/);
			const got = await run({ operation: 'get', jobId: data.json[0].jobId });
			expect(got.json[0].failureReason).toBe(data.json[0].failureReason);
			const listed = await run({ operation: 'getMany', scope: 'history' });
			expect(listed.json.find((job) => job.jobId === data.json[0].jobId)?.failureReason).toBe(data.json[0].failureReason);
			// Version 2 names the reason in its error too; its Simplify keeps its ten fields (no failureReason).
			const v2 = await run({ operation: 'waitForCompletion', jobId: data.json[0].jobId, waitSettings: { onJobFailure: 'returnData' } }, 2);
			expect(Object.keys(v2.json[0])).toEqual(SUMMARY_KEYS);
			expect(v2.json[0]).toMatchObject({ stepsCompleted: 1, stepsTotal: 2 });
			// Version 2's error keeps the whole log line, as it was.
			expect((await run({ operation: 'waitForCompletion', jobId: data.json[0].jobId }, 2)).error?.message).toMatch(/^Job [0-9a-f-]{36} ended with status ERROR: \d{4}-\d\d-\d\d [\d:.]+ \[worker-1\] INFO Step 2 failed: Node node_\d+ \(.+\) failed: node raised an error$/);
		} finally {
			stop();
		}
	});
});

describe('issue 36 row 4: no long-wait hint on a default Submit + wait', () => {
	test('the flagship example\'s Submit and wait (2.1, default Timeout 1 hour) on a job of seconds: no hint', async () => {
		const fx = await startFixture('native');
		const stop = advanceWhileWaiting(fx.clock, 1000);
		try {
			const example = JSON.parse(readFileSync(join(__dirname, '../../examples/submit-and-wait.json'), 'utf8')) as { nodes: Array<{ type: string; typeVersion: number; parameters: IDataObject }> };
			const node = example.nodes.find((candidate) => candidate.type === ACTION_NODE_TYPE) as { typeVersion: number; parameters: IDataObject };
			expect(node.typeVersion).toBe(2.1);
			const parameters = { ...node.parameters, flowFileName: SALES.path, waitSettings: { ...(node.parameters.waitSettings as IDataObject), pollInterval: 1 } };
			const result = await runActionNode({ credentials: fx.credentials, typeVersion: 2.1, parameters: parameters as RunNodeOptions['parameters'] });
			expect(result.json[0]).toMatchObject({ executionStatus: 'COMPLETED' });
			expect(hintsOf(result)).toEqual([]);
		} finally {
			stop();
			await fx.server.close();
		}
	});
});

describe('issue 36 row 2: the reason is redacted and bounded in the error', () => {
	test('a service error naming the token shows *** in the message; a long one is cut and says so', async () => {
		const service = await startScriptedJobService();
		try {
			const id = '00000000-0000-4000-8000-000000000001';
			const job = { id, executionStatus: 'ERROR', currentStepId: 'Step 2', error: `login refused for ${NATIVE_TOKEN} / ${encodeURIComponent(NATIVE_TOKEN.toUpperCase())}` };
			service.jobs.set(id, job);
			const run = () => runActionNode({ credentials: credentialsFor(service.url), typeVersion: 2.1, parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'waitForCompletion', jobId: id } });
			const failed = await run();
			expect(failed.error?.message).toBe(`Job ${id} ended with status ERROR: login refused for *** / *** | ended in Step 2`);
			service.jobs.set(id, { ...job, error: 'e'.repeat(10_000) });
			expect((await run()).error?.message).toBe(`Job ${id} ended with status ERROR: ${'e'.repeat(400)} … [cut by the node: 9600 more characters] | ended in Step 2`);
		} finally {
			await service.close();
		}
	});
});

describe('version 2 hints, against a scripted service', () => {
	let service: ScriptedJobService;
	beforeEach(async () => {
		service = await startScriptedJobService();
	});
	afterEach(async () => {
		await service.close();
	});
	const run = (parameters: IDataObject) =>
		runActionNode({ credentials: credentialsFor(service.url), typeVersion: 2, parameters: { authentication: 'jobExecutionApi', resource: 'job', ...parameters } as RunNodeOptions['parameters'] });
	// Oldest first, a minute apart.
	const jobs = (count: number): Job[] =>
		Array.from({ length: count }, (_, i) => ({ id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`, executionStatus: 'COMPLETED', flowName: 'sales', runProfileName: 'default', startTime: 1_763_720_100_000 + i * 60_000, endTime: 1_763_720_103_000 + i * 60_000 }));

	test('a list of exactly 100 jobs (the service cap) says older ones are not listed; 99 does not', async () => {
		service.history = jobs(100);
		const full = await run({ operation: 'getMany', scope: 'history', limit: 10 });
		expect(full.json.map((job) => job.jobId)).toEqual(jobs(100).slice(90).reverse().map((job) => job.id));
		expect(hintsOf(full)).toEqual([expect.stringMatching(/^The service listed 100 jobs, the most it lists at once: older jobs are not listed/)]);
		service.history = jobs(99);
		expect(hintsOf(await run({ operation: 'getMany', scope: 'history' }))).toEqual([]);
	});

	test('filters that match none of the listed jobs say so; filters that match one do not', async () => {
		service.history = jobs(3);
		const none = await run({ operation: 'getMany', scope: 'history', filters: { flowName: { __rl: true, mode: 'name', value: 'Sales' } } });
		expect(none.json).toEqual([]);
		expect(hintsOf(none)).toEqual(['None of the 3 listed jobs matched the filters. Names must match exactly: pick them from the list, and check the time filters.']);
		expect(hintsOf(await run({ operation: 'getMany', scope: 'history', filters: { flowName: 'sales' } }))).toEqual([]);
	});

	test('issue 36 row 4: the long-wait hint shows after a wait that held the execution for a long job, once, with a link an npm user can open', async () => {
		const [job] = jobs(1);
		const running = { ...job, executionStatus: 'RUNNING', endTime: null };
		service.jobs.set(job.id, running);
		const items = [{}, {}];
		const waiting = runActionNode({ credentials: credentialsFor(service.url), typeVersion: 2.1, items, parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'waitForCompletion', jobId: job.id, waitSettings: { pollInterval: 1 } } });
		// Both items read the job once (RUNNING); only then does it end, after 10 minutes of running.
		await until(() => service.requests.filter((path) => path.endsWith(job.id)).length >= 2);
		service.jobs.set(job.id, { ...job, endTime: (job.startTime as number) + 10 * 60_000 });
		const long = await waiting;
		expect(long.json).toHaveLength(2);
		expect(hintsOf(long)).toEqual([
			'A job ran for 10 minutes while this node waited, holding the execution. For long jobs, submit without waiting and check the job with n8n\'s Wait node in a loop, or start a workflow from the Job Execution Trigger when the job ends: https://github.com/n8n-nodes-job-execution/n8n-nodes-job-execution/blob/main/docs/running-at-scale.md#long-jobs-which-way-to-wait',
		]);
		// The same job read once, already ended: the node did not wait, so no hint whatever its runtime or the Timeout.
		expect(hintsOf(await runActionNode({ credentials: credentialsFor(service.url), typeVersion: 2.1, parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'waitForCompletion', jobId: job.id, waitSettings: { timeoutAfter: { values: { amount: 3, unit: 'days' } } } } }))).toEqual([]);
		// A job of exactly 300 s waited for: no hint; 301 s: the hint.
		for (const [runtime, hinted] of [[300_000, false], [301_000, true]] as const) {
			service.jobs.set(job.id, running);
			const again = runActionNode({ credentials: credentialsFor(service.url), typeVersion: 2, parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'waitForCompletion', jobId: job.id, waitSettings: { pollInterval: 1 } } });
			const before = service.requests.length;
			await until(() => service.requests.length > before);
			service.jobs.set(job.id, { ...job, endTime: (job.startTime as number) + runtime });
			expect(hintsOf(await again).length).toBe(hinted ? 1 : 0);
		}
	});

	test('issue 36 row 4, issue 49: 2.1\'s Timeout is an amount and a unit shown together (n8n\'s Limit Wait Time); 0 is refused where typed; version 2 keeps its seconds', async () => {
		const [job] = jobs(1);
		service.jobs.set(job.id, { ...job, executionStatus: 'RUNNING', endTime: null });
		const wait = (typeVersion: number, waitSettings: IDataObject) =>
			runActionNode({ credentials: credentialsFor(service.url), typeVersion, parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'waitForCompletion', jobId: job.id, waitSettings: { pollInterval: 1, ...waitSettings } } });
		const timeout = (amount: unknown, unit: unknown) => ({ timeoutAfter: { values: { amount, unit } } });
		expect((await wait(2.1, timeout(0.02, 'minutes'))).error?.message).toMatch(/^Timed out after 1\.2 s waiting for job /);
		// Exactly one second is a Timeout; an expression's 0.99 s or 0 is refused before any read, naming the unit.
		expect((await wait(2.1, timeout(1, 'seconds'))).error?.message).toMatch(/^Timed out after 1 s waiting for job /);
		expect((await wait(2, { timeout: 1 })).error?.message).toMatch(/^Timed out after 1 s waiting for job /);
		const reads = service.requests.length;
		expect((await wait(2.1, timeout(0.99, 'seconds'))).error?.message).toBe('Timeout must be at least 1 second, got 0.99 seconds [item 0]');
		expect((await wait(2.1, timeout(0, 'hours'))).error?.message).toBe('Timeout must be at least 1 second, got 0 hours [item 0]');
		expect(service.requests.length).toBe(reads);
		expect((await wait(2.1, timeout(1, 'weeks'))).error?.message).toBe('Timeout\'s Unit must be one of seconds, minutes, hours, days, got "weeks" [item 0]');
		// The description: 2.1's Timeout is one setting holding Amount and Unit (default 1 hour, as before), the amount at
		// least 1 in the editor; versions 1 and 2 their seconds.
		const collections = nodeClasses[ACTION_NODE_TYPE].description.properties.filter((property) => property.name === 'waitSettings');
		const names = collections.map((collection) => [collection.displayOptions, (collection.options as Array<{ name: string; default: unknown }>).map((option) => `${option.name}=${JSON.stringify(option.default)}`)]);
		expect(names).toContainEqual([expect.objectContaining({ show: expect.objectContaining({ '@version': [{ _cnd: { gte: 2.1 } }] }) }), ['pollInterval=5', 'timeoutAfter={"values":{"amount":1,"unit":"hours"}}', 'onJobFailure="error"']]);
		const newest = collections.find((collection) => collection.displayOptions?.show?.['@version'] !== undefined) as INodeProperties;
		const limit = (newest.options as INodeProperties[]).find((option) => option.name === 'timeoutAfter') as INodeProperties;
		expect(limit).toMatchObject({ displayName: 'Timeout', type: 'fixedCollection', options: [{ name: 'values', values: [{ name: 'amount', typeOptions: { minValue: 1 } }, { name: 'unit', type: 'options' }] }] });
		expect(names).toContainEqual([expect.objectContaining({ hide: { '@version': [{ _cnd: { gte: 2.1 } }] } }), ['pollInterval=5', 'timeout=3600', 'onJobFailure="error"']]);
	});

	test('issue 36 row 6: Return All returns every job a list holds, up to 500 with a warning past it; Limit stays at most 100', async () => {
		service.history = jobs(101);
		expect((await run({ operation: 'getMany', scope: 'history', returnAll: true })).json).toHaveLength(101);
		service.history = jobs(501);
		const cut = await run({ operation: 'getMany', scope: 'history', returnAll: true });
		expect(cut.json).toHaveLength(500);
		expect(hintsOf(cut)).toContain('The service listed 501 jobs (it promises at most 100): Get Many read the first 500 and left 1.');
		expect((await run({ operation: 'getMany', scope: 'history', limit: 101 })).error?.message).toBe('Limit must be a whole number from 1 to 100, got 101 [item 0]');
	});

	test('issue 36 row 7: Log as File is always job-<safe id>.log, with no directory, whatever the id holds', async () => {
		const id = 'x/../../etc/cron.d';
		service.jobs.set(id, { ...jobs(1)[0], id, log: 'the log' });
		const result = await run({ operation: 'get', jobId: id, options: { logAsFile: true } });
		expect(result.items[0].binary?.data).toMatchObject({ fileName: 'job-x_______etc_cron_d.log', fileExtension: 'log', mimeType: 'text/plain' });
		expect(result.items[0].binary?.data.directory).toBeUndefined();
		expect(logFileName('..')).toBe('job-__.log');
		expect(logFileName('a\u0000b')).toBe('job-a_b.log');
		expect(logFileName('3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10')).toBe('job-3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10.log');
		expect(logFileName('é'.repeat(10_000))).toBe(`job-${'_'.repeat(100)}.log`);
		expect(logFileName('')).toBe('job.log');
	});

	test('issue 49: on 2.1, Log as File never gives two jobs one name: a changed or cut id gets a hash of the whole id; version 2 keeps its names', async () => {
		for (const id of ['q3/payroll', 'q3_payroll']) service.jobs.set(id, { ...jobs(1)[0], id, log: `the log of ${id}` });
		const fileOf = async (jobId: string, typeVersion: number) =>
			(await runActionNode({ credentials: credentialsFor(service.url), typeVersion, parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'get', jobId, options: { logAsFile: true } } })).items[0].binary?.data;
		const [slash, underscore] = [await fileOf('q3/payroll', 2.1), await fileOf('q3_payroll', 2.1)];
		expect(underscore).toMatchObject({ fileName: 'job-q3_payroll.log', fileExtension: 'log' });
		expect(slash?.fileName).toMatch(/^job-q3_payroll\.[0-9a-z]{11}\.log$/);
		expect(slash).toMatchObject({ fileExtension: 'log', mimeType: 'text/plain' });
		expect(slash?.directory).toBeUndefined();
		expect((await fileOf('q3/payroll', 2))?.fileName).toBe('job-q3_payroll.log');
		// At the cut: 100 safe characters are the name; a 101st, or any difference past the cut, adds the hash.
		const [hundred, past] = ['a'.repeat(100), 'a'.repeat(101)];
		expect(distinctLogFileName(hundred)).toBe(`job-${hundred}.log`);
		expect(distinctLogFileName(past)).toMatch(new RegExp(`^job-${hundred}\\.[0-9a-z]{11}\\.log$`));
		expect(distinctLogFileName(`${past}b`)).not.toBe(distinctLogFileName(`${past}c`));
		expect(distinctLogFileName('..')).toMatch(/^job-__\.[0-9a-z]{11}\.log$/);
		expect(distinctLogFileName('')).toBe('job.log');
		// Generated: any two different ids (of the characters that collide: separators, dots, non-ASCII, past the cut) get two names, each a safe one.
		const idText = fc.string({ unit: fc.constantFrom('a', '_', '/', '.', '-', 'é', '\u0000', ' '), minLength: 1, maxLength: 110 });
		// Pairs that the old rule named alike: an id and its safe form, two ids mapped to one safe form, two ids equal up to the cut.
		const pairs = fc.oneof(
			fc.tuple(idText, idText),
			idText.map((id) => [id, id.replace(/[^A-Za-z0-9_-]/g, '_')] as [string, string]),
			idText.map((id) => [id.replace(/[^A-Za-z0-9_-]/g, '/'), id.replace(/[^A-Za-z0-9_-]/g, '.')] as [string, string]),
			fc.tuple(fc.constantFrom('a', '_'), idText, idText).map(([c, a, b]) => [c.repeat(100) + a, c.repeat(100) + b] as [string, string]),
		);
		fc.assert(
			fc.property(pairs, ([a, b]) => {
				fc.pre(a !== b);
				const [nameA, nameB] = [distinctLogFileName(a), distinctLogFileName(b)];
				expect(nameA).not.toBe(nameB);
				for (const name of [nameA, nameB]) expect(name).toMatch(/^job-[A-Za-z0-9_-]{1,100}(\.[0-9a-z]{11})?\.log$/);
			}),
			{ seed: 4904, numRuns: 2000 },
		);
	});

	test('issue 36 row 8: the lists offer only names the node can send, by the rule Submit and the filters apply', async () => {
		const names = ['ok', ' padded ', 'lone\ud800', 'line\nbreak', 'x'.repeat(4097), 'y'.repeat(4096), '', 7];
		service.history = names.map((runProfileName, i) => ({ ...jobs(names.length)[i], runProfileName }));
		const offered = (await searchList('searchRunProfiles', { authentication: 'jobExecutionApi', resource: 'job', operation: 'submit' }, credentialsFor(service.url))).results;
		expect(offered.map((item) => item.value)).toEqual(['ok', 'y'.repeat(4096)]);
		// What is offered is sent (the scripted service has no submit endpoint: the request reached it); what is not, is refused before sending.
		for (const value of offered.map((item) => item.value as string)) {
			const before = service.requests.length;
			const sent = await run({ operation: 'submit', flowFileName: '/Shared/Flows/sales.flow', runProfileName: { __rl: true, mode: 'list', value } });
			expect([sent.error?.message.startsWith('Run Profile'), service.requests.length - before]).toEqual([false, 1]);
		}
		const refused = await run({ operation: 'submit', flowFileName: '/Shared/Flows/sales.flow', runProfileName: { __rl: true, mode: 'name', value: 'lone\ud800' } });
		expect(refused.error?.message).toBe('Run Profile contains an unpaired UTF-16 surrogate (ill-formed text) [item 0]');
	});

	test('issue 36 row 9: the Job ID list\'s 401 names the credential to check, as a run does', async () => {
		service.listFault = { status: 401, body: '{"message":"no"}' };
		await expect(searchList('searchJobs', { authentication: 'jobExecutionApi', resource: 'job', operation: 'get' }, credentialsFor(service.url))).rejects.toThrow(
			'The service refused the credentials (HTTP 401). Check the authentication settings of the Job Execution API credential.',
		);
		await expect(searchList('searchFlowNames', { authentication: 'jobExecutionApi', resource: 'job', operation: 'getMany' }, credentialsFor(service.url))).rejects.toThrow(/credentials \(HTTP 401\)\. Check the authentication settings/);
	});
});

describe('issue 36 rows 3 and 9: what the editor shows', () => {
	const action = nodeClasses[ACTION_NODE_TYPE].description;
	const trigger = nodeClasses[TRIGGER_NODE_TYPE].description;
	const codexOf = (file: string) => (JSON.parse(readFileSync(join(__dirname, '../../nodes', file), 'utf8')) as { resources: { primaryDocumentation: Array<{ url: string }> } }).resources.primaryDocumentation[0].url;
	/**
	 * n8n's Docs link, as its editor computes it (packages/frontend/editor-ui/src/composables/useNodeDocsUrl.ts, the same
	 * rule in 1.x and 2.x): documentationUrl as it is when it starts with http; else the codex URL with `?utm_…` appended.
	 */
	const docsUrl = (description: INodeTypeDescription, codex: string) =>
		description.documentationUrl?.startsWith('http') ? description.documentationUrl : `${codex}?utm_source=n8n_app&utm_medium=node_settings_modal-credential_link&utm_campaign=${description.name}`;

	test('row 3: each Docs link opens the README part it names (no ?utm_ after the #fragment)', () => {
		const repository = 'https://github.com/n8n-nodes-job-execution/n8n-nodes-job-execution';
		expect(docsUrl(action, codexOf('JobExecution/JobExecution.node.json'))).toBe(`${repository}#operations`);
		expect(docsUrl(trigger, codexOf('JobExecutionTrigger/JobExecutionTrigger.node.json'))).toBe(`${repository}#trigger`);
		// The codex names the same part (docs.test checks both anchors exist in the README).
		expect(codexOf('JobExecution/JobExecution.node.json')).toBe(action.documentationUrl);
		expect(codexOf('JobExecutionTrigger/JobExecutionTrigger.node.json')).toBe(trigger.documentationUrl);
	});

	test('row 9: the relay notice names the credential to pick (version 2 has no Interface field); Put Log File in Field only beside Log as File', () => {
		const notices = action.properties.filter((property) => property.name === 'interfaceNotice' && property.displayOptions?.show?.['@version'] !== undefined);
		expect(notices.map((notice) => notice.displayName)).toEqual(['The relay names a flow by its ID: to submit by flow file path instead, pick a Job Execution API credential (native REST API)']);
		const logFileFields = action.properties
			.filter((property) => property.name === 'options' && property.type === 'collection')
			.flatMap((collection) => (collection.options as INodeProperties[]).filter((option) => option.name === 'logFileProperty'));
		expect(logFileFields.length).toBeGreaterThan(0);
		for (const field of logFileFields) expect(field.displayOptions).toEqual({ show: { logAsFile: [true] } });
		expect(action.version).toEqual([1, 2, 2.1]);
		expect(action.defaultVersion).toBe(2.1);
	});
});
