/**
 * transport/errors.ts is the one classifier of a job's fate: for every failure a submit can meet, whether its job may
 * exist is decided by classifyFailure alone, and both the error's words (MAY_HAVE_ACCEPTED) and what the Submit
 * remembers for n8n's Retry On Fail (mayHaveAcceptedJob) follow that one answer.
 */
import type { INode } from 'n8n-workflow';

import { listCall, readJobCall, submitCall } from '../../nodes/shared/transport';
import type { Failure } from '../../nodes/shared/transport/errors';
import { classifyFailure, isRetryableError, MAY_HAVE_ACCEPTED, mayHaveAcceptedJob, notAccepted, toNodeApiError } from '../../nodes/shared/transport/errors';

const node = { id: 'n', name: 'Job Execution', type: 'x', typeVersion: 1, position: [0, 0], parameters: {} } as INode;
const connection = { credentialType: 'jobExecutionApi' as const, baseUrl: 'http://127.0.0.1:1' };

const STATUSES = [400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504];
const failures: Array<[string, Failure]> = [
	...STATUSES.flatMap((statusCode): Array<[string, Failure]> => [
		[`HTTP ${statusCode} without detail`, { kind: 'status', statusCode, body: '' }],
		[`HTTP ${statusCode} with a message`, { kind: 'status', statusCode, body: { message: 'flow is locked' } }],
		[`HTTP ${statusCode} with Retry-After`, { kind: 'status', statusCode, body: {}, retryAfterMs: 5000 }],
	]),
	...['ECONNREFUSED', 'ENOTFOUND', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ABORTED', 'CERT_HAS_EXPIRED'].map(
		(code): [string, Failure] => [`network ${code}`, { kind: 'network', code, detail: '' }],
	),
	['a redirect', { kind: 'redirect', statusCode: 302, location: 'http://elsewhere/' }],
	['no answer in time', { kind: 'deadline', seconds: 20 }],
	['an unreadable answer', { kind: 'unreadable', statusCode: 200, problem: 'is not valid JSON' }],
	['an oversized answer', { kind: 'oversized', statusCode: 200, problem: 'is larger than 4 MiB' }],
];

describe('one rule decides whether a failed submit may have created its job', () => {
	test.each(failures)('%s: the words and the Submit memory follow classifyFailure', (_name, failure) => {
		const { mayHaveAccepted, retry } = classifyFailure(failure, 'submit');
		const error = toNodeApiError(node, failure, submitCall({ flowFileName: '/a.flow', runProfileName: 'p' }), connection, []);
		expect(mayHaveAcceptedJob(error)).toBe(mayHaveAccepted);
		expect((error.description ?? '').includes(MAY_HAVE_ACCEPTED)).toBe(mayHaveAccepted);
		// A submit is sent again only when the service said it did not process it (a 429), never when the job may exist.
		const resent = failure.kind === 'status' && failure.statusCode === 429;
		expect([retry, isRetryableError(error)]).toEqual([resent, resent]);
		if (resent) expect(mayHaveAccepted).toBe(false);
	});

	test('the submissions sent again: exactly the 429s (RFC 6585: not processed); never a 503', () => {
		const resent = failures.filter(([, failure]) => classifyFailure(failure, 'submit').retry).map(([name]) => name);
		expect(resent).toEqual(['HTTP 429 without detail', 'HTTP 429 with a message', 'HTTP 429 with Retry-After']);
		expect(notAccepted({ kind: 'status', statusCode: 503, body: '', retryAfterMs: 1000 })).toBe(false);
		expect(classifyFailure({ kind: 'status', statusCode: 503, body: '', retryAfterMs: 1000 }, 'submit')).toStrictEqual({ retry: false, mayHaveAccepted: true });
	});

	test('a request a pause kept from being sent (its call could not wait it out) is never retried and created nothing, whatever the status that asked for the pause', () => {
		for (const intent of ['submit', 'readJob', 'list'] as const) {
			for (const statusCode of [429, 503]) {
				expect(classifyFailure({ kind: 'status', statusCode, body: '', retryAfterMs: 1000, notSent: true }, intent)).toStrictEqual({ retry: false, mayHaveAccepted: false });
			}
		}
	});

	test('the rule itself: a job may exist unless the request never left or the service turned it away with its reason', () => {
		const fate = (failure: Failure) => classifyFailure(failure, 'submit').mayHaveAccepted;
		const may = failures.filter(([, failure]) => fate(failure)).map(([name]) => name);
		expect(may).toEqual([
			'HTTP 400 without detail',
			'HTTP 400 with Retry-After',
			'HTTP 500 without detail',
			'HTTP 500 with a message',
			'HTTP 500 with Retry-After',
			'HTTP 502 without detail',
			'HTTP 502 with a message',
			'HTTP 502 with Retry-After',
			'HTTP 503 without detail',
			'HTTP 503 with a message',
			'HTTP 503 with Retry-After',
			'HTTP 504 without detail',
			'HTTP 504 with a message',
			'HTTP 504 with Retry-After',
			'network ECONNRESET',
			'network EPIPE',
			'network ETIMEDOUT',
			'network ABORTED',
			'a redirect',
			'no answer in time',
			'an unreadable answer',
			'an oversized answer',
		]);
	});

	test.each(failures)('%s on a read or a list: never "may have accepted the job"', (_name, failure) => {
		for (const call of [readJobCall('j-1'), listCall('active')]) {
			const error = toNodeApiError(node, failure, call, connection, []);
			expect(mayHaveAcceptedJob(error)).toBe(false);
			expect(error.description ?? '').not.toContain(MAY_HAVE_ACCEPTED);
		}
	});

	test('an error the transport did not throw is never taken as a job that may exist', () => {
		expect(mayHaveAcceptedJob(new Error(MAY_HAVE_ACCEPTED))).toBe(false);
		expect(mayHaveAcceptedJob(undefined)).toBe(false);
	});
});
