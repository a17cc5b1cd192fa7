/**
 * transport/errors.ts is the one classifier of a job's fate: for every failure a submit can meet, whether its job may
 * exist is decided by classifyFailure alone, and both the error's words (MAY_HAVE_ACCEPTED) and what the Submit
 * remembers for n8n's Retry On Fail (mayHaveAcceptedJob) follow that one answer.
 */
import type { INode } from 'n8n-workflow';

import { listCall, readJobCall, submitCall } from '../../nodes/shared/transport';
import type { Failure } from '../../nodes/shared/transport/errors';
import { classifyFailure, isRetryableError, MAY_HAVE_ACCEPTED, mayHaveAcceptedJob, toNodeApiError } from '../../nodes/shared/transport/errors';

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
		// A submit is never retried, whatever the failure.
		expect([retry, isRetryableError(error)]).toEqual([false, false]);
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
