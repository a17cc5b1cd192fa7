/**
 * Bad input, for every operation and both interfaces, through n8n's engine and the real server. Each bad value is
 * given by an expression to the second of two items: the good first item goes through, the second fails alone with
 * a NodeOperationError naming the field and "item 1", and nothing is sent for it. Values that are harmless ("works")
 * reach only the operation's own endpoint, at worst answered by the service's 400. No error or output, here or in
 * the credential forms below, holds a key or the Authorization value.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { runActionNode } from '../../testkit/engine';
import type { CredentialsMap } from '../../testkit/engine';
import { INTERFACES, NATIVE_TOKEN, RELAY_KEY, SALES, SECRETS, startFixture, USER_KEY } from '../../testkit/fixtures';
import { expectNoSecrets } from '../../testkit/secrets';
import type { Fixture, Interface } from '../../testkit/fixtures';
import { createPoller } from '../../testkit/poller';

type Operation = 'get' | 'statusOnly' | 'waitForCompletion' | 'submit' | 'getMany' | 'getNavigationUrl';

interface BadInput {
	/** The parameter (dotted path into the node's parameters) that gets the bad value; 'flow' = the interface's flow field. */
	field: string;
	good: unknown;
	bad: unknown;
	/** The error's message without its "[item N]", or 'works' when the value is harmless. */
	expected: RegExp | 'works';
	/** Only on this interface. */
	only?: Interface;
	/** Parameters added to the operation's defaults. */
	base?: IDataObject;
}

const HUGE = 'x'.repeat(200_000);
const CRLF = 'abc\r\nX-Injected: 1';

const jobIdCases: BadInput[] = [
	{ field: 'jobId', good: 'DONE', bad: '', expected: /^Job ID is empty$/ },
	{ field: 'jobId', good: 'DONE', bad: ' \t  ', expected: /^Job ID is empty$/ },
	{ field: 'jobId', good: 'DONE', bad: '..', expected: /^Job ID cannot be "\." or "\.\."$/ },
	{ field: 'jobId', good: 'DONE', bad: '.', expected: /^Job ID cannot be "\." or "\.\."$/ },
	{ field: 'jobId', good: 'DONE', bad: CRLF, expected: /^Job ID contains control characters$/ },
	{ field: 'jobId', good: 'DONE', bad: HUGE, expected: /^Job ID is longer than 256 characters$/ },
	{ field: 'jobId', good: 'DONE', bad: 'job-\ud800-x', expected: /^Job ID contains an unpaired UTF-16 surrogate \(ill-formed text no URL can carry\)$/ },
	{ field: 'jobId', good: 'DONE', bad: '\ud83d\ude00-paired-✓', expected: 'works' },
	{ field: 'jobId', good: 'DONE', bad: { id: 'x' }, expected: /^Job ID must be text, got an object$/ },
	{ field: 'jobId', good: 'DONE', bad: ['x'], expected: /^Job ID must be text, got a list$/ },
	{ field: 'jobId', good: 'DONE', bad: true, expected: /^Job ID must be text, got a boolean$/ },
	{ field: 'jobId', good: 'DONE', bad: 'a/b', expected: 'works' },
	{ field: 'jobId', good: 'DONE', bad: '../flows?flowFileName=x#y', expected: 'works' },
	{ field: 'jobId', good: 'DONE', bad: '%2e%2e%2fflows', expected: 'works' },
	{ field: 'jobId', good: 'DONE', bad: 'jöb-ünïcødé-✓', expected: 'works' },
	{ field: 'jobId', good: 'DONE', bad: 12345, expected: 'works' },
];

const outputOptionCases: BadInput[] = [
	{ field: 'options.parseLog', good: true, bad: 'yes', expected: /^Option Parse Log must be true or false, got "yes"$/ },
	{ field: 'options.simplify', good: 'false', bad: 1, expected: /^Option Simplify must be true or false, got a number$/ },
];

const waitCases: BadInput[] = [
	{ field: 'waitSettings.pollInterval', good: 1, bad: 0, expected: /^Poll Interval must be a number of seconds, at least 1, got 0$/ },
	{ field: 'waitSettings.pollInterval', good: 1, bad: -5, expected: /^Poll Interval .* got -5$/ },
	{ field: 'waitSettings.pollInterval', good: '2', bad: 'soon', expected: /^Poll Interval .* got "soon"$/ },
	{ field: 'waitSettings.pollInterval', good: 1, bad: {}, expected: /^Poll Interval .* got an object$/ },
	{ field: 'waitSettings.timeout', good: 30, bad: 0, expected: /^Timeout must be a number of seconds, at least 1, got 0$/ },
	{ field: 'waitSettings.timeout', good: 30, bad: -1, expected: /^Timeout .* got -1$/ },
	{ field: 'waitSettings.timeout', good: 30, bad: Number.NaN, expected: /^Timeout .* got NaN$/ },
	{ field: 'waitSettings.onJobFailure', good: 'returnData', bad: 'ignore', expected: /^When the Job Fails or Is Cancelled must be/ },
];

const submitCases: BadInput[] = [
	{ field: 'flow', good: 'FLOW', bad: '', expected: /^Flow (File Path|ID) is empty$/ },
	{ field: 'flow', good: 'FLOW', bad: '   ', expected: /^Flow (File Path|ID) is empty$/ },
	{ field: 'flow', good: 'FLOW', bad: `/Shared/${CRLF}.flow`, expected: /^Flow (File Path|ID) contains control characters/ },
	{ field: 'flow', good: 'FLOW', bad: `/${HUGE}`, expected: /^Flow (File Path|ID) is longer than 4096 characters$/ },
	{ field: 'flow', good: 'FLOW', bad: { path: '/a' }, expected: /^Flow (File Path|ID) must be text, got an object$/ },
	{ field: 'flow', good: 'FLOW', bad: '/Shared/Flöws/ünï ✓.flow', expected: 'works', only: 'native' },
	{ field: 'flow', good: 'FLOW', bad: '/Shared/../x.flow?y#z', expected: 'works', only: 'native' },
	{ field: 'flow', good: 'FLOW', bad: 'sales', expected: /^Flow ID "sales" is not a UUID$/, only: 'relay' },
	{ field: 'flow', good: 'FLOW', bad: '3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10/../x', expected: /is not a UUID$/, only: 'relay' },
	{ field: 'runProfileName', good: 'default', bad: '', expected: /^Run Profile is empty$/ },
	{ field: 'runProfileName', good: 'default', bad: 'night\nly', expected: /^Run Profile contains control characters/ },
	{ field: 'runProfileName', good: 'default', bad: HUGE, expected: /^Run Profile is longer than 4096 characters$/ },
	{ field: 'runProfileName', good: 'default', bad: 'night\udc00ly', expected: /^Run Profile contains an unpaired UTF-16 surrogate \(ill-formed text\)$/ },
	{ field: 'flow', good: 'FLOW', bad: '/Shared/\ud800.flow', expected: /^Flow (File Path|ID) contains an unpaired UTF-16 surrogate/ },
	{ field: 'runProfileName', good: 'default', bad: ['default'], expected: /^Run Profile must be text, got a list$/ },
	{ field: 'runProfileName', good: 'default', bad: 'nächtlich ✓', expected: 'works' },
	{ field: 'runProfileName', good: 'default', bad: 7, expected: 'works' },
	{ field: 'notificationEnabled', good: 'true', bad: 'yes', expected: /^Notification Enabled must be true or false, got "yes"$/ },
	{ field: 'notificationEnabled', good: false, bad: { on: true }, expected: /^Notification Enabled must be true or false, got an object$/ },
	{ field: 'waitForCompletion', good: false, bad: 'no', expected: /^Wait for Completion must be true or false, got "no"$/ },
	...parameterField('name', 'p', `a${CRLF}`, /^Parameter 1 has control characters .* in its name$/),
	...parameterField('name', 'p', HUGE, /^Parameter 1 has a name longer than 4096 characters$/),
	...parameterField('name', 'p', '  ', /^Parameter 1 has an empty name$/),
	...parameterField('name', 'p', 'pünkt ✓', 'works'),
	...parameterField('type', 'integer', 'boolean', /^Parameter "p" has type "boolean": only string, integer and float are supported$/, 'integer'),
	...parameterField('value', '1', '1e3', /^Parameter "p" must be an integer, got "1e3"$/, 'integer'),
	...parameterField('value', '1.5', 'one', /^Parameter "p" must be a number, got "one"$/, 'float'),
	...parameterField('value', 'x', HUGE, /^Parameter "p" has a value longer than 100000 characters$/),
	...parameterField('value', 'x', { a: 1 }, /^Parameter "p" has a value that is not text or a number$/),
	...parameterField('value', 'x', `two\r\nlines ✓`, 'works'),
	...['{oops', '42', '[null]', '[{"name":"a","value":1},{"name":"a","value":2}]', `{"a\\nb":1}`].map((bad, n): BadInput => ({
		field: 'parametersJson',
		good: '{"p": 1}',
		bad,
		expected: [
			/^Parameters \(JSON\) is not valid JSON$/,
			/^Parameters \(JSON\) must be an array of \{ name, type, value \} or an object of name: value$/,
			/^Parameter 1 must be an object with name, type and value$/,
			/^Parameter "a" is given more than once$/,
			/^Parameter 1 has control characters .* in its name$/,
		][n],
		base: { parametersInputMode: 'json' },
	})),
];

/** What a table row expects, for its test's name. */
function outcome(expected: RegExp | 'works' | 'refusedByService'): string {
	if (expected === 'refusedByService') return 'NodeApiError, refused by the service';
	return expected instanceof RegExp ? `NodeOperationError "${expected.source.replace(/^\^|\$$/g, '')}"` : expected;
}

/** A field of the one parameter row of a Submit. */
function parameterField(key: 'name' | 'type' | 'value', good: unknown, bad: unknown, expected: RegExp | 'works', type = 'string'): BadInput[] {
	const row: IDataObject = { name: 'p', type, value: type === 'string' ? 'x' : '1' };
	return [{ field: `parameters.parameter.0.${key}`, good, bad, expected, base: { parameters: { parameter: [row] } } }];
}

const getManyCases: BadInput[] = [
	{ field: 'scope', good: 'history', bad: 'finished', expected: /^Jobs must be one of all, active, history, got "finished"$/ },
	{ field: 'scope', good: 'all', bad: ['active'], expected: /^Jobs must be one of all, active, history, got a list$/ },
	{ field: 'returnAll', good: 'true', bad: 'all', expected: /^Return All must be true or false, got "all"$/ },
	{ field: 'limit', good: 5, base: { returnAll: false }, bad: 0, expected: /^Limit must be a whole number from 1 to 100, got 0$/ },
	{ field: 'limit', good: 5, base: { returnAll: false }, bad: -3, expected: /^Limit .* got -3$/ },
	{ field: 'limit', good: 5, base: { returnAll: false }, bad: 101, expected: /^Limit .* got 101$/ },
	{ field: 'limit', good: 5, base: { returnAll: false }, bad: 2.5, expected: /^Limit .* got 2\.5$/ },
	{ field: 'limit', good: 5, base: { returnAll: false }, bad: 'ten', expected: /^Limit .* got "ten"$/ },
	{ field: 'filters.executionStatus', good: ['COMPLETED'], bad: ['DONE'], expected: /^Status filter must be among QUEUED, RUNNING, COMPLETED, ERROR, CANCELLED, got "DONE"$/ },
	{ field: 'filters.executionStatus', good: 'completed', bad: 7, expected: /^Status filter .* got a number$/ },
	{ field: 'filters.flowName', good: 'sales', bad: { name: 'sales' }, expected: /^Flow Name filter must be text, got an object$/ },
	{ field: 'filters.runProfileName', good: 'default', bad: `default${CRLF}`, expected: /^Run Profile filter contains control characters/ },
	{ field: 'filters.flowName', good: 'sales', bad: 'sälës ✓', expected: 'works' },
];

const navigationCases: BadInput[] = [
	{ field: 'nodeId', good: 'node_12', bad: 'node_x', expected: /^Node ID "node_x" is not of the form node_<digits>$/ },
	{ field: 'nodeId', good: 'node_12', bad: 'node_', expected: /^Node ID "node_" is not/ },
	{ field: 'nodeId', good: 'node_12', bad: 'NODE_12', expected: /^Node ID "NODE_12" is not/ },
	{ field: 'nodeId', good: 'node_12', bad: 'node_1/../x', expected: /^Node ID "node_1\/\.\.\/x" is not/ },
	{ field: 'nodeId', good: 'node_12', bad: 'node_١٢', expected: /^Node ID "node_١٢" is not/ },
	{ field: 'nodeId', good: 'node_12', bad: 'node_1\r\nX: y', expected: /^Node ID contains control characters/ },
	{ field: 'nodeId', good: 'node_12', bad: '', expected: 'works' },
	{ field: 'flowFileName', good: SALES.path, bad: '', expected: /^Flow File Path is empty$/ },
	{ field: 'flowFileName', good: SALES.path, bad: CRLF, expected: /^Flow File Path contains control characters/ },
	{ field: 'flowFileName', good: SALES.path, bad: '/Shared/a b?c#d&e=ü.flow', expected: 'works' },
	{ field: 'runProfile', good: 'default', bad: ' ', expected: /^Run Profile is empty$/ },
	{ field: 'runProfile', good: 'default', bad: 42, expected: 'works' },
];

const MATRIX: Array<[Operation, BadInput[]]> = [
	['get', [...jobIdCases, ...outputOptionCases, { field: 'options.statusOnly', good: false, bad: 'no', expected: /^Option Status Only must be true or false/ }]],
	['statusOnly', jobIdCases.filter((c) => c.expected !== 'works' || c.bad === 'a/b')],
	['waitForCompletion', [...jobIdCases.filter((c) => c.expected !== 'works' || c.bad === 12345), ...waitCases, ...outputOptionCases]],
	['submit', submitCases],
	['getMany', [...getManyCases, ...outputOptionCases]],
	['getNavigationUrl', navigationCases],
];

/** The only routes each operation may reach (stats keys of the reference server). */
const ROUTES: Record<Interface, Record<Operation, string[]>> = {
	native: {
		get: ['GET /api/v1/jobs/{jobId}'],
		statusOnly: ['GET /api/v1/jobs/{jobId}'],
		waitForCompletion: ['GET /api/v1/jobs/{jobId}'],
		submit: ['POST /api/v1/jobs'],
		getMany: ['GET /api/v1/jobs'],
		getNavigationUrl: [],
	},
	relay: {
		get: ['GET /call/status'],
		statusOnly: ['GET /call/status'],
		waitForCompletion: ['GET /call/status'],
		submit: ['POST /call/execute'],
		getMany: ['GET /call/status'],
		getNavigationUrl: [],
	},
};

/** Figures printed at the end: runs per kind of outcome, and how many of them were checked for secrets. */
const tally = { refused: 0, harmless: 0, credentialForms: 0, triggerSettings: 0, runsCheckedForSecrets: 0 };
afterAll(() => {
	process.stdout.write(
		`bad input: ${tally.refused} bad values refused before any request (NodeOperationError naming field and item), ` +
			`${tally.harmless} harmless ones sent only to their own endpoint, ${tally.credentialForms} credential forms, ` +
			`${tally.triggerSettings} trigger settings; ${tally.runsCheckedForSecrets} runs checked for keys and Authorization values: none found\n`,
	);
});

function setPath(target: IDataObject, path: string, value: unknown): void {
	const keys = path.split('.');
	let node = target;
	for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as IDataObject;
	node[keys[keys.length - 1]] = value as IDataObject;
}

describe.each(INTERFACES)('bad input over the %s interface', (kind: Interface) => {
	let fx: Fixture;
	let doneJob: string;
	beforeAll(async () => {
		fx = await startFixture(kind);
		const submitted = await runActionNode({
			credentials: fx.credentials,
			parameters: { authentication: fx.authentication, resource: 'job', operation: 'submit', ...fx.flow(SALES), runProfileName: 'default' },
		});
		doneJob = submitted.json[0].jobId as string;
		fx.clock.advance(60_000);
	});
	afterAll(async () => {
		await fx.server.close();
	});

	const baseParameters = (operation: Operation): IDataObject => {
		const job = { resource: 'job', jobId: doneJob };
		switch (operation) {
			case 'get':
				return { ...job, operation: 'get' };
			case 'statusOnly':
				return { ...job, operation: 'get', options: { statusOnly: true } };
			case 'waitForCompletion':
				return { ...job, operation: 'waitForCompletion', waitSettings: { pollInterval: 1, timeout: 5 } };
			case 'submit':
				return { resource: 'job', operation: 'submit', ...fx.flow(SALES), runProfileName: 'default' };
			case 'getMany':
				return { resource: 'job', operation: 'getMany', returnAll: true };
			case 'getNavigationUrl':
				return { resource: 'flow', operation: 'getNavigationUrl', flowFileName: SALES.path, runProfile: 'default' };
		}
	};

	const cases = MATRIX.flatMap(([operation, list]) =>
		list
			.filter((c) => c.only === undefined || c.only === kind)
			.filter(() => operation !== 'getNavigationUrl' || kind === 'native')
			.map((c) => ({ operation, ...c, label: `${c.field} = ${JSON.stringify(c.bad)?.slice(0, 40)} → ${outcome(c.expected)}` })),
	);

	test.each(cases)('$operation: $label', async ({ operation, field, good, bad, expected, base }) => {
		const resolve = (value: unknown): IDataObject[string] => (value === 'DONE' ? doneJob : value === 'FLOW' ? fx.flow(SALES)[kind === 'native' ? 'flowFileName' : 'flowId'] : (value as IDataObject[string]));
		const parameters = JSON.parse(JSON.stringify({ authentication: fx.authentication, ...baseParameters(operation), ...base }));
		setPath(parameters, field === 'flow' ? (kind === 'native' ? 'flowFileName' : 'flowId') : field, '={{ $json.v }}');
		const routesBefore = { ...fx.server.stats.byRoute };
		const jobsBefore = fx.server.store.count();

		// Two items, the second one bad, continuing on failure.
		const both = await runActionNode({
			credentials: fx.credentials,
			continueOnFail: true,
			items: [{ v: resolve(good) }, { v: resolve(bad) }],
			parameters: parameters as INodeParameters,
		});
		expectNoSecrets(both, fx.credentials);
		expect(both.error).toBeUndefined();
		const firstOut = both.items.filter((item) => (item.pairedItem as { item: number }).item === 0);
		const secondOut = both.items.filter((item) => (item.pairedItem as { item: number }).item === 1);
		expect(firstOut.length).toBeGreaterThan(0);
		// A failed item carries an error text (a JobStatus has its own `error: null`).
		expect(firstOut.filter((item) => typeof item.json.error === 'string')).toEqual([]);
		const withItem = (n: number) =>
			new RegExp(expected instanceof RegExp ? `${expected.source.replace(/\$$/, '')}${expected.source.endsWith('$') ? '' : '.*'} \\[item ${n}\\]$` : '');

		// The bad item alone, stopping on failure.
		const alone = await runActionNode({
			credentials: fx.credentials,
			items: [{ v: resolve(bad) }],
			parameters: parameters as INodeParameters,
		});
		expectNoSecrets(alone, fx.credentials);

		tally.runsCheckedForSecrets += 2;
		if (expected === 'works') tally.harmless++;
		else tally.refused++;
		if (expected === 'works') {
			// Harmless: at worst the service refuses it (a NodeApiError with its HTTP code), never a crash; alone, the
			// value meets the same fate as the second item did (checked whether it worked or was refused).
			// (Get Many may output no item: no job matched.)
			const refusal = secondOut.find((item) => typeof item.json.error === 'string');
			const fate = refusal === undefined ? 'ok' : `refused ${String(refusal.json.httpCode)}`;
			expect(['ok', 'refused 400']).toContain(fate);
			const aloneFate = alone.error === undefined ? 'ok' : `${alone.error.name} ${String(alone.error.httpCode)}`;
			expect(aloneFate).toBe(fate === 'ok' ? 'ok' : 'NodeApiError 400');
		} else {
			expect(secondOut).toHaveLength(1);
			expect(secondOut[0].json.error).toMatch(withItem(1));
			expect(alone.error?.name).toBe('NodeOperationError');
			expect(alone.error?.message).toMatch(withItem(0));
			expect(alone.error?.context?.itemIndex).toBe(0);
			expect(alone.sent).toHaveLength(0);
			if (operation === 'submit') expect(fx.server.store.count() - jobsBefore).toBe(1); // the good item's job only
		}
		// Never another endpoint: only this operation's routes were reached.
		const reached = Object.keys(fx.server.stats.byRoute).filter((route) => fx.server.stats.byRoute[route] !== routesBefore[route]);
		for (const route of reached) expect(ROUTES[kind][operation]).toContain(route);
		for (const sent of [...both.sent, ...alone.sent]) {
			const endpoint = kind === 'native' ? new URL(sent.url).pathname : String(sent.headers?.endpoint);
			expect(endpoint.startsWith('/api/v1/jobs')).toBe(true);
		}
	});
});

describe('unsupported operation and interface values', () => {
	let fx: Fixture;
	beforeAll(async () => {
		fx = await startFixture('native');
	});
	afterAll(async () => {
		await fx.server.close();
	});

	test.each([
		[{ authentication: 'jobExecutionApi', resource: 'job', operation: 'delete' }, /^The operation "delete" of "job" is not supported$/],
		// n8n itself drops the operation parameter of an unknown resource.
		[{ authentication: 'jobExecutionApi', resource: 'jobs', operation: 'get' }, /^Could not get parameter "operation"$/],
		[{ authentication: 'jobExecutionRelayApi', resource: 'flow', operation: 'getNavigationUrl', flowFileName: '/f', runProfile: 'p' }, /^The relay interface has no navigation endpoint$/],
		[{ authentication: 'somethingElse', resource: 'job', operation: 'getMany', returnAll: true }, /./],
	])('%j → error %s, nothing sent', async (parameters, message) => {
		const result = await runActionNode({ credentials: fx.credentials, parameters: parameters as INodeParameters });
		expect(result.error?.message).toMatch(message);
		expect(result.sent).toHaveLength(0);
		expectNoSecrets(result, fx.credentials);
		tally.runsCheckedForSecrets++;
	});
});

describe.each(INTERFACES)('credential forms over the %s interface', (kind: Interface) => {
	let fx: Fixture;
	beforeAll(async () => {
		fx = await startFixture(kind);
	});
	afterAll(async () => {
		await fx.server.close();
	});

	const urlField = kind === 'native' ? 'baseUrl' : 'relayUrl';
	const label = kind === 'native' ? 'Base URL' : 'Relay URL';
	const suffix = kind === 'native' ? '/api/v1' : '/call';
	type Form = [string, (url: string) => IDataObject, RegExp | 'works' | 'refusedByService'];
	const forms: Form[] = [
		['an empty URL', () => ({ [urlField]: '' }), new RegExp(`^The credential's ${label} is empty$`)],
		['a blank URL', () => ({ [urlField]: '  \t ' }), new RegExp(`^The credential's ${label} is empty$`)],
		['a URL without scheme (host:port)', (url) => ({ [urlField]: url.replace('http://', '') }), new RegExp(`^The credential's ${label} .*must start with http:// or https://$`)],
		['a URL without scheme (name:port)', (url) => ({ [urlField]: url.replace('http://127.0.0.1', 'localhost') }), new RegExp(`^The credential's ${label} must start with http:// or https://$`)],
		['an ftp URL', (url) => ({ [urlField]: url.replace('http', 'ftp') }), /must start with http:\/\/ or https:\/\//],
		['a URL with user and password', (url) => ({ [urlField]: url.replace('http://', 'http://ann:pw-in-url@') }), /must not contain a user or password/],
		['a URL with a query', (url) => ({ [urlField]: `${url}?key=1` }), /must not contain \? or #/],
		['a URL with a fragment', (url) => ({ [urlField]: `${url}#top` }), /must not contain \? or #/],
		['a URL with a trailing slash', (url) => ({ [urlField]: `${url}/` }), 'works'],
		['a URL with the interface suffix and slash', (url) => ({ [urlField]: `${url}${suffix}/` }), 'works'],
		['a URL with spaces and a line break around it', (url) => ({ [urlField]: `  ${url}\r\n` }), 'works'],
		['a URL with another path', (url) => ({ [urlField]: `${url}/prefix` }), 'refusedByService'],
	];
	if (kind === 'relay') {
		forms.push(
			['an empty Relay API Key', () => ({ apiKey: '' }), /^The credential's Relay API Key is empty$/],
			['a Relay API Key with CRLF', () => ({ apiKey: `${RELAY_KEY}\r\nX-Evil: 1` }), /^The credential's Relay API Key contains characters that cannot be sent in an HTTP header/],
			['a User API Key with non-ASCII', () => ({ userApiKey: `${USER_KEY}-clé` }), /^The credential's User API Key contains characters that cannot be sent/],
			['a wrong User API Key', () => ({ userApiKey: 'wrong-user-key' }), 'refusedByService'],
		);
	} else {
		forms.push(
			['an empty token', () => ({ token: '' }), /^The credential's Token is empty$/],
			['a token with a line break', () => ({ token: `${NATIVE_TOKEN}\nX-Evil: 1` }), /^The credential's Token contains characters that cannot be sent/],
			['a wrong token', () => ({ token: 'wrong-native-token' }), 'refusedByService'],
			['an empty header name', () => ({ authType: 'headerAuth', headerName: ' ', headerSecret: 'hdr-secret-1' }), /^The credential's Header Name is empty$/],
			['a header name with a space', () => ({ authType: 'headerAuth', headerName: 'X Key', headerSecret: 'hdr-secret-1' }), /^The credential's Header Name is not a valid HTTP header name$/],
			['a header value with CRLF', () => ({ authType: 'headerAuth', headerName: 'X-Key', headerSecret: 'hdr-secret-1\r\nX: 1' }), /^The credential's Header Value contains characters/],
			['basic auth refused', () => ({ authType: 'basicAuth', user: 'ann', password: 'basic-pass-77' }), 'refusedByService'],
		);
	}

	test.each(forms.map(([name, change, expected]) => ({ name, change, expected, outcome: outcome(expected) })))('$name → $outcome', async ({ change, expected }) => {
		const type = fx.authentication;
		const credentials = { ...fx.credentials, [type]: { ...fx.credentials[type], ...change(fx.server.url) } } as CredentialsMap;
		const jobsBefore = fx.server.store.count();
		for (const operation of ['getMany', 'submit']) {
			const result = await runActionNode({
				credentials,
				parameters: { authentication: type, resource: 'job', operation, returnAll: true, ...fx.flow(SALES), runProfileName: 'default' },
			});
			expectNoSecrets(result, credentials);
			tally.runsCheckedForSecrets++;
			if (expected === 'works') {
				expect(result.error).toBeUndefined();
			} else if (expected === 'refusedByService') {
				expect(result.error?.name).toBe('NodeApiError');
				expect(result.error?.httpCode).toMatch(/^40[134]$/);
				expect(result.error?.description).toMatch(new RegExp(`Check the (${label} of the credential|authentication settings|Relay API Key)`));
			} else {
				expect(result.error?.name).toBe('NodeOperationError');
				expect(result.error?.message).toMatch(expected);
				expect(result.sent).toHaveLength(0);
			}
		}
		expect(fx.server.store.count() - jobsBefore).toBe(expected === 'works' ? 1 : 0);
		tally.credentialForms++;
	});
});

describe.each(INTERFACES)('trigger settings over the %s interface', (kind: Interface) => {
	let fx: Fixture;
	beforeAll(async () => {
		fx = await startFixture(kind);
	});
	afterAll(async () => {
		await fx.server.close();
	});

	test.each([
		[{ options: { maxIndividualReads: 0 } }, /^Max Individual Reads per Poll must be a whole number from 1 to 500, got 0$/],
		[{ options: { maxIndividualReads: -1 } }, /got -1$/],
		[{ options: { maxIndividualReads: 1e9 } }, /got 1000000000$/],
		[{ options: { maxIndividualReads: '={{ "many" }}' } }, /got "many"$/],
		[{ statuses: '={{ "COMPLETED" }}' }, /^Statuses to Watch must be a list among QUEUED, RUNNING, COMPLETED, ERROR, CANCELLED$/],
		[{ statuses: ['COMPLETED', 'DONE'] }, /^Statuses to Watch must be a list/],
		[{ triggerOn: 'sometimes' }, /^Trigger On must be "statuses" or "anyChange"$/],
		[{ filters: { flowName: '={{ { name: "sales" } }}' } }, /^Flow Name filter must be text$/],
	])('%j → the poll stops with %s, before any request, storing nothing', async (settings, message) => {
		const before = fx.server.stats.requests;
		const poller = createPoller({ authentication: fx.authentication, ...settings } as INodeParameters, fx.credentials);
		const failed = await poller.poll().then(
			() => undefined,
			(error: Error) => error,
		);
		expect(failed?.name).toBe('NodeOperationError');
		expect(failed?.message).toMatch(message);
		expect(fx.server.stats.requests).toBe(before);
		expect(poller.storedState()).toEqual({});
		for (const secret of SECRETS) expect(JSON.stringify(failed, Object.getOwnPropertyNames(failed))).not.toContain(secret);
		tally.triggerSettings++;
	});

	test('a credential that cannot be sent stops the poll before any request', async () => {
		const type = fx.authentication;
		const field = kind === 'native' ? 'token' : 'apiKey';
		const credentials = { ...fx.credentials, [type]: { ...fx.credentials[type], [field]: `${String(fx.credentials[type][field])}\r\nX: 1` } } as CredentialsMap;
		const before = fx.server.stats.requests;
		const poller = createPoller({ authentication: type }, credentials);
		await expect(poller.poll()).rejects.toMatchObject({ name: 'NodeOperationError', message: expect.stringMatching(/contains characters that cannot be sent in an HTTP header/) });
		expect(fx.server.stats.requests).toBe(before);
	});
});
