import type { ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';

import { firstListed, readJobList } from './jobList';
import { hasControlCharacter } from './jobVocabulary';
import type { CredentialType } from './transport';
import { getConnection, NATIVE_CREDENTIAL, RELAY_CREDENTIAL } from './transport';

/** Longer names are not offered: no parameter of the nodes takes them (they refuse text over 4096 characters). */
const MAX_NAME_LENGTH = 4096;

function credentialTypeOf(context: ILoadOptionsFunctions): CredentialType {
	return context.getNodeParameter('authentication', NATIVE_CREDENTIAL) === RELAY_CREDENTIAL ? RELAY_CREDENTIAL : NATIVE_CREDENTIAL;
}

/**
 * "From list" of a Flow Name or Run Profile (both nodes): the distinct names the service's active and history lists
 * hold (up to 100 jobs each), sorted by name; the search keeps the names that contain it, case ignored. A name that
 * is not text, is empty, holds a control character or is too long to be sent back is left out.
 */
export async function listFlowChoices(
	context: ILoadOptionsFunctions,
	field: 'flowName' | 'runProfileName',
	filter?: string,
): Promise<INodeListSearchResult> {
	const connection = await getConnection.call(context, credentialTypeOf(context));
	const names = new Set<string>();
	for (const scope of ['active', 'history'] as const) {
		const { jobs } = firstListed((await readJobList.call(context, connection, scope)).jobs);
		for (const job of jobs) {
			const name = job[field];
			if (typeof name === 'string' && name.trim() !== '' && name.length <= MAX_NAME_LENGTH && !hasControlCharacter(name)) names.add(name);
		}
	}
	const needle = (filter ?? '').trim().toLowerCase();
	const results: INodeListSearchItems[] = [...names]
		.filter((name) => needle === '' || name.toLowerCase().includes(needle))
		.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
		.map((name) => ({ name: name.length > 100 ? `${name.slice(0, 100)}…` : name, value: name }));
	return { results };
}
