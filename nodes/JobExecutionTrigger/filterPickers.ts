/**
 * Version 2's Filters: Flow Name and Run Profile picked from the names the service lists, or typed by name (or an
 * expression) when the name is not listed yet. Version 1 keeps its text fields.
 */
import type { ILoadOptionsFunctions, INodeListSearchResult, INodeProperties } from 'n8n-workflow';

import { jobFilterFields } from '../shared/descriptions';
import { listFlowChoices } from '../shared/flowChoices';
import { isPlainObject } from '../shared/jobVocabulary';

function picker(displayName: string, name: 'flowName' | 'runProfileName', searchListMethod: string, example: string): INodeProperties {
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		description: `Only jobs of this ${displayName.toLowerCase()} (exact name)`,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: `Select a ${displayName.toLowerCase()}...`,
				typeOptions: { searchListMethod, searchable: true },
			},
			{ displayName: 'By Name', name: 'name', type: 'string', placeholder: `e.g. ${example}` },
		],
	};
}

const V2 = { '@version': [{ _cnd: { gte: 2 } }] };

/** One `filters` collection per version: the same parameter name, so a workflow keeps its filters when upgraded by hand. */
export const filterCollections: INodeProperties[] = [
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: jobFilterFields,
		displayOptions: { hide: V2 },
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [picker('Flow Name', 'flowName', 'searchFlowNames', 'salesReport'), picker('Run Profile', 'runProfileName', 'searchRunProfiles', 'default')],
		displayOptions: { show: V2 },
	},
];

/** A filter's value as saved: version 1's text, or version 2's picked value ({ __rl, mode, value }). */
export function filterValue(saved: unknown): unknown {
	return isPlainObject(saved) && saved.__rl === true ? saved.value : saved;
}

export const filterSearch = {
	async searchFlowNames(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
		return await listFlowChoices(this, 'flowName', filter);
	},
	async searchRunProfiles(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
		return await listFlowChoices(this, 'runProfileName', filter);
	},
};
