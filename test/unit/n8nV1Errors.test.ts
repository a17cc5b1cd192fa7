/**
 * The request errors as n8n 1.x hands them to a node. Its NodeApiError drops an Error cause (the class field `cause`,
 * declared after super(), resets what Error's constructor set: n8n-workflow 1.123 errors/abstract/execution-base.error.js)
 * and keeps the request error's code as `httpCode` (found among the status keys: errors/node-api.error.js), so the code
 * is read there. The real host proves it in test/e2e/https.e2e.ts; here each code is tried at once, which no single
 * server can do.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { RequestPace } from '../../nodes/shared/adaptiveLimit';
import { apiRequest, DeadlineClock, readJobCall } from '../../nodes/shared/transport';

/** What n8n 1.x's NodeApiError keeps of a request's error: its message and, as httpCode, its code; no cause. */
function v1RequestError(message: string, httpCode: string | null): Error {
	return Object.assign(new Error(message), { httpCode, cause: undefined });
}

async function messageFor(error: Error): Promise<string> {
	const context = {
		getNode: () => ({ id: 'n', name: 'Job Execution', type: 'jobExecution', typeVersion: 2, position: [0, 0], parameters: {} }),
		getExecutionCancelSignal: () => undefined,
		helpers: {
			httpRequestWithAuthentication: async () => {
				throw error;
			},
		},
	} as unknown as IExecuteFunctions;
	const pace: RequestPace = { takeNow: () => ({ seq: 0 }), slot: async () => ({ seq: 0 }), answered: () => undefined , withdrawn: () => false, backOff: async () => undefined };
	const clock = new DeadlineClock();
	try {
		const connection = { credentialType: 'jobExecutionApi' as const, baseUrl: 'https://127.0.0.1:9', secrets: [], pace, clock };
		const outcome = await apiRequest.call(context, connection, readJobCall('job-1'), { singleAttempt: true }).then(
			() => 'no error',
			(thrown: unknown) => (thrown instanceof Error ? thrown.message : String(thrown)),
		);
		return outcome;
	} finally {
		clock.close();
	}
}

describe("a request error as n8n 1.x keeps it: the code in httpCode, no cause", () => {
	test.each([
		['self-signed certificate', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'presented a certificate n8n does not trust (self-signed certificate)'],
		['unable to get local issuer certificate', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'presented a certificate n8n does not trust (certificate signed by an authority n8n does not know)'],
		['certificate has expired', 'CERT_HAS_EXPIRED', 'expired certificate'],
		['connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED', '(ECONNREFUSED)'],
	])('%s (httpCode %s) → the message names it: "%s"', async (message, httpCode, expected) => {
		expect(await messageFor(v1RequestError(message, httpCode))).toContain(expected);
	});

	test.each([
		['an HTTP status', '503'],
		['nothing', null],
		['a lowercase word', 'failed'],
	])('an httpCode that is %s is no error code → the request failed without a code (EREQUEST)', async (_what, httpCode) => {
		expect(await messageFor(v1RequestError('unable to get local issuer certificate', httpCode))).toContain('(EREQUEST)');
	});
});
