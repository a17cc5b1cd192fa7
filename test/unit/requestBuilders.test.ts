// The pure request builders: one native call sent two ways (native, relay), job parameters, and tolerant body reading.
import { buildNativeRequest, buildRelayRequest, encodeQuery, flowNavigationUrl, jobsPath, listCall, readJobCall, submitCall } from '../../nodes/shared/transport/requestBuilders';
import { credentialProblem, displayHost, keyAsSent, normalizeServiceUrl } from '../../nodes/shared/transport/serviceCredentials';
import { jobIdProblem } from '../../nodes/shared/jobVocabulary';
import { checkParameters, parametersFromJson } from '../../nodes/JobExecution/helpers/jobParameters';
import { cleanParsed, cutMarker, jsonShapeProblem, MAX_ANSWER_VALUES, MAX_STRING_CHARS, parseBody } from '../../nodes/shared/transport';
import { secretForms } from '../../nodes/shared/redaction';

describe('request builders: one call, two interfaces', () => {
	const read = readJobCall('4f1e', true);
	const submit = submitCall({ flowId: 'f-1', runProfileName: 'default', notificationEnabled: false });

	test('native: the path under /api/v1 with the query', () => {
		expect(buildNativeRequest('https://jobs.example.com/base', read)).toEqual({
			method: 'GET',
			url: 'https://jobs.example.com/base/api/v1/jobs/4f1e?filter=executionStatus',
			headers: { Accept: 'application/json, text/plain, */*' },
		});
	});

	test('relay: reads go to /call/status with the native call in endpoint and method', () => {
		expect(buildRelayRequest('https://relay.example.com', read)).toEqual({
			method: 'GET',
			url: 'https://relay.example.com/call/status',
			headers: {
				Accept: 'application/json, text/plain, */*',
				'Content-Type': 'application/json',
				endpoint: '/api/v1/jobs/4f1e?filter=executionStatus',
				method: 'GET',
			},
		});
	});

	test('relay: a submit goes to /call/execute with its body', () => {
		const request = buildRelayRequest('https://relay.example.com', submit);
		expect(request.url).toBe('https://relay.example.com/call/execute');
		expect(request.headers).toMatchObject({ endpoint: '/api/v1/jobs', method: 'POST' });
		expect(request.body).toEqual(submit.body);
	});

	test.each([
		[undefined, ''],
		[{}, ''],
		[{ filter: undefined }, ''],
		[{ filter: 'active' }, '?filter=active'],
		[{ a: 'x y', b: '/p&q=1' }, '?a=x%20y&b=%2Fp%26q%3D1'],
	])('encodeQuery(%j) = %j', (query, expected) => {
		expect(encodeQuery(query)).toBe(expected);
	});

	test.each([
		['abc', '/jobs/abc'],
		['a/b', '/jobs/a%2Fb'],
		['../flows', '/jobs/..%2Fflows'],
		['x?y#z', '/jobs/x%3Fy%23z'],
	])('jobsPath(%j) = %j: the id stays one segment', (id, path) => {
		expect(jobsPath(id)).toBe(path);
	});

	test.each([
		['', 'is empty'],
		['.', 'cannot be "." or ".."'],
		['..', 'cannot be "." or ".."'],
		['a\nb', 'contains control characters'],
		['a\u0085b', 'contains control characters'],
		['x'.repeat(257), 'is longer than 256 characters'],
		['3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10', null],
	])('jobIdProblem(%j) = %j', (id, problem) => {
		expect(jobIdProblem(id)).toBe(problem);
	});

	test.each([
		['https://jobs.example.com', 'jobExecutionApi', 'https://jobs.example.com'],
		['  https://jobs.example.com/  ', 'jobExecutionApi', 'https://jobs.example.com'],
		['https://jobs.example.com/api/v1/', 'jobExecutionApi', 'https://jobs.example.com'],
		['http://10.0.0.5:8080/prefix/api/v1', 'jobExecutionApi', 'http://10.0.0.5:8080/prefix'],
		['https://relay.example.com/call', 'jobExecutionRelayApi', 'https://relay.example.com'],
		// Every trailing slash goes, then the interface's suffix, in any case, only at the end.
		['https://jobs.example.com/api/v1//', 'jobExecutionApi', 'https://jobs.example.com'],
		['https://jobs.example.com/API/V1', 'jobExecutionApi', 'https://jobs.example.com'],
		['https://jobs.example.com/api/v1/extra', 'jobExecutionApi', 'https://jobs.example.com/api/v1/extra'],
		['https://relay.example.com/CALL/', 'jobExecutionRelayApi', 'https://relay.example.com'],
		['https://relay.example.com/call/extra', 'jobExecutionRelayApi', 'https://relay.example.com/call/extra'],
		['https://relay.example.com/api/v1', 'jobExecutionRelayApi', 'https://relay.example.com/api/v1'],
	] as const)('normalizeServiceUrl(%j, %s) = %j', (raw, type, url) => {
		expect(normalizeServiceUrl(raw, type)).toEqual({ url });
	});

	test.each([
		['', /is empty/],
		['jobs.example.com', /not a valid URL/],
		['ftp://jobs.example.com', /must start with http/],
		['https://user:pw@jobs.example.com', /must not contain a user or password/],
		['https://jobs.example.com/?x=1', /must not contain \? or #/],
	])('normalizeServiceUrl refuses %j → %s', (raw, problem) => {
		expect(normalizeServiceUrl(raw, 'jobExecutionApi').problem).toMatch(problem);
	});

	test('flowNavigationUrl encodes every value and omits an empty node', () => {
		expect(flowNavigationUrl('http://h', { flowFileName: '/S/a b.flow', runProfile: 'p&q' })).toBe(
			'http://h/api/v1/flows?flowFileName=%2FS%2Fa%20b.flow&runProfile=p%26q',
		);
	});
});

describe('the calls, exactly as built (every field, none extra)', () => {
	test('submit, read (whole or status only) and list: intent, method, path and query', () => {
		const body = { flowId: 'f-1' };
		expect(submitCall(body)).toStrictEqual({ intent: 'submit', method: 'POST', path: '/jobs', body });
		expect(readJobCall('a b')).toStrictEqual({ intent: 'readJob', method: 'GET', path: '/jobs/a%20b', query: { filter: undefined } });
		expect(readJobCall('a', true).query).toStrictEqual({ filter: 'executionStatus' });
		expect(listCall('active')).toStrictEqual({ intent: 'list', method: 'GET', path: '/jobs', query: { filter: 'active' } });
		expect(listCall().query).toStrictEqual({ filter: undefined });
	});

	test('an id that cannot name one job is refused before any call is built, saying why', () => {
		expect(() => jobsPath('')).toThrow(new Error('Job ID is empty'));
		expect(() => readJobCall('..')).toThrow(new Error('Job ID cannot be "." or ".."'));
	});

	test('a query leaves out empty values as well as missing ones', () => {
		expect(encodeQuery({ a: 'x', b: '', c: undefined })).toBe('?a=x');
		expect(encodeQuery({ b: '' })).toBe('');
	});

	test('native: a submit carries its body as JSON; a read carries no body and no Content-Type', () => {
		const body = { flowId: 'f-1' };
		expect(buildNativeRequest('http://h', submitCall(body))).toStrictEqual({
			method: 'POST',
			url: 'http://h/api/v1/jobs',
			headers: { Accept: 'application/json, text/plain, */*', 'Content-Type': 'application/json' },
			body,
		});
		expect(buildNativeRequest('http://h', readJobCall('a'))).toStrictEqual({ method: 'GET', url: 'http://h/api/v1/jobs/a', headers: { Accept: 'application/json, text/plain, */*' } });
	});

	test('relay: a read carries no body at all', () => {
		expect('body' in buildRelayRequest('http://r', readJobCall('a'))).toBe(false);
	});
});

describe('what a credential holds, checked before anything is sent', () => {
	test.each([
		[undefined, "The credential's Base URL is empty"],
		[42, "The credential's Base URL is empty"],
		['  jobs.example.com  ', 'The credential\'s Base URL "jobs.example.com" is not a valid URL: it must start with http:// or https://'],
		['https://user@jobs.example.com', "The credential's Base URL must not contain a user or password: use the authentication fields"],
		['https://:pw@jobs.example.com', "The credential's Base URL must not contain a user or password: use the authentication fields"],
		['https://jobs.example.com/#top', "The credential's Base URL must not contain ? or #"],
	])('normalizeServiceUrl refuses %j: %s', (raw, problem) => {
		expect(normalizeServiceUrl(raw, 'jobExecutionApi')).toStrictEqual({ problem });
	});

	test('messages name the host and port only, never the path or a user; an address that is no URL is named as the field', () => {
		expect(displayHost('https://u:p@jobs.example.com:8443/base?x=1')).toBe('jobs.example.com:8443');
		expect(displayHost('not a url')).toBe('the configured URL');
	});

	test('a key as sent: outer white space trimmed; nothing is an empty key; a number is its digits', () => {
		expect([keyAsSent(' \tk y\n'), keyAsSent(undefined), keyAsSent(null), keyAsSent(42)]).toEqual(['k y', '', '', '42']);
	});

	const bad = "contains characters that cannot be sent in an HTTP header (line breaks, control or non-ASCII characters)";
	test.each([
		['jobExecutionRelayApi', { userApiKey: 'u' }, "The credential's Relay API Key is empty"],
		['jobExecutionRelayApi', { apiKey: ' k ', userApiKey: '\n' }, "The credential's User API Key is empty"],
		['jobExecutionRelayApi', { apiKey: 'k', userApiKey: 'a\nb' }, `The credential's User API Key ${bad}`],
		['jobExecutionRelayApi', { apiKey: ' k ', userApiKey: 'u&<>"\'+/%' }, null],
		['jobExecutionApi', { authType: 'bearerToken', token: '  ' }, "The credential's Token is empty"],
		['jobExecutionApi', { authType: 'bearerToken', token: '\u00e9tok' }, `The credential's Token ${bad}`],
		['jobExecutionApi', { authType: 'bearerToken', token: 'tok\u00e9' }, `The credential's Token ${bad}`],
		['jobExecutionApi', { authType: 'bearerToken', token: ' tok ' }, null],
		['jobExecutionApi', { authType: 'headerAuth', headerName: 42, headerSecret: 's' }, "The credential's Header Name is empty"],
		['jobExecutionApi', { authType: 'headerAuth', headerName: '  ', headerSecret: 's' }, "The credential's Header Name is empty"],
		['jobExecutionApi', { authType: 'headerAuth', headerName: 'X-Key:', headerSecret: 's' }, "The credential's Header Name is not a valid HTTP header name"],
		['jobExecutionApi', { authType: 'headerAuth', headerName: ':X-Key', headerSecret: 's' }, "The credential's Header Name is not a valid HTTP header name"],
		['jobExecutionApi', { authType: 'headerAuth', headerName: ' X-Key ', headerSecret: '' }, "The credential's Header Value is empty"],
		['jobExecutionApi', { authType: 'headerAuth', headerName: "X-Key!#$%&'*+.^_`|~09", headerSecret: 's' }, null],
		['jobExecutionApi', { authType: 'basicAuth', user: '', password: '' }, null],
	] as const)('credentialProblem(%s, %j) = %j', (type, credentials, problem) => {
		expect(credentialProblem(credentials as Record<string, unknown>, type)).toBe(problem);
	});
});

describe('job parameters', () => {
	test.each([
		[{ name: 'n', type: 'integer', value: ' -42 ' }, { name: 'n', type: 'integer', value: '-42' }],
		[{ name: 'f', type: 'FLOAT', value: '1e3' }, { name: 'f', type: 'float', value: '1e3' }],
		[{ name: 'f', type: 'float', value: 0.5 }, { name: 'f', type: 'float', value: '0.5' }],
		[{ name: ' s ', value: ' keep spaces ' }, { name: 's', type: 'string', value: ' keep spaces ' }],
	])('accepts %j → %j', (raw, expected) => {
		expect(checkParameters([raw])).toEqual({ parameters: [expected] });
	});

	test.each([
		[{ name: 'n', type: 'integer', value: '4.2' }, 'must be an integer, got "4.2"'],
		[{ name: 'n', type: 'integer', value: '' }, 'must be an integer, got ""'],
		[{ name: 'f', type: 'float', value: 'NaN' }, 'must be a number, got "NaN"'],
		[{ name: 'f', type: 'float', value: 'Infinity' }, 'must be a number, got "Infinity"'],
		[{ name: 'b', type: 'boolean', value: 'true' }, 'has type "boolean": only string, integer and float are supported'],
		[{ name: 'o', value: { nested: true } }, 'has a value that is not text or a number'],
		[{ name: '', value: 'x' }, 'has an empty name'],
	])('refuses %j → %j', (raw, reason) => {
		expect(checkParameters([raw]).problem?.reason).toBe(reason);
	});

	test('JSON: an object map infers types; invalid JSON and wrong shapes are named', () => {
		expect(parametersFromJson({ a: 1, b: 1.5, c: 'x' }).parameters).toEqual([
			{ name: 'a', type: 'integer', value: '1' },
			{ name: 'b', type: 'float', value: '1.5' },
			{ name: 'c', type: 'string', value: 'x' },
		]);
		expect(parametersFromJson('{oops').problem).toEqual({ subject: 'Parameters (JSON)', reason: 'is not valid JSON' });
		expect(parametersFromJson('[1]').problem?.subject).toBe('Parameter 1');
		expect(parametersFromJson('42').problem?.subject).toBe('Parameters (JSON)');
		expect(parametersFromJson('').parameters).toEqual([]);
	});
});

describe('job parameters keep the digits the user wrote (issue 26 §5)', () => {
	const sent = (json: string) => parametersFromJson(json).parameters?.map((parameter) => [parameter.type, parameter.value]);

	test('whole numbers beyond 2^53 in Parameters (JSON) text are sent digit for digit, as integers', () => {
		expect(sent('{"n": 9007199254740993}')).toEqual([['integer', '9007199254740993']]);
		expect(sent('{"n": -9007199254740993}')).toEqual([['integer', '-9007199254740993']]);
		expect(sent('{"n": 123456789012345678901234567890}')).toEqual([['integer', '123456789012345678901234567890']]);
		expect(sent('{"n": 1.2345678901234568e+29}')).toEqual([['integer', '123456789012345680000000000000']]);
		expect(sent('[{"name": "n", "type": "integer", "value": 9007199254740993}]')).toEqual([['integer', '9007199254740993']]);
		expect(sent('[{"name": "s", "type": "string", "value": 12345678901234567890}]')).toEqual([['string', '12345678901234567890']]);
	});

	test('floats with more digits than a double holds keep their literal; numbers a double holds read as before', () => {
		expect(sent('{"f": 0.12345678901234567891}')).toEqual([['float', '0.12345678901234567891']]);
		expect(sent('{"a": 1, "b": 1.5, "c": 1e3, "d": 1e21, "e": -0, "f": 1.50}')).toEqual([
			['integer', '1'],
			['float', '1.5'],
			['integer', '1000'],
			['integer', '1000000000000000000000'],
			['integer', '0'],
			['float', '1.5'],
		]);
		// Digits inside strings, keys and escapes are text, never numbers.
		expect(sent('{"9007199254740993": "9007199254740993\\" 1"}')).toEqual([['string', '9007199254740993" 1']]);
	});

	test('a whole number beyond 2^53 that reached the node already parsed is refused, saying why, never sent altered', () => {
		// What an expression hands over when the user wrote 9007199254740993: the nearest double, 2^53.
		expect(parametersFromJson({ n: 2 ** 53 }).problem).toEqual({
			subject: 'Parameter "n"',
			reason: 'is a whole number beyond 2^53 (9007199254740992) whose digits may have changed before it reached the node: give it as text, in quotes',
		});
		expect(parametersFromJson({ n: 1e21 }).parameters).toEqual([{ name: 'n', type: 'integer', value: '1000000000000000000000' }]);
		expect(sent('{"n": 1e400}')).toEqual([['integer', `1${'0'.repeat(400)}`]]);
		expect(sent('{"n": 1e999999999}')).toEqual([['float', '1e999999999']]);
	});
});

describe('parseBody: tolerant, but never takes broken JSON for text', () => {
	test.each([
		[undefined, '', null],
		['', 'application/json', null],
		['  ', 'text/plain', null],
		['{"jobId":"a"}', 'application/json', { jobId: 'a' }],
		['"RUNNING"', 'application/json', 'RUNNING'],
		['RUNNING', 'text/plain', 'RUNNING'],
		['RUNNING', '', 'RUNNING'],
		['<html>oops</html>', 'text/html', '<html>oops</html>'],
		['{"jobId":"a', 'application/json', undefined],
		['{"jobId":"a', '', undefined],
		['[1, 2', 'text/plain', undefined],
		['RUNN', 'application/problem+json; charset=utf-8', undefined],
	])('%j as %j → %p', (raw, contentType, expected) => {
		expect(parseBody(raw, contentType)).toEqual(expected);
	});
});

describe('the bounds of an answer before it is believed (transport/answer.ts)', () => {
	test('jsonShapeProblem: nesting and values are counted outside strings only, escapes included', () => {
		expect(jsonShapeProblem('['.repeat(32) + ']'.repeat(32))).toBeNull();
		expect(jsonShapeProblem('['.repeat(33) + ']'.repeat(33))).toBe('is nested deeper than 32 levels');
		expect(jsonShapeProblem('['.repeat(200_000))).toBe('is nested deeper than 32 levels');
		expect(jsonShapeProblem(JSON.stringify({ log: '[[[[,,,,::::{{{{'.repeat(100_000), quoted: 'a "[" \\" [' }))).toBeNull();
		expect(jsonShapeProblem(`[${'0,'.repeat(MAX_ANSWER_VALUES)}0]`)).toBe('holds more than 100,000 values');
		expect(jsonShapeProblem(`[${'0,'.repeat(MAX_ANSWER_VALUES - 2)}0]`)).toBeNull();
		// An escaped backslash before a quote closes the string; an escaped quote does not.
		expect(jsonShapeProblem('{"a":"x\\\\","b":[[' + ']]}')).toBeNull();
		expect(jsonShapeProblem('["x\\"[[[[' + '"]')).toBeNull();
	});

	test('cleanParsed: every string and key redacted and cut, __proto__ kept as an own key, 200,000 strings without recursion', async () => {
		const forms = secretForms(['s3cret-token-1a2b']);
		const parsed = JSON.parse(
			JSON.stringify({ log: 'Bearer s3cret-token-1a2b', 'key S3CRET-TOKEN-1A2B': 1, nested: [{ deep: ['x s3cret-token-1a2b'] }], long: 'y'.repeat(MAX_STRING_CHARS + 5) }).replace('"log"', '"__proto__":"p","log"'),
		);
		const cleaned = (await cleanParsed(parsed, forms)) as Record<string, unknown>;
		expect(cleaned.log).toBe('Bearer ***');
		expect(Object.keys(cleaned)).toContain('key ***');
		expect(cleaned.nested).toEqual([{ deep: ['x ***'] }]);
		expect(cleaned.long).toBe('y'.repeat(MAX_STRING_CHARS) + cutMarker(5));
		expect(Object.getPrototypeOf(cleaned)).toBe(Object.prototype);
		expect(Object.getOwnPropertyDescriptor(cleaned, '__proto__')?.value).toBe('p');
		const many = Array.from({ length: 200_000 }, (_, n) => `s3cret-token-1a2b ${n}`);
		const cleanedMany = (await cleanParsed(many, forms)) as string[];
		expect(cleanedMany[199_999]).toBe('*** 199999');
		// What n8n stores survives JSON whole: no undefined, no NaN, no value JSON changes.
		expect(JSON.parse(JSON.stringify(cleaned))).toStrictEqual(cleaned);
	});
});
