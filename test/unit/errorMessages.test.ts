/**
 * What a failed call says to the user (nodes/shared/transport/errors.ts), word for word: every failure kind for each
 * intent and both credentials, the service's own message and where it is cut, Retry-After read at its edges, and what
 * the thrown error keeps for the loops that read it back (retry, a job's fate, the pause asked for, the plain words).
 * The words are the contract users read: each table row fails if a branch or a phrase of errors.ts changes.
 */
import type { INode } from 'n8n-workflow';

import { listCall, readJobCall, submitCall } from '../../nodes/shared/transport';
import type { ApiCall, Connection } from '../../nodes/shared/transport';
import type { Failure } from '../../nodes/shared/transport/errors';
import {
	callSubject,
	classifyFailure,
	failureInWords,
	isRetryableError,
	isTlsFailureCode,
	MAX_RETRY_AFTER_MS,
	MAY_HAVE_ACCEPTED,
	mayHaveAcceptedJob,
	parseRetryAfter,
	retryAfterMs,
	serviceMessage,
	toNodeApiError,
} from '../../nodes/shared/transport/errors';

const node = { id: 'n', name: 'Job Execution', type: 'x', typeVersion: 2, position: [0, 0], parameters: {} } as INode;
const NATIVE: Connection = { credentialType: 'jobExecutionApi', baseUrl: 'http://127.0.0.1:5678' };
const RELAY: Connection = { credentialType: 'jobExecutionRelayApi', baseUrl: 'https://relay.example:8443' };
const SUBMIT = submitCall({ flowFileName: '/a.flow', runProfileName: 'p' });
const READ = readJobCall('job 7/x');
const LIST = listCall();
const CHECK = 'The service may have accepted the job: check the job list before resubmitting.';

function words(failure: Failure, call: ApiCall, connection: Connection = NATIVE, secrets: string[] = []) {
	const error = toNodeApiError(node, failure, call, connection, secrets, 3);
	return { message: error.message, description: error.description ?? undefined };
}

describe('the words of a refused or failed status, per intent and credential', () => {
	test('what a submit says whenever its job may exist', () => {
		expect(MAY_HAVE_ACCEPTED).toBe(CHECK);
	});

	const status = (statusCode: number, body: unknown = '', retryAfter?: number): Failure => ({ kind: 'status', statusCode, body, retryAfterMs: retryAfter });

	test.each([401, 403])('HTTP %i: the credential to check, named for its type', (code) => {
		for (const call of [SUBMIT, READ, LIST]) {
			expect(words(status(code), call)).toEqual({ message: `The service refused the credentials (HTTP ${code})`, description: 'Check the authentication settings of the Job Execution API credential.' });
			expect(words(status(code), call, RELAY)).toEqual({
				message: `The service refused the credentials (HTTP ${code})`,
				description: 'Check the Relay API Key and the User API Key of the Job Execution Relay API credential.',
			});
		}
	});

	test('HTTP 400 with the service\'s reason: the reason, and the hint of the intent', () => {
		const body = { message: 'flow is locked' };
		expect(words(status(400, body), SUBMIT)).toEqual({ message: 'Bad request: flow is locked', description: 'The service refused the job: check the flow path, the run profile and the parameters.' });
		expect(words(status(400, body), SUBMIT, RELAY)).toEqual({ message: 'Bad request: flow is locked', description: 'The service refused the job: check the flow ID, the run profile and the parameters.' });
		expect(words(status(400, body), READ)).toEqual({
			message: 'Bad request: flow is locked',
			description: 'The service could not answer for this job: check the job ID (jobs may also be removed after a while).',
		});
		expect(words(status(400, body), LIST)).toEqual({ message: 'Bad request: flow is locked', description: 'The service refused the job list request.' });
	});

	test('HTTP 400 without detail: a submit may have created its job (the spec\'s 400 is also "server error"); a read says what it could not do', () => {
		expect(words(status(400), SUBMIT)).toEqual({
			message: 'The service answered the submission with HTTP 400 and no detail',
			description: `Check the flow path, the run profile and the parameters. The service also answers 400 for its own errors. ${CHECK}`,
		});
		expect(words(status(400, '<html>Bad Request</html>'), SUBMIT, RELAY)).toEqual({
			message: 'The service answered the submission with HTTP 400 and no detail',
			description: `Check the flow ID, the run profile and the parameters. The service also answers 400 for its own errors. ${CHECK}`,
		});
		const noDetail = 'The service answered 400 without any detail (it also uses 400 for its own errors).';
		expect(words(status(400), READ)).toEqual({ message: 'The service could not answer for this job: check the job ID (jobs may also be removed after a while).', description: noDetail });
		expect(words(status(400), LIST)).toEqual({ message: 'The service refused the job list request.', description: noDetail });
	});

	test('HTTP 404: the URL field of the credential, and the service\'s own words when it has some', () => {
		expect(words(status(404), READ)).toEqual({
			message: 'The service has no such endpoint (HTTP 404)',
			description: 'Check the Base URL of the credential: it should be the service address, without /api/v1.',
		});
		expect(words(status(404, 'no job 7'), SUBMIT, RELAY)).toEqual({
			message: 'Not found: no job 7',
			description: 'Check the Relay URL of the credential: it should be the relay address, without /call.',
		});
	});

	test('HTTP 413', () => {
		expect(words(status(413, 'too big'), SUBMIT)).toEqual({ message: 'The request is too large for the service (HTTP 413)', description: 'Send fewer or shorter parameters.' });
	});

	test('HTTP 429: a submit turned away created nothing; the pause asked for is said with its time', () => {
		jest.spyOn(Date, 'now').mockReturnValue(Date.UTC(2026, 10, 29, 4, 0, 0));
		try {
			expect(words(status(429), READ)).toEqual({ message: 'The service is rate limiting requests (HTTP 429)', description: 'Retry later or poll less often.' });
			expect(words(status(429, '', 1), LIST).description).toBe('Retry later or poll less often. The service asked to retry in 1 s (at 2026-11-29T04:00:00.001Z).');
			expect(words(status(429, '', 90_500), SUBMIT)).toEqual({
				message: 'The service is rate limiting requests (HTTP 429)',
				description: 'The service turned the request away, so no job was submitted: retry later. The service asked to retry in 91 s (at 2026-11-29T04:01:30.500Z).',
			});
			expect(words(status(429, '', 0), SUBMIT).description).toBe('The service turned the request away, so no job was submitted: retry later. The service asked to retry in 0 s (at 2026-11-29T04:00:00.000Z).');
		} finally {
			jest.restoreAllMocks();
		}
	});

	test.each([500, 502, 503, 504, 599])('HTTP %i: the service failed; a read was retried where safe, a submit may exist', (code) => {
		expect(words(status(code), READ)).toEqual({ message: `The service failed (HTTP ${code})`, description: 'The service had an internal error; the request was retried where it was safe to.' });
		expect(words(status(code, { error: 'disk full' }), SUBMIT)).toEqual({ message: `The service failed (HTTP ${code}): disk full`, description: CHECK });
	});

	test('a 5xx asked for a pause: said after the fate', () => {
		jest.spyOn(Date, 'now').mockReturnValue(0);
		try {
			expect(words(status(503, '', 2000), LIST).description).toBe('The service had an internal error; the request was retried where it was safe to. The service asked to retry in 2 s (at 1970-01-01T00:00:02.000Z).');
		} finally {
			jest.restoreAllMocks();
		}
	});

	test('a pause that kept a submission from being sent: nothing was submitted, whichever status asked for it', () => {
		const notSent = (statusCode: number): Failure => ({ kind: 'status', statusCode, body: '', retryAfterMs: 120_000, notSent: true });
		expect(words(notSent(503), SUBMIT).description).toMatch(/^The service turned the job away, so no job was submitted\. The service asked to retry in 120 s \(at /);
		expect(words(notSent(429), SUBMIT).description).toMatch(/^The service turned the request away, so no job was submitted: retry later\. The service asked to retry in 120 s/);
	});

	test.each([
		[302, undefined],
		[409, 'already running'],
		[422, undefined],
	])('any other status (%i): unexpected, with the service\'s words, and a submit\'s fate only where it may exist', (code, text) => {
		const failure = status(code, text === undefined ? '' : { detail: text });
		const said = text === undefined ? '' : `: ${text}`;
		expect(words(failure, READ)).toEqual({ message: `Unexpected answer from the service (HTTP ${code})${said}`, description: undefined });
		expect(words(failure, SUBMIT)).toEqual({ message: `Unexpected answer from the service (HTTP ${code})${said}`, description: undefined });
	});
});

describe('the words of a connection that failed, broke or was refused for its certificate', () => {
	const network = (code: string, answered?: number): Failure => ({ kind: 'network', code, detail: '', answered });

	test('cannot be reached: the host and the code; a submit says whether the request left', () => {
		expect(words(network('ECONNREFUSED'), READ)).toEqual({
			message: 'The Job Execution service cannot be reached at 127.0.0.1:5678 (ECONNREFUSED)',
			description: 'ECONNREFUSED: check that the service runs and that the URL of the credential is right.',
		});
		expect(words(network('ENOTFOUND'), SUBMIT)).toEqual({
			message: 'The Job Execution service cannot be reached at 127.0.0.1:5678 (ENOTFOUND)',
			description: 'The request never reached the service, so no job was submitted.',
		});
		expect(words(network('ECONNRESET'), SUBMIT, RELAY)).toEqual({
			message: 'The Job Execution service cannot be reached at relay.example:8443 (ECONNRESET)',
			description: `The connection failed after the request was sent. ${CHECK}`,
		});
	});

	test('a connection that broke after the service answered is never "cannot be reached"', () => {
		expect(words(network('ECONNRESET', 200), LIST)).toEqual({
			message: 'The service at 127.0.0.1:5678 answered the job list (HTTP 200), but the connection broke before its answer ended (ECONNRESET)',
			description: 'The service or a proxy closed the connection while the answer was read; the request was retried where it was safe to.',
		});
		// Even with a handshake's code: the answer came, so the handshake did not fail.
		expect(words(network('EPROTO', 201), SUBMIT)).toEqual({
			message: 'The service at 127.0.0.1:5678 answered the submission (HTTP 201), but the connection broke before its answer ended (EPROTO)',
			description: `The request reached the service. ${CHECK}`,
		});
	});

	const ignore = 'turn on Ignore SSL Issues (Insecure) in the credential';
	const ignoreHow = 'That setting accepts any certificate for this credential, so the connection is no longer protected against impostors.';
	const trustHow = `${ignoreHow} To trust a private certificate authority instead, start n8n with NODE_EXTRA_CA_CERTS set to the path of its certificate (a PEM file).`;
	test.each([
		['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate', `${ignore}, or make n8n trust your CA with NODE_EXTRA_CA_CERTS`, trustHow],
		['SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in its chain', `${ignore}, or make n8n trust your CA with NODE_EXTRA_CA_CERTS`, trustHow],
		['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'certificate signed by an authority n8n does not know', `${ignore}, or make n8n trust your CA with NODE_EXTRA_CA_CERTS`, trustHow],
		['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'certificate signed by an authority n8n does not know', `${ignore}, or make n8n trust your CA with NODE_EXTRA_CA_CERTS`, trustHow],
		['UNABLE_TO_GET_ISSUER_CERT', 'certificate signed by an authority n8n does not know', `${ignore}, or make n8n trust your CA with NODE_EXTRA_CA_CERTS`, trustHow],
		['CERT_UNTRUSTED', 'certificate not trusted', `${ignore}, or make n8n trust your CA with NODE_EXTRA_CA_CERTS`, trustHow],
		['CERT_SIGNATURE_FAILURE', 'certificate with an invalid signature', `${ignore}, or make n8n trust your CA with NODE_EXTRA_CA_CERTS`, trustHow],
		['CERT_HAS_EXPIRED', 'expired certificate', `renew the service's certificate, or ${ignore}`, ignoreHow],
		['CERT_NOT_YET_VALID', 'certificate not valid yet', `renew the service's certificate, or ${ignore}`, ignoreHow],
		['ERR_TLS_CERT_ALTNAME_INVALID', 'certificate issued for another host name', `set the credential's Base URL to a host name the certificate holds, or ${ignore}`, ignoreHow],
	])('%s: what the service presented, and its fix', (code, what, fix, how) => {
		expect(isTlsFailureCode(code)).toBe(true);
		expect(words(network(code), READ)).toEqual({
			message: `The Job Execution service at 127.0.0.1:5678 presented a certificate n8n does not trust (${what}): ${fix}`,
			description: `${how} (${code})`,
		});
		expect(words(network(code), SUBMIT).description).toBe(`${how} The request never reached the service, so no job was submitted. (${code})`);
		expect(failureInWords(toNodeApiError(node, network(code), READ, NATIVE, []))).toBe(`the service's certificate is not trusted (${what})`);
	});

	test('a certificate for another name: the relay credential\'s own field', () => {
		expect(words(network('ERR_TLS_CERT_ALTNAME_INVALID'), LIST, RELAY).message).toBe(
			`The Job Execution service at relay.example:8443 presented a certificate n8n does not trust (certificate issued for another host name): set the credential's Relay URL to a host name the certificate holds, or ${ignore}`,
		);
	});

	test.each(['EPROTO', 'ERR_SSL_WRONG_VERSION_NUMBER'])('a failed handshake (%s): https on a plain http service, never sent', (code) => {
		expect(isTlsFailureCode(code)).toBe(true);
		expect(words(network(code), READ, RELAY)).toEqual({
			message: `The https connection to the Job Execution service at relay.example:8443 failed before any request was sent (${code})`,
			description: "Check that the service serves https at this address: if it serves plain http, the credential's Relay URL must start with http://.",
		});
		expect(words(network(code), SUBMIT).description).toBe(
			"Check that the service serves https at this address: if it serves plain http, the credential's Base URL must start with http://. The request never reached the service, so no job was submitted.",
		);
		expect(failureInWords(toNodeApiError(node, network(code), READ, NATIVE, []))).toBe('the https handshake with the service failed');
	});

	test('codes that are not TLS are not taken for it, an inherited name included', () => {
		for (const code of ['ECONNRESET', 'toString', 'constructor', '__proto__', 'CERT', '']) expect(isTlsFailureCode(code)).toBe(false);
		expect(words(network('toString'), READ).message).toBe('The Job Execution service cannot be reached at 127.0.0.1:5678 (toString)');
		expect(failureInWords(toNodeApiError(node, network('toString'), READ, NATIVE, []))).toBe('the service could not be reached');
	});

	test('a URL no parser reads is named as the configured URL', () => {
		expect(words(network('ECONNREFUSED'), READ, { credentialType: 'jobExecutionApi', baseUrl: 'not a url' }).message).toBe(
			'The Job Execution service cannot be reached at the configured URL (ECONNREFUSED)',
		);
	});
});

describe('the words of a redirect, a deadline, an unreadable and an oversized answer', () => {
	test('a redirect: only the host it points at, never its path or query; a submit may exist', () => {
		const redirect = (location: string): Failure => ({ kind: 'redirect', statusCode: 307, location });
		const fix = "Set the credential's Base URL to the address the service really answers on (redirects are never followed, so that keys stay with the service).";
		expect(words(redirect('https://evil.example:9/steal?key=1'), READ)).toEqual({
			message: 'The service answered job job 7/x with a redirect (HTTP 307) to evil.example:9: not followed, the keys were not sent there',
			description: fix,
		});
		expect(words(redirect('/login?next=1'), SUBMIT).message).toBe('The service answered the submission with a redirect (HTTP 307) to 127.0.0.1:5678: not followed, the keys were not sent there');
		expect(words(redirect('/login'), SUBMIT).description).toBe(`${fix} ${CHECK}`);
		expect(words(redirect('  '), LIST).message).toContain('to no address:');
		expect(words(redirect(''), LIST).message).toContain('to no address:');
		expect(words(redirect('mailto:ops@example'), LIST).message).toContain('to an address without a host:');
		expect(words(redirect('http://[::1'), LIST).message).toContain('to an unreadable address:');
		expect(words(redirect('/x'), LIST, RELAY).description).toBe(
			"Set the credential's Relay URL to the address the service really answers on (redirects are never followed, so that keys stay with the service).",
		);
	});

	test('a deadline: the host, the subject and the seconds', () => {
		const late: Failure = { kind: 'deadline', seconds: 61.5 };
		expect(words(late, READ)).toEqual({
			message: 'No complete answer from the service at 127.0.0.1:5678 for job job 7/x within 61.5 s',
			description: 'The service answered too slowly, or not at all; the node stopped waiting for it.',
		});
		expect(words(late, SUBMIT, RELAY)).toEqual({
			message: 'No complete answer from the service at relay.example:8443 for the submission within 61.5 s',
			description: `The request was sent and the answer never finished. ${CHECK}`,
		});
	});

	test('an unreadable answer', () => {
		const unreadable: Failure = { kind: 'unreadable', statusCode: 200, problem: 'is not valid JSON' };
		expect(words(unreadable, LIST)).toEqual({ message: "The service's answer is not valid JSON (HTTP 200)", description: 'The answer could not be used; the request was retried where it was safe to.' });
		expect(words(unreadable, SUBMIT)).toEqual({ message: "The service's answer is not valid JSON (HTTP 200)", description: CHECK });
	});

	test('an oversized answer: not read further, never retried, and a submit probably exists', () => {
		const oversized: Failure = { kind: 'oversized', statusCode: 201, problem: 'is larger than 4 MiB' };
		expect(words(oversized, READ)).toEqual({
			message: "The service's answer is larger than 4 MiB (HTTP 201): not read further",
			description:
				'The service answered job job 7/x, but with more than the node reads (a bound that keeps n8n safe). It was not retried: the same request would get the same answer. Check the service, or a proxy in front of it.',
		});
		expect(words(oversized, SUBMIT).description).toBe(
			`The service answered the submission with a success status, so the job probably exists, but its answer is beyond what the node reads. ${CHECK}`,
		);
	});
});

describe('what the thrown error carries', () => {
	test('httpCode per kind, the item, and a response that holds only the words built', () => {
		const cases: Array<[Failure, string]> = [
			[{ kind: 'status', statusCode: 502, body: 'x' }, '502'],
			[{ kind: 'network', code: 'ECONNREFUSED', detail: 'raw library detail' }, 'ECONNREFUSED'],
			[{ kind: 'deadline', seconds: 1 }, 'DEADLINE'],
			[{ kind: 'redirect', statusCode: 301, location: '/' }, '301'],
			[{ kind: 'unreadable', statusCode: 200, problem: 'p' }, '200'],
			[{ kind: 'oversized', statusCode: 200, problem: 'p' }, '200'],
		];
		for (const [failure, httpCode] of cases) {
			const error = toNodeApiError(node, failure, READ, NATIVE, [], 4);
			expect(error.httpCode).toBe(httpCode);
			expect(error.context.itemIndex).toBe(4);
			expect(Object.keys(error.errorResponse ?? {}).sort()).toEqual(['description', 'httpCode', 'message']);
			expect(error.errorResponse).toMatchObject({ message: error.message, httpCode, description: error.description });
		}
		// n8n swaps the message of a well-known code for its own: ours names the host and stays.
		expect(toNodeApiError(node, { kind: 'network', code: 'ECONNREFUSED', detail: '' }, READ, NATIVE, []).message).toContain('127.0.0.1:5678');
		// No description: none in the response either.
		const bare = toNodeApiError(node, { kind: 'status', statusCode: 409, body: '' }, READ, NATIVE, []);
		expect(bare.errorResponse).toStrictEqual({ message: 'Unexpected answer from the service (HTTP 409)', httpCode: '409' });
	});

	test('a key in the service\'s words is redacted before they are cut, in a text or in JSON, and in the host', () => {
		const key = `k&<>"'+/%-${'s'.repeat(20)}`;
		const long = `${'x'.repeat(289)} ${key} and more`;
		for (const body of [long, { message: long }, { error: `bad key ${key}` }]) {
			const error = toNodeApiError(node, { kind: 'status', statusCode: 500, body }, READ, NATIVE, [key]);
			expect(error.message).not.toContain(key.slice(0, 10));
			expect(JSON.stringify(error.errorResponse)).not.toContain(key.slice(0, 10));
		}
		const hosted = toNodeApiError(node, { kind: 'network', code: 'ECONNREFUSED', detail: '' }, READ, { credentialType: 'jobExecutionApi', baseUrl: `http://${'h'.repeat(12)}:1` }, ['h'.repeat(12)]);
		expect(hosted.message).not.toContain('h'.repeat(12));
		expect(hosted.description).toBe('ECONNREFUSED: check that the service runs and that the URL of the credential is right.');
		// A key echoed across two fields: redacting the JSON text breaks it, and the redacted text is what is shown.
		const across = `tok-0123","b`;
		expect(words({ kind: 'status', statusCode: 500, body: { a: 'tok-0123', b: 'x' } }, READ, NATIVE, [across]).message).toBe('The service failed (HTTP 500): {"a":"***":"x"}');
		// A body that is a number, even one that writes a key, is no message (and so shows no key).
		expect(words({ kind: 'status', statusCode: 500, body: 1234567890123 }, READ, NATIVE, ['1234567890123']).message).toBe('The service failed (HTTP 500)');
		// Other bodies (a number, null) are told as no message.
		expect(words({ kind: 'status', statusCode: 500, body: 42 }, READ).message).toBe('The service failed (HTTP 500)');
		expect(words({ kind: 'status', statusCode: 500, body: null }, READ).message).toBe('The service failed (HTTP 500)');
	});

	test('retry, a job\'s fate, the pause and the plain words, read back from the error; nothing from an error the transport did not throw', () => {
		const refused = toNodeApiError(node, { kind: 'status', statusCode: 429, body: '', retryAfterMs: 7000 }, SUBMIT, NATIVE, []);
		expect([isRetryableError(refused), mayHaveAcceptedJob(refused), retryAfterMs(refused), failureInWords(refused)]).toEqual([true, false, 7000, 'the service answered HTTP 429']);
		const broken = toNodeApiError(node, { kind: 'network', code: 'ECONNRESET', detail: '', answered: 200 }, SUBMIT, NATIVE, []);
		expect([isRetryableError(broken), mayHaveAcceptedJob(broken), retryAfterMs(broken), failureInWords(broken)]).toEqual([false, true, undefined, 'the connection broke while the answer was read']);
		const late = toNodeApiError(node, { kind: 'deadline', seconds: 3 }, READ, NATIVE, []);
		expect([isRetryableError(late), mayHaveAcceptedJob(late), failureInWords(late)]).toEqual([true, false, 'the service did not answer in time']);
		expect(failureInWords(toNodeApiError(node, { kind: 'unreadable', statusCode: 200, problem: 'p' }, READ, NATIVE, []))).toBe('the answer could not be read');
		expect(failureInWords(toNodeApiError(node, { kind: 'oversized', statusCode: 200, problem: 'holds more than 3 values' }, READ, NATIVE, []))).toBe('the answer holds more than 3 values');
		expect(failureInWords(toNodeApiError(node, { kind: 'redirect', statusCode: 302, location: '/' }, READ, NATIVE, []))).toBe('the request failed');
		expect(failureInWords(toNodeApiError(node, { kind: 'network', code: 'ECONNREFUSED', detail: '' }, READ, NATIVE, []))).toBe('the service could not be reached');
		for (const other of [new Error('x'), null, undefined, 'text', 7, {}]) {
			expect([isRetryableError(other), mayHaveAcceptedJob(other), retryAfterMs(other), failureInWords(other)]).toEqual([false, false, undefined, 'the request failed']);
		}
		expect(retryAfterMs(late)).toBeUndefined();
	});
});

describe('classifyFailure, per intent: retried, and whether a submit may have created its job', () => {
	const network = (code: string, answered?: number): Failure => ({ kind: 'network', code, detail: '', answered });
	const status = (statusCode: number, body: unknown = ''): Failure => ({ kind: 'status', statusCode, body });
	test.each<[string, Failure, boolean, boolean, boolean]>([
		// name, failure, a read retried, a submit retried, a submit may exist
		['429', status(429), true, true, false],
		['500', status(500), true, false, true],
		['499', status(499), false, false, false],
		['400 with a reason', status(400, 'bad flow'), false, false, false],
		['400 with an HTML page', status(400, '<html/>'), false, false, true],
		['404', status(404), false, false, false],
		['ECONNREFUSED', network('ECONNREFUSED'), true, false, false],
		['EAI_AGAIN', network('EAI_AGAIN'), true, false, false],
		['EHOSTUNREACH', network('EHOSTUNREACH'), true, false, false],
		['ENETUNREACH', network('ENETUNREACH'), true, false, false],
		['ECONNRESET', network('ECONNRESET'), true, false, true],
		['ABORTED', network('ABORTED'), false, false, true],
		['ERR_INVALID_CHAR', network('ERR_INVALID_CHAR'), false, false, false],
		['ERR_INVALID_HTTP_TOKEN', network('ERR_INVALID_HTTP_TOKEN'), false, false, false],
		['ERR_INVALID_URL', network('ERR_INVALID_URL'), false, false, false],
		['CERT_HAS_EXPIRED', network('CERT_HAS_EXPIRED'), false, false, false],
		['EPROTO before an answer', network('EPROTO'), false, false, false],
		['EPROTO after an answer', network('EPROTO', 200), true, false, true],
		['ERR_SSL_WRONG_VERSION_NUMBER', network('ERR_SSL_WRONG_VERSION_NUMBER'), false, false, false],
		['a deadline', { kind: 'deadline', seconds: 1 }, true, false, true],
		['unreadable', { kind: 'unreadable', statusCode: 200, problem: 'p' }, true, false, true],
		['oversized', { kind: 'oversized', statusCode: 200, problem: 'p' }, false, false, true],
		['a redirect', { kind: 'redirect', statusCode: 302, location: '/' }, false, false, true],
	])('%s', (_name, failure, readRetried, submitRetried, mayExist) => {
		expect(classifyFailure(failure, 'readJob')).toStrictEqual({ retry: readRetried, mayHaveAccepted: false });
		expect(classifyFailure(failure, 'list')).toStrictEqual({ retry: readRetried, mayHaveAccepted: false });
		expect(classifyFailure(failure, 'submit')).toStrictEqual({ retry: submitRetried, mayHaveAccepted: mayExist });
	});
});

describe('the service\'s own message', () => {
	test('a text: trimmed, none when empty or an HTML page, cut after exactly 300 characters', () => {
		expect(serviceMessage('  flow is locked \n')).toBe('flow is locked');
		expect(serviceMessage('   ')).toBeUndefined();
		expect(serviceMessage('')).toBeUndefined();
		expect(serviceMessage(' <!DOCTYPE html><p>502</p>')).toBeUndefined();
		expect(serviceMessage('a<b')).toBe('a<b');
		expect(serviceMessage('m'.repeat(300))).toBe('m'.repeat(300));
		expect(serviceMessage('m'.repeat(301))).toBe(`${'m'.repeat(300)}…`);
	});

	test('JSON: message, then error, detail, title; empty or non-text fields skipped; the field read as a text', () => {
		expect(serviceMessage({ title: 't', detail: 'd', error: 'e', message: 'm' })).toBe('m');
		expect(serviceMessage({ title: 't', detail: 'd', error: 'e' })).toBe('e');
		expect(serviceMessage({ title: 't', detail: 'd' })).toBe('d');
		expect(serviceMessage({ title: 't' })).toBe('t');
		expect(serviceMessage({ message: '', error: { code: 1 }, detail: 7, title: ' x ' })).toBe('x');
		expect(serviceMessage({ message: '<html>' })).toBeUndefined();
		expect(serviceMessage({ status: 'x' })).toBeUndefined();
		expect(serviceMessage(['message'])).toBeUndefined();
		expect(serviceMessage(null)).toBeUndefined();
		expect(serviceMessage(503)).toBeUndefined();
	});
});

describe('what a call was about', () => {
	test('the submission, the three lists, a job by its id decoded', () => {
		expect(callSubject(SUBMIT)).toBe('the submission');
		expect(callSubject(listCall())).toBe('the job list');
		expect(callSubject(listCall('active'))).toBe('the active job list');
		expect(callSubject(listCall('history'))).toBe('the finished job list');
		expect(callSubject(readJobCall('job 7/x'))).toBe('job job 7/x');
		expect(callSubject(readJobCall('a%b', true))).toBe('job a%b');
		// A list call built without a query (the type allows it) is the whole list.
		expect(callSubject({ intent: 'list', method: 'GET', path: '/jobs' })).toBe('the job list');
	});
});

describe('Retry-After, as delay-seconds or an HTTP date', () => {
	const NOW = Date.UTC(2026, 10, 29, 4, 0, 0);

	test('delay-seconds: up to 12 digits, spaces around ignored, clamped to a day', () => {
		expect(parseRetryAfter('0', NOW)).toBe(0);
		expect(parseRetryAfter(' 5 ', NOW)).toBe(5000);
		expect(parseRetryAfter('86400', NOW)).toBe(MAX_RETRY_AFTER_MS);
		expect(parseRetryAfter('86399', NOW)).toBe(86_399_000);
		expect(parseRetryAfter('999999999999', NOW)).toBe(MAX_RETRY_AFTER_MS);
		expect(MAX_RETRY_AFTER_MS).toBe(86_400_000);
	});

	test('nothing, or something else than a number or a date: no pause', () => {
		for (const value of ['', '   ', 'soon', '5s', '0x10', '1e3']) expect(parseRetryAfter(value, NOW)).toBeUndefined();
		// What the date parser takes for a date in the past (V8 reads '-1' and '1.5' as days of 2001): no pause either.
		expect(parseRetryAfter('-1', NOW)).toBe(0);
		expect(parseRetryAfter('1.5', NOW)).toBe(0);
	});

	test('an HTTP date: the time until it, none when past, a day at most', () => {
		expect(parseRetryAfter('Sun, 29 Nov 2026 04:00:30 GMT', NOW)).toBe(30_000);
		expect(parseRetryAfter('  Sun, 29 Nov 2026 04:00:30 GMT  ', NOW)).toBe(30_000);
		expect(parseRetryAfter('Sun, 29 Nov 2026 03:59:00 GMT', NOW)).toBe(0);
		expect(parseRetryAfter('Mon, 30 Nov 2026 04:00:01 GMT', NOW)).toBe(MAX_RETRY_AFTER_MS);
		expect(parseRetryAfter('Mon, 30 Nov 2026 03:59:59 GMT', NOW)).toBe(MAX_RETRY_AFTER_MS - 1000);
	});

	test('a date text of exactly 64 characters is read; one of 65 is not (a bound on the parse)', () => {
		const date = 'Sun, 29 Nov 2026 04:00:30 GMT';
		// Date.parse skips words in parentheses: a comment pads the date without changing it.
		const padded = (length: number) => `${date} (${'c'.repeat(length - date.length - 3)})`;
		expect(padded(64)).toHaveLength(64);
		expect(Date.parse(padded(65))).toBe(Date.parse(date));
		expect(parseRetryAfter(padded(64), NOW)).toBe(30_000);
		expect(parseRetryAfter(padded(65), NOW)).toBeUndefined();
	});

	test('a 13-digit number is not taken as seconds (no number too large for a date)', () => {
		expect(parseRetryAfter('1234567890123', NOW)).toBeUndefined();
	});

	test('now is the clock\'s when not given', () => {
		jest.spyOn(Date, 'now').mockReturnValue(NOW);
		try {
			expect(parseRetryAfter('Sun, 29 Nov 2026 04:00:10 GMT')).toBe(10_000);
		} finally {
			jest.restoreAllMocks();
		}
	});
});
