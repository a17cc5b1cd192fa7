/**
 * Version 2 of the action node (issue 27 §1-4, 6, 7) through n8n's engine, against services that list jobs oldest
 * first: jobId on every job item, Simplify on by default (Output as an AI tool), Get Many newest first with Sort and
 * time filters, names picked from the service's lists, the log as a file, and the hints.
 */
import type { IDataObject, INodeType } from 'n8n-workflow';

import { ACTION_NODE_TYPE, NODE_NAME, nodeClasses, runActionNode } from '../../testkit/engine';
import type { RunNodeOptions, RunNodeResult } from '../../testkit/engine';
import { credentialsFor, SALES, startFixture } from '../../testkit/fixtures';
import type { Fixture } from '../../testkit/fixtures';
import { searchList } from '../../testkit/listSearch';
import { startScriptedJobService } from '../../testkit/scriptedJobService';
import type { Job, ScriptedJobService } from '../../testkit/scriptedJobService';
import { JobExecution } from '../../nodes/JobExecution/JobExecution.node';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SUMMARY_KEYS = ['jobId', 'executionStatus', 'outcome', 'flowName', 'runProfileName', 'startTime', 'endTime', 'runtimeSeconds', 'stepsCompleted', 'stepsTotal'];

// The variant n8n builds for AI agents from a usableAsTool node: the same node, its type name ending in "Tool"
// (n8n's convertNodeToAiTool, packages/cli/src/.../convert-node-to-ai-tool: description.name += 'Tool').
const TOOL_NODE_TYPE = `${ACTION_NODE_TYPE}Tool`;
const toolNode: INodeType = new JobExecution();
toolNode.description = { ...toolNode.description, name: `${toolNode.description.name}Tool` };
nodeClasses[TOOL_NODE_TYPE] = toolNode;

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

	test('a Wait Timeout over 300 s points to the durable loop or the trigger, once for all items; 300 s does not', async () => {
		const [job] = jobs(1);
		service.jobs.set(job.id, job);
		const items = [{}, {}];
		const long = await runActionNode({ credentials: credentialsFor(service.url), typeVersion: 2, items, parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'waitForCompletion', jobId: job.id, waitSettings: { timeout: 301 } } });
		expect(long.json).toHaveLength(2);
		expect(hintsOf(long)).toEqual([expect.stringContaining('hold the execution for up to 5 minutes while it waits')]);
		expect(hintsOf(await run({ operation: 'waitForCompletion', jobId: job.id, waitSettings: { timeout: 300 } }))).toEqual([]);
	});
});
