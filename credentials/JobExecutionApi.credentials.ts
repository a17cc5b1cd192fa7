import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { authenticateRequest } from '../nodes/shared/credentialAuth';
import { CREDENTIAL_USERS } from '../nodes/shared/credentialScope';
import { NATIVE_CREDENTIAL } from '../nodes/shared/transport/serviceCredentials';

/** Native REST interface. The spec does not show its authentication, so every common scheme is offered. */
export class JobExecutionApi implements ICredentialType {
	name = 'jobExecutionApi';

	displayName = 'Job Execution API';

	icon: Icon = {
		light: 'file:../nodes/JobExecution/jobExecution.svg',
		dark: 'file:../nodes/JobExecution/jobExecution.dark.svg',
	};

	documentationUrl = 'https://github.com/n8n-nodes-job-execution/n8n-nodes-job-execution#credentials';

	// Only this package's nodes may use the keys: n8n 2.x refuses them to the HTTP Request node and any other node.
	supportedNodes = CREDENTIAL_USERS;

	restrictToSupportedNodes = true as const;

	// n8n's "Allowed HTTP Request Domains" fields govern only the HTTP Request and GraphQL nodes, which can no longer
	// use this credential: shown, they would promise a control that does nothing.
	hideDomainRestrictionFields = true;

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://jobs.example.com',
			description:
				'Address of the service, with http:// or https://. A trailing slash or /api/v1 suffix is ignored.',
		},
		{
			displayName: 'Authentication',
			name: 'authType',
			type: 'options',
			default: 'none',
			options: [
				{ name: 'None', value: 'none' },
				{ name: 'Bearer Token', value: 'bearerToken' },
				{ name: 'Basic Auth', value: 'basicAuth' },
				{ name: 'Custom Header', value: 'headerAuth' },
			],
		},
		{
			displayName: 'Token',
			name: 'token',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { authType: ['bearerToken'] } },
		},
		{
			displayName: 'User',
			name: 'user',
			type: 'string',
			default: '',
			displayOptions: { show: { authType: ['basicAuth'] } },
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { authType: ['basicAuth'] } },
		},
		{
			displayName: 'Header Name',
			name: 'headerName',
			type: 'string',
			default: '',
			placeholder: 'e.g. X-API-Key',
			displayOptions: { show: { authType: ['headerAuth'] } },
		},
		{
			displayName: 'Header Value',
			name: 'headerSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { authType: ['headerAuth'] } },
		},
		{
			displayName: 'Ignore SSL Issues (Insecure)',
			name: 'ignoreSslIssues',
			type: 'boolean',
			default: false,
			description: 'Whether to connect even if SSL certificate validation is not possible (self-signed certificates)',
		},
	];

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return authenticateRequest(NATIVE_CREDENTIAL, credentials, requestOptions);
	}

	// No declarative `test`: n8n would run it first and follow redirects with the keys. The Job Execution node's
	// `testedBy` method tests this credential through the nodes' own transport (nodes/JobExecution/methods/credentialTest.ts).
}
