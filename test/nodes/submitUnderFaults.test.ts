/**
 * Submit under every fault the reference server can inject, through n8n's engine, both interfaces: the jobs the
 * server created per submitted item (exactly one when the route ran, zero otherwise: a submit is never repeated),
 * and what the item's error says when the node cannot know whether the job exists.
 */
import type { Fault } from '../../server';
import { runActionNode } from '../../testkit/engine';
import { advanceWhileWaiting, INTERFACES, NATIVE_TOKEN, numberedSubmit, RELAY_KEY, SALES, startFixture, USER_KEY } from '../../testkit/fixtures';
import type { Fixture, Interface } from '../../testkit/fixtures';
import { expectNoSecrets } from '../../testkit/secrets';

const MAY_EXIST = 'may have accepted the job: check the job list before resubmitting';
const ITEMS = 3;

/** Submit parameters whose one job parameter carries the item's number, so that jobs can be counted per item. */
/** Jobs each item created, read from the server's own store (each job carries its item's number). */
function jobsPerItem(fx: Fixture): number[] {
	const perItem = Array.from({ length: ITEMS }, () => 0);
	for (const job of fx.server.store.all()) perItem[Number(job.parameters[0].value)]++;
	return perItem;
}

type Outcome = 'submitted' | 'mayExist' | 'notSubmitted';

interface Case {
	label: string;
	fault: Fault | 'serverDown' | ((kind: Interface) => Fault);
	created: 0 | 1;
	outcome: Outcome;
}

const CASES: Case[] = [
	{ label: 'latency 300 ms', fault: { kind: 'latency', ms: 300 }, created: 1, outcome: 'submitted' },
	{ label: 'latency 300 ms after processing', fault: { kind: 'latency', ms: 300, after: true }, created: 1, outcome: 'submitted' },
	{ label: 'HTTP 500', fault: { kind: 'status', status: 500 }, created: 0, outcome: 'mayExist' },
	{ label: 'HTTP 500 after processing', fault: { kind: 'status', status: 500, after: true }, created: 1, outcome: 'mayExist' },
	{ label: 'HTTP 503', fault: { kind: 'status', status: 503 }, created: 0, outcome: 'mayExist' },
	{ label: 'HTTP 429', fault: { kind: 'status', status: 429 }, created: 0, outcome: 'notSubmitted' },
	{ label: 'dropped before processing', fault: { kind: 'drop' }, created: 0, outcome: 'mayExist' },
	{ label: 'dropped after processing', fault: { kind: 'drop', after: true }, created: 1, outcome: 'mayExist' },
	{ label: 'malformed JSON', fault: { kind: 'malformedJson' }, created: 0, outcome: 'mayExist' },
	{ label: 'malformed JSON after processing', fault: { kind: 'malformedJson', after: true }, created: 1, outcome: 'mayExist' },
	{ label: 'HTML error page (502)', fault: { kind: 'html' }, created: 0, outcome: 'mayExist' },
	{ label: 'HTML error page (502) after processing', fault: { kind: 'html', after: true }, created: 1, outcome: 'mayExist' },
	{ label: 'HTML page with HTTP 200 after processing', fault: { kind: 'html', status: 200, after: true }, created: 1, outcome: 'mayExist' },
	{ label: 'empty 400', fault: { kind: 'emptyBadRequest' }, created: 0, outcome: 'mayExist' },
	{ label: 'bare string 400', fault: { kind: 'bareString', status: 400, text: 'flow is locked' }, created: 0, outcome: 'notSubmitted' },
	{
		label: 'bare string 400 echoing the keys',
		fault: (kind) => ({ kind: 'bareString', status: 400, text: kind === 'native' ? `Bearer ${NATIVE_TOKEN} refused` : `keys ${RELAY_KEY} / ${USER_KEY} refused` }),
		created: 0,
		outcome: 'notSubmitted',
	},
	{ label: 'bare string 200 after processing', fault: { kind: 'bareString', text: 'Accepted', after: true }, created: 1, outcome: 'mayExist' },
	{ label: 'connection refused (server down)', fault: 'serverDown', created: 0, outcome: 'notSubmitted' },
];

const table: string[] = [];

afterAll(() => {
	process.stdout.write(
		`submit under faults (${ITEMS} items per fault and interface; jobs created per item, native / relay):\n${table.join('\n')}\n`,
	);
});

describe.each(INTERFACES)('submit under faults over the %s interface', (kind: Interface) => {
	let fx: Fixture;
	afterEach(async () => {
		await fx.server.close();
	});

	test.each(CASES)('$label: $created job(s) per item, $outcome', async ({ label, fault: given, created, outcome }) => {
		const fault = typeof given === 'function' ? given(kind) : given;
		fx = await startFixture(kind);
		// The node holds only the credential of its interface; the server echoes every key.
		const usable = { [fx.authentication]: fx.credentials[fx.authentication] };
		if (fault === 'serverDown') await fx.server.close();
		else fx.server.faults.inject({ ...fault, method: 'POST', times: ITEMS });
		const result = await runActionNode({
			credentials: fx.credentials,
			continueOnFail: true,
			items: Array.from({ length: ITEMS }, (_, n) => ({ n })),
			parameters: numberedSubmit(fx),
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.pairedItem)).toEqual(Array.from({ length: ITEMS }, (_, n) => ({ item: n })));
		const perItem = fault === 'serverDown' ? Array.from({ length: ITEMS }, () => 0) : jobsPerItem(fx);
		expect(perItem).toEqual(Array.from({ length: ITEMS }, () => created));

		const first = result.json[0];
		const said = `${String(first.error ?? '')} ${String(first.description ?? '')}`;
		if (outcome === 'submitted') {
			expect(result.json.every((json) => typeof json.jobId === 'string' && json.error === undefined)).toBe(true);
			expect(new Set(result.json.map((json) => json.jobId)).size).toBe(ITEMS);
		} else {
			expect(result.json.every((json) => typeof json.error === 'string' && json.jobId === undefined)).toBe(true);
			if (outcome === 'mayExist') expect(said).toContain(MAY_EXIST);
			else expect(said).not.toContain('may have accepted');
			if (outcome === 'notSubmitted') expect(said).toMatch(/no job was submitted|refused the job/);
		}
		expectNoSecrets(result, usable);
		// The same fault without Continue On Fail: the error object n8n keeps holds no secret either.
		if (fault !== 'serverDown' && outcome !== 'submitted') {
			fx.server.faults.inject({ ...fault, method: 'POST' });
			const failed = await runActionNode({
				credentials: fx.credentials,
				parameters: { authentication: fx.authentication, resource: 'job', operation: 'submit', ...fx.flow(SALES), runProfileName: 'default' },
			});
			expect(failed.error?.name).toBe('NodeApiError');
			expect(failed.error?.context?.itemIndex).toBe(0);
			expectNoSecrets(failed, usable);
		}

		const row = table.findIndex((line) => line.startsWith(`| ${label} |`));
		const message = outcome === 'submitted' ? 'ok: jobId returned' : `${String(first.error)} — ${String(first.description ?? '')}`;
		if (row === -1) table.push(`| ${label} | ${perItem[0]} | ? | ${message} |`);
		else table[row] = table[row].replace('| ? |', `| ${perItem[0]} |`);
	});
});

describe.each(INTERFACES)('submit and wait, when the wait fails after the job was accepted (%s)', (kind: Interface) => {
	let fx: Fixture;
	afterEach(async () => {
		await fx.server.close();
	});

	test.each([
		['a read refused with an empty 400', { kind: 'emptyBadRequest' } as Fault],
		['a read answered 401', { kind: 'status', status: 401 } as Fault],
	])('%s: the error names the submitted job so that nobody resubmits it', async (_name, fault) => {
		fx = await startFixture(kind);
		fx.server.faults.inject({ ...fault, method: 'GET' });
		const result = await runActionNode({
			credentials: fx.credentials,
			continueOnFail: true,
			parameters: {
				authentication: fx.authentication,
				resource: 'job',
				operation: 'submit',
				...fx.flow(SALES),
				runProfileName: 'default',
				waitForCompletion: true,
				waitSettings: { pollInterval: 1, timeout: 5 },
			},
		});
		const [job] = fx.server.store.all();
		expect(fx.server.store.count()).toBe(1);
		expect(result.json).toHaveLength(1);
		expect(result.json[0].description).toContain(`Job ${job.id} was submitted`);
		expect(result.json[0].description).toMatch(/do not submit it again/);
		expectNoSecrets(result, { [fx.authentication]: fx.credentials[fx.authentication] });
	});
});

/**
 * n8n's Retry On Fail runs the whole node again with the same items (WorkflowExecute's retry loop in n8n-core
 * dist/execution-engine/workflow-execute.js: the node's tries, and with Continue On Fail another try whenever the
 * first output item carries json.error). Run here through that very loop, against the reference server, which
 * counts what reaches it: within one execution an item whose job was created is never submitted again, and a
 * submission whose outcome is unknown is not resent.
 */
describe.each(INTERFACES)("Submit under n8n's Retry On Fail (%s)", (kind: Interface) => {
	let fx: Fixture;
	afterEach(async () => {
		await fx.server.close();
	});
	const submits = () => Object.entries(fx.server.stats.byRoute).reduce((sum, [route, count]) => sum + (route.startsWith('POST') ? count : 0), 0);
	const run = (extra: Partial<Parameters<typeof runActionNode>[0]> = {}) =>
		runActionNode({
			credentials: fx.credentials,
			items: Array.from({ length: ITEMS }, (_, n) => ({ n })),
			retryOnFail: true,
			maxTries: 3,
			waitBetweenTries: 10,
			parameters: numberedSubmit(fx),
			...extra,
		});
	// The fault hits every try's third submission (the item that failed, if it is sent again).
	const everyThirdSubmit = (fault: Fault, tries = 3) => Array.from({ length: tries }, () => ({ ...fault, method: 'POST' as const, skip: 2 }));

	test('item 3 answered 503 on every try: items 1 and 2 are submitted once; item 3 is not resent, and the error says so', async () => {
		fx = await startFixture(kind);
		fx.server.faults.inject(everyThirdSubmit({ kind: 'status', status: 503 }));
		const result = await run();
		table.push(`| Retry On Fail, item 3 503 (${kind}) | ${jobsPerItem(fx).join('/')} | ${submits()} submissions | ${result.error?.message} |`);
		expect(jobsPerItem(fx)).toEqual([1, 1, 0]);
		expect(submits()).toBe(3);
		expect(result.error?.message).toBe("Not submitted again on n8n's retry: the item's first submission may have created a job [item 2]");
		expect(result.error?.description).toMatch(/^The first try failed with: The service failed \(HTTP 503\)/);
		expect(result.error?.description).toContain('check the job list');
		// The two jobs that exist are named, though the node outputs nothing.
		for (const job of fx.server.store.all()) expect(result.error?.description).toContain(job.id);
		expectNoSecrets(result, { [fx.authentication]: fx.credentials[fx.authentication] });
	});

	test('item 3 answered 429 once (nothing created): the retry submits item 3 only, and the output holds each first job', async () => {
		fx = await startFixture(kind);
		fx.server.faults.inject(everyThirdSubmit({ kind: 'status', status: 429 }, 1));
		const result = await run();
		expect(result.error).toBeUndefined();
		expect(jobsPerItem(fx)).toEqual([1, 1, 1]);
		expect(submits()).toBe(4);
		const ids = fx.server.store.all().sort((a, b) => Number(a.parameters[0].value) - Number(b.parameters[0].value)).map((job) => job.id);
		expect(result.json.map((json) => json.jobId)).toEqual(ids);
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	test("item 3's answer dropped after the job was created: not resent, the job is not duplicated", async () => {
		fx = await startFixture(kind);
		fx.server.faults.inject(everyThirdSubmit({ kind: 'drop', after: true }, 1));
		const result = await run();
		expect(jobsPerItem(fx)).toEqual([1, 1, 1]);
		expect(submits()).toBe(3);
		expect(result.error?.message).toMatch(/^Not submitted again on n8n's retry: .* \[item 2\]$/);
	});

	test('Continue On Fail, item 1 refused on every try: items 2 and 3 are submitted once and keep their first jobs', async () => {
		fx = await startFixture(kind);
		// Try 1 sends items 1-3 (item 1 refused); tries 2 and 3 send item 1 only.
		fx.server.faults.inject([0, 2, 0].map((skip) => ({ kind: 'bareString' as const, status: 400, text: 'flow is locked', method: 'POST' as const, skip })));
		const result = await run({ onError: 'continueRegularOutput' });
		table.push(`| Retry On Fail + Continue On Fail, item 1 refused (${kind}) | ${jobsPerItem(fx).join('/')} | ${submits()} submissions | ${String(result.json[0].error)} |`);
		expect(jobsPerItem(fx)).toEqual([0, 1, 1]);
		// Item 1 is sent on each of the 3 tries (it was refused, so nothing exists); items 2 and 3 once.
		expect(submits()).toBe(5);
		expect(result.json[0].error).toBe('Bad request: flow is locked');
		const ids = fx.server.store.all().sort((a, b) => Number(a.parameters[0].value) - Number(b.parameters[0].value)).map((job) => job.id);
		expect(result.json.slice(1).map((json) => json.jobId)).toEqual(ids);
	});

	test('Continue On Fail, item 1 refused once: the retry submits item 1 and the others keep their jobs', async () => {
		fx = await startFixture(kind);
		fx.server.faults.inject({ kind: 'bareString', status: 400, text: 'flow is locked', method: 'POST' });
		const result = await run({ onError: 'continueRegularOutput' });
		expect(jobsPerItem(fx)).toEqual([1, 1, 1]);
		expect(submits()).toBe(4);
		expect(result.json.every((json) => typeof json.jobId === 'string' && json.error === undefined)).toBe(true);
	});

	// The rule is the operation's (submit.operation.ts); one interface proves it here, and test/nodes/toolRetry.test.ts
	// proves a retry's wait for the first try's job on both.
	if (kind === 'native') test('Submit and wait: a retry waits for the job the first try created instead of submitting it again', async () => {
		fx = await startFixture(kind);
		fx.server.faults.inject(everyThirdSubmit({ kind: 'status', status: 429 }, 1));
		const stop = advanceWhileWaiting(fx.clock, 1000);
		try {
			const result = await run({ parameters: { ...numberedSubmit(fx), waitForCompletion: true, waitSettings: { pollInterval: 1, timeout: 30 } } });
			expect(result.error).toBeUndefined();
			expect(jobsPerItem(fx)).toEqual([1, 1, 1]);
			expect(result.json.map((json) => json.executionStatus)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
		} finally {
			stop();
		}
	});

	test('a new execution with equal items is new work: it submits again (the memory is per execution)', async () => {
		fx = await startFixture(kind);
		await run();
		await run();
		expect(jobsPerItem(fx)).toEqual([2, 2, 2]);
		expect(submits()).toBe(6);
	});
});
