/**
 * n8n's HTTP Request node as a user without this package sets it up for one call of the service, with the
 * generic credentials such a user creates (Bearer Auth; Custom Auth for the relay's two key headers).
 */
import type { INode } from 'n8n-workflow';

import { CatalogIndex } from '../../server';
import type { CredentialsMap } from '../../testkit/engine';
import { credentialsFor, NATIVE_TOKEN, RELAY_KEY, USER_KEY } from '../../testkit/fixtures';
import type { Interface } from '../../testkit/fixtures';
import { BENCH_CATALOG, INSTANT_FLOW } from './catalog';
import { HTTP_REQUEST } from './n8nBaseNodes';
import { canvasNode } from './workflowRunner';

export type Operation = 'get' | 'submit';

export const INSTANT_FLOW_ID = new CatalogIndex(BENCH_CATALOG).byFileName(INSTANT_FLOW)!.flowId;

/** Our credentials plus the generic ones a user of the HTTP Request node would create. */
export function allCredentials(url: string): CredentialsMap {
	return {
		...credentialsFor(url),
		httpBearerAuth: { token: NATIVE_TOKEN },
		httpCustomAuth: { json: JSON.stringify({ headers: { apiKey: RELAY_KEY, 'user-api-key': USER_KEY } }) },
	};
}

/** The HTTP Request node as a user sets it up for one call of the service (n8n's current version, 4.2 layout). */
export function httpRequestNode(name: string, kind: Interface, url: string, operation: Operation | 'list', jobIdExpression = '{{ $json.jobId }}'): INode {
	const native = kind === 'native';
	const nativePath = operation === 'get' ? `/api/v1/jobs/${jobIdExpression}` : operation === 'list' ? '/api/v1/jobs?filter=history' : '/api/v1/jobs';
	const parameters: INode['parameters'] = {
		method: operation === 'submit' ? 'POST' : 'GET',
		url: native ? `${operation === 'get' ? '=' : ''}${url}${nativePath}` : `${url}/call/${operation === 'submit' ? 'execute' : 'status'}`,
		authentication: 'genericCredentialType',
		genericAuthType: native ? 'httpBearerAuth' : 'httpCustomAuth',
		options: {},
	};
	if (!native) {
		parameters.sendHeaders = true;
		parameters.headerParameters = {
			parameters: [
				{ name: 'endpoint', value: `${operation === 'get' ? '=' : ''}${nativePath}` },
				{ name: 'method', value: operation === 'submit' ? 'POST' : 'GET' },
			],
		};
	}
	if (operation === 'submit') {
		parameters.sendBody = true;
		parameters.specifyBody = 'json';
		parameters.jsonBody = JSON.stringify(native ? { flowFileName: INSTANT_FLOW, runProfileName: 'default' } : { flowId: INSTANT_FLOW_ID, runProfileName: 'default' });
	}
	const credentials: INode['credentials'] = native ? { httpBearerAuth: { id: '11', name: 'Bearer Auth account' } } : { httpCustomAuth: { id: '12', name: 'Custom Auth account' } };
	return canvasNode(name, HTTP_REQUEST, 4.2, parameters, { credentials });
}
