import type { INodeProperties } from 'n8n-workflow';

/**
 * Light versioning's display rules (n8n's `@version`): fields of one version only. Version 1's fields are hidden
 * from version 2 on, so a workflow saved on version 1 keeps the fields, defaults and values it was saved with.
 */
const FROM_VERSION_2 = { '@version': [{ _cnd: { gte: 2 } }] };

export function fromVersion2(properties: INodeProperties[]): INodeProperties[] {
	return properties.map((property) => ({
		...property,
		displayOptions: { ...property.displayOptions, show: { ...property.displayOptions?.show, ...FROM_VERSION_2 } },
	}));
}

export function version1Only(properties: INodeProperties[]): INodeProperties[] {
	return properties.map((property) => ({
		...property,
		displayOptions: { ...property.displayOptions, hide: { ...property.displayOptions?.hide, ...FROM_VERSION_2 } },
	}));
}
