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

/** Version 2.1 (light versioning): wait limit as amount + unit, Sort as one row, times shown in the workflow's zone. */
export const VERSION_2_1 = 2.1;
const FROM_VERSION_2_1 = { '@version': [{ _cnd: { gte: VERSION_2_1 } }] };

export function fromVersion21(properties: INodeProperties[]): INodeProperties[] {
	return properties.map((property) => ({
		...property,
		displayOptions: { ...property.displayOptions, show: { ...property.displayOptions?.show, ...FROM_VERSION_2_1 } },
	}));
}

/** Fields of versions 1 and 2 that 2.1 replaces: a workflow saved on them keeps the fields it was saved with. */
export function beforeVersion21(properties: INodeProperties[]): INodeProperties[] {
	return properties.map((property) => ({
		...property,
		displayOptions: { ...property.displayOptions, hide: { ...property.displayOptions?.hide, ...FROM_VERSION_2_1 } },
	}));
}

/** Version 2 only (shown from 2, hidden from 2.1). */
export function version2Only(properties: INodeProperties[]): INodeProperties[] {
	return beforeVersion21(fromVersion2(properties));
}
