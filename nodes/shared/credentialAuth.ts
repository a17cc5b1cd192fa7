import type { ICredentialDataDecryptedObject, IHttpRequestOptions } from 'n8n-workflow';

import { keyAsSent, RELAY_CREDENTIAL } from './transport/serviceCredentials';

/**
 * How each credential signs a request: the credentials' own `authenticate` (what n8n calls for every node request)
 * and the credential test (which n8n gives no authenticated helper) both use this one function.
 */
export function authenticateRequest(
	credentialType: string,
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
): IHttpRequestOptions {
	const headers = { ...(requestOptions.headers ?? {}) };
	const authenticated: IHttpRequestOptions = { ...requestOptions, headers };
	if (credentialType === RELAY_CREDENTIAL) {
		headers.apiKey = keyAsSent(credentials.apiKey);
		headers['user-api-key'] = keyAsSent(credentials.userApiKey);
	} else {
		switch (credentials.authType) {
			case 'bearerToken':
				headers.Authorization = `Bearer ${keyAsSent(credentials.token)}`;
				break;
			case 'basicAuth':
				authenticated.auth = { username: String(credentials.user ?? ''), password: String(credentials.password ?? '') };
				break;
			case 'headerAuth':
				if (credentials.headerName) headers[String(credentials.headerName).trim()] = keyAsSent(credentials.headerSecret);
				break;
		}
	}
	if (credentials.ignoreSslIssues === true) authenticated.skipSslCertificateValidation = true;
	return authenticated;
}
