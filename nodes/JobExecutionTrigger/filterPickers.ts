/**
 * Version 2's Filters: Flow Name and Run Profile picked from the names the service lists, or typed by name (or an
 * expression) when the name is not listed yet. Version 1 keeps its text fields.
 */
import type { ILoadOptionsFunctions, INodeListSearchResult, INodeProperties } from 'n8n-workflow';

import { jobFilterFields, jobFilterLocatorFields } from '../shared/descriptions';
import { listFlowChoices } from '../shared/flowChoices';
import { isPlainObject } from '../shared/jobVocabulary';
import { fromVersion2, version1Only } from '../shared/versionDisplay';

function filtersCollection(options: INodeProperties[]): INodeProperties {
	return { displayName: 'Filters', name: 'filters', type: 'collection', placeholder: 'Add Filter', default: {}, options };
}

/** One `filters` collection per version: the same parameter name, so a workflow keeps its filters when upgraded by hand. */
export const filterCollections: INodeProperties[] = [
	...version1Only([filtersCollection(jobFilterFields)]),
	...fromVersion2([filtersCollection(jobFilterLocatorFields)]),
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
