import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { firstListed, readJobList } from './jobList';
import { hasControlCharacter } from './jobVocabulary';
import { getConnection, NATIVE_CREDENTIAL, RELAY_CREDENTIAL } from './transport';

/** A name longer than this is not offered (a filter still takes it typed by name). */
const MAX_NAME_LENGTH = 256;

/** A name the service listed that can be offered as it is: text, not blank, no control characters, not too long. */
function offerable(value: unknown): value is string {
	return typeof value === 'string' && value.trim() !== '' && value.length <= MAX_NAME_LENGTH && !hasControlCharacter(value);
}

/**
 * The flow names or run profile names of the jobs the service lists (up to 100 active and 100 finished), each once,
 * sorted, kept when they contain `filter` (case ignored): the "From List" of a Flow Name or Run Profile filter. The
 * value is the name exactly as listed, since filters match it exactly.
 */
export async function listFlowChoices(
	context: ILoadOptionsFunctions,
	field: 'flowName' | 'runProfileName',
	filter?: string,
): Promise<INodeListSearchResult> {
	const chosen = context.getNodeParameter('authentication', NATIVE_CREDENTIAL);
	const connection = await getConnection.call(context, chosen === RELAY_CREDENTIAL ? RELAY_CREDENTIAL : NATIVE_CREDENTIAL);
	const names = new Set<string>();
	for (const scope of ['active', 'history'] as const) {
		const listed = await readJobList.call(context, connection, scope);
		for (const job of firstListed(listed.jobs).jobs) {
			const name = job[field];
			if (offerable(name)) names.add(name);
		}
	}
	const needle = (filter ?? '').trim().toLowerCase();
	const results = [...names]
		.filter((name) => needle === '' || name.toLowerCase().includes(needle))
		.sort((a, b) => a.localeCompare(b))
		.map((name) => ({ name, value: name }));
	return { results };
}
