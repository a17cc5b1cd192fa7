/**
 * Submit under every fault the reference server can inject, through n8n's engine, both interfaces: the jobs the
 * server created per submitted item (exactly one when the route ran, zero otherwise: a submit is never repeated),
 * and what the item's error says when the node cannot know whether the job exists.
 */
import type { Fault } from '../../server';
import { runActionNode } from '../../testkit/engine';
import { INTERFACES, NATIVE_TOKEN, RELAY_KEY, SALES, startFixture, USER_KEY } from '../../testkit/fixtures';
import type { Fixture, Interface } from '../../testkit/fixtures';
import { expectNoSecrets } from '../../testkit/secrets';

const MAY_EXIST = 'may have accepted the job: check the job list before resubmitting';
const ITEMS = 3;

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
			parameters: {
				authentication: fx.authentication,
				resource: 'job',
				operation: 'submit',
				...fx.flow(SALES),
				runProfileName: 'default',
				parameters: { parameter: [{ name: 'item', type: 'integer', value: '={{ $json.n }}' }] },
			},
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.pairedItem)).toEqual(Array.from({ length: ITEMS }, (_, n) => ({ item: n })));
		// Jobs per item, read from the server's own store (each job carries its item's number).
		const perItem = Array.from({ length: ITEMS }, () => 0);
		for (const job of fault === 'serverDown' ? [] : fx.server.store.all()) perItem[Number(job.parameters[0].value)]++;
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
