import { NodeApiError } from 'n8n-workflow';
import type { ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';

import { firstListed, readJobList } from './jobList';
import { sendableTextProblem } from './jobVocabulary';
import type { CredentialType } from './transport';
import { getConnection, NATIVE_CREDENTIAL, RELAY_CREDENTIAL } from './transport';

function credentialTypeOf(context: ILoadOptionsFunctions): CredentialType {
	return context.getNodeParameter('authentication', NATIVE_CREDENTIAL) === RELAY_CREDENTIAL ? RELAY_CREDENTIAL : NATIVE_CREDENTIAL;
}

/**
 * A list's refused credentials as the editor shows them: a list shows only the message, so the advice (which keys of
 * which credential to check) joins it, as a run's error and the credential Test say it. Other failures keep their words.
 */
export function asListError(error: unknown): unknown {
	const refused = error instanceof NodeApiError && (String(error.httpCode) === '401' || String(error.httpCode) === '403');
	if (refused && error.description && !error.message.includes(error.description)) error.message = `${error.message}. ${error.description}`;
	return error;
}

/** Reads both lists for a list search, its failures worded for the list (asListError). */
export async function withListErrors<T>(read: () => Promise<T>): Promise<T> {
	try {
		return await read();
	} catch (error) {
		throw asListError(error);
	}
}

/**
 * "From list" of a Flow Name or Run Profile (both nodes): the distinct names the service's active and history lists
 * hold (up to 100 jobs each), sorted by name; the search keeps the names that contain it, case ignored. Only names the
 * nodes can send back as they are: text, not empty, without spaces around it (the nodes trim what they send), and
 * passing sendableTextProblem, the rule Submit and the filters apply (control characters, lone surrogates, length).
 */
export async function listFlowChoices(
	context: ILoadOptionsFunctions,
	field: 'flowName' | 'runProfileName',
	filter?: string,
): Promise<INodeListSearchResult> {
	return await withListErrors(async () => await choicesOf(context, field, filter));
}

async function choicesOf(context: ILoadOptionsFunctions, field: 'flowName' | 'runProfileName', filter?: string): Promise<INodeListSearchResult> {
	const connection = await getConnection.call(context, credentialTypeOf(context));
	const names = new Set<string>();
	for (const scope of ['active', 'history'] as const) {
		const { jobs } = firstListed((await readJobList.call(context, connection, scope)).jobs);
		for (const job of jobs) {
			const name = job[field];
			if (typeof name === 'string' && name !== '' && name === name.trim() && sendableTextProblem(name) === null) names.add(name);
		}
	}
	const needle = (filter ?? '').trim().toLowerCase();
	const results: INodeListSearchItems[] = [...names]
		.filter((name) => needle === '' || name.toLowerCase().includes(needle))
		.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
		.map((name) => ({ name: name.length > 100 ? `${name.slice(0, 100)}…` : name, value: name }));
	return { results };
}
