import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { authenticateRequest } from '../nodes/shared/credentialAuth';
import { CREDENTIAL_USERS } from '../nodes/shared/credentialScope';
import { RELAY_CREDENTIAL } from '../nodes/shared/transport/serviceCredentials';

/** Relay interface: the native call travels in headers, guarded by the relay's key and the user's key. */
export class JobExecutionRelayApi implements ICredentialType {
	name = 'jobExecutionRelayApi';

	displayName = 'Job Execution Relay API';

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
			displayName: 'Relay URL',
			name: 'relayUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://relay.example.com',
			description: 'Address of the relay, with http:// or https://, without /call/…',
		},
		{
			displayName: 'Relay API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: "The key generated in the relay's edit menu (sent as the apiKey header)",
		},
		{
			displayName: 'User API Key',
			name: 'userApiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The key created under user management (sent as the user-api-key header)',
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
		return authenticateRequest(RELAY_CREDENTIAL, credentials, requestOptions);
	}

	// No declarative `test`: n8n would run it first and follow redirects with the keys. The Job Execution node's
	// `testedBy` method tests this credential through the nodes' own transport (nodes/JobExecution/methods/credentialTest.ts).
}
