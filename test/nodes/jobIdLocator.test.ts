/**
 * Job ID as a resource locator: "From list" (methods.listSearch through the node's transport) against the real
 * reference server, "By ID" with today's checks, and workflows saved when the Job ID was plain text.
 */
import type { IDataObject } from 'n8n-workflow';

import { runActionNode } from '../../testkit/engine';
import type { RunNodeOptions } from '../../testkit/engine';
import { BROKEN, INTERFACES, SALES, SECRETS, startFixture } from '../../testkit/fixtures';
import type { Fixture, Interface } from '../../testkit/fixtures';
import { searchList } from '../../testkit/listSearch';

describe.each(INTERFACES)('Job ID over the %s interface', (kind: Interface) => {
	let fx: Fixture;
	beforeEach(async () => {
		fx = await startFixture(kind, { concurrency: 1 });
	});
	afterEach(async () => {
		await fx.server.close();
	});

	const run = (parameters: IDataObject) =>
		runActionNode({
			credentials: fx.credentials,
			parameters: { authentication: fx.authentication, resource: 'job', ...parameters } as RunNodeOptions['parameters'],
		});
	const submit = async (flow: { path: string; id: string }, runProfileName = 'default'): Promise<string> => {
		const { json, error } = await run({ operation: 'submit', ...fx.flow(flow), runProfileName });
		expect(error).toBeUndefined();
		return json[0].jobId as string;
	};
	const search = (filter?: string) => searchList('searchJobs', { authentication: fx.authentication, resource: 'job', operation: 'get' }, fx.credentials, filter);

	test('From list: every recent job, newest first, showing flow, profile, status and start time', async () => {
		const first = await submit(SALES);
		fx.clock.advance(1500);
		const second = await submit(BROKEN);
		fx.clock.advance(10_000); // both finished (one at a time): sales COMPLETED, then broken ERROR
		const third = await submit(SALES, 'nightly');
		fx.clock.advance(100);
		const fourth = await submit(SALES); // queued behind the third

		const { results } = await search();
		expect(results.map((item) => item.value)).toEqual([fourth, third, second, first]);
		const statusOf = (id: string) => fx.server.store.status(id)?.executionStatus;
		expect(results.map((item) => item.name.split(' · ').slice(0, 3))).toEqual([
			['sales', 'default', statusOf(fourth)],
			['sales', 'nightly', statusOf(third)],
			['broken', 'default', 'ERROR'],
			['sales', 'default', 'COMPLETED'],
		]);
		expect(statusOf(fourth)).toBe('QUEUED');
		expect(results[0].name).toMatch(/ · not started$/);
		// The start time in the workflow's time zone (n8n's default New York here), its offset said (issue 36 row 1).
		expect(results[3].name).toMatch(/ · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d -0[45]:00$/);
		expect(results.every((item) => item.description === item.value)).toBe(true);
		expect(JSON.stringify(results)).not.toMatch(new RegExp(SECRETS.join('|')));
	});

	test('From list: the search keeps jobs whose flow, profile, status or ID contain it (any case)', async () => {
		const sales = await submit(SALES);
		const broken = await submit(BROKEN, 'nightly');
		fx.clock.advance(20_000);

		expect((await search('BROKEN')).results.map((item) => item.value)).toEqual([broken]);
		expect((await search('nightly')).results.map((item) => item.value)).toEqual([broken]);
		expect((await search('completed')).results.map((item) => item.value)).toEqual([sales]);
		expect((await search(sales.slice(0, 8))).results.map((item) => item.value)).toEqual([sales]);
		expect((await search('no such job')).results).toEqual([]);
	});

	test('From list: a job picked from the list is read by Get and Wait for Completion', async () => {
		const jobId = await submit(SALES);
		const [picked] = (await search()).results;
		expect(picked.value).toBe(jobId);
		fx.clock.advance(20_000);

		const locator = { __rl: true, mode: 'list', value: picked.value, cachedResultName: picked.name };
		const get = await run({ operation: 'get', jobId: locator });
		expect(get.error).toBeUndefined();
		expect(get.json[0]).toMatchObject({ id: jobId, executionStatus: 'COMPLETED' });
		const wait = await run({ operation: 'waitForCompletion', jobId: locator });
		expect(wait.error).toBeUndefined();
		expect(wait.json[0]).toMatchObject({ id: jobId, executionStatus: 'COMPLETED' });
	});

	test('By ID: the ID (or an expression) is read, and checked as before any request', async () => {
		const jobId = await submit(SALES);
		const byId = await run({ operation: 'get', jobId: { __rl: true, mode: 'id', value: ` ${jobId} ` } });
		expect(byId.json[0]).toMatchObject({ id: jobId });
		const expression = await run({ operation: 'get', jobId: { __rl: true, mode: 'id', value: `={{ "${jobId}" }}` } });
		expect(expression.json[0]).toMatchObject({ id: jobId });

		for (const [value, message] of [
			['   ', /Job ID .*\[item 0\]/],
			['..', /Job ID .*\[item 0\]/],
			['a\nb', /Job ID .*\[item 0\]/],
			['x'.repeat(257), /Job ID .*\[item 0\]/],
		] as const) {
			const before = fx.server.stats.requests;
			const refused = await run({ operation: 'get', jobId: { __rl: true, mode: 'id', value } });
			expect(refused.error?.message).toMatch(message);
			expect(refused.error?.name).toBe('NodeOperationError');
			expect(fx.server.stats.requests).toBe(before);
		}
	});

	test('a workflow saved when the Job ID was plain text (a string, or an expression string) still runs', async () => {
		const jobId = await submit(SALES);
		fx.clock.advance(20_000);
		const plain = await run({ operation: 'get', jobId });
		expect(plain.error).toBeUndefined();
		expect(plain.json[0]).toMatchObject({ id: jobId, executionStatus: 'COMPLETED' });
		const expression = await runActionNode({
			credentials: fx.credentials,
			items: [{ jobId }],
			parameters: { authentication: fx.authentication, resource: 'job', operation: 'waitForCompletion', jobId: '={{ $json.jobId }}' },
		});
		expect(expression.error).toBeUndefined();
		expect(expression.json[0]).toMatchObject({ id: jobId, executionStatus: 'COMPLETED' });
	});
});

test('From list: the credential in use picks the interface, and a refused key is an error naming the HTTP code', async () => {
	const fx = await startFixture('relay');
	try {
		await runActionNode({
			credentials: fx.credentials,
			parameters: { authentication: 'jobExecutionRelayApi', resource: 'job', operation: 'submit', flowId: SALES.id, runProfileName: 'default' },
		});
		const parameters = { authentication: 'jobExecutionRelayApi', resource: 'job', operation: 'get' };
		expect((await searchList('searchJobs', parameters, fx.credentials)).results).toHaveLength(1);
		expect(fx.server.stats.byRoute['GET /call/status']).toBe(2);

		const wrongKey = { ...fx.credentials, jobExecutionRelayApi: { ...fx.credentials.jobExecutionRelayApi, apiKey: 'wrong-key-1234' } };
		const refused = searchList('searchJobs', parameters, wrongKey);
		await expect(refused).rejects.toThrow(/401/);
		await expect(refused).rejects.not.toThrow(/wrong-key-1234/);
	} finally {
		await fx.server.close();
	}
});
