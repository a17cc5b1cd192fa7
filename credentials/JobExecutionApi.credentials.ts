import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

/** Native REST interface. The spec does not show its authentication, so every common scheme is offered. */
export class JobExecutionApi implements ICredentialType {
	name = 'jobExecutionApi';

	displayName = 'Job Execution API';

	icon: Icon = {
		light: 'file:../nodes/JobExecution/jobExecution.svg',
		dark: 'file:../nodes/JobExecution/jobExecution.dark.svg',
	};

	documentationUrl = 'https://github.com/n8n-nodes-job-execution/n8n-nodes-job-execution#credentials';

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
		const headers = { ...(requestOptions.headers ?? {}) };
		const authenticated: IHttpRequestOptions = { ...requestOptions, headers };
		switch (credentials.authType) {
			case 'bearerToken':
				headers.Authorization = `Bearer ${String(credentials.token ?? '')}`;
				break;
			case 'basicAuth':
				authenticated.auth = {
					username: String(credentials.user ?? ''),
					password: String(credentials.password ?? ''),
				};
				break;
			case 'headerAuth':
				if (credentials.headerName) headers[String(credentials.headerName)] = String(credentials.headerSecret ?? '');
				break;
		}
		if (credentials.ignoreSslIssues === true) authenticated.skipSslCertificateValidation = true;
		return authenticated;
	}

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.baseUrl.trim().replace(/\\/+$/, "").replace(/\\/api\\/v1$/i, "") }}',
			url: '/api/v1/jobs',
			qs: { filter: 'active' },
		},
	};
}
