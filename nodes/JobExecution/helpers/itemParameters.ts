import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions } from 'n8n-workflow';

import { hasControlCharacter } from '../../shared/transport/requestBuilders';

/** Flow paths, run profiles and names longer than this are refused before sending (no service needs more). */
export const MAX_TEXT_LENGTH = 4096;

/** The error of a bad parameter: names the field (in `message`) and the item. */
export function badParameter(context: IExecuteFunctions, itemIndex: number, message: string, description?: string): NodeOperationError {
	return new NodeOperationError(context.getNode(), `${message} (item ${itemIndex})`, { itemIndex, description });
}

/** "an object", "a list", "a boolean", "null": what an expression produced instead of the expected type. */
export function describeType(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	const type = typeof value;
	return type === 'object' ? 'an object' : `a ${type}`;
}

/**
 * Checks a text value: numbers count as text, anything else is refused, as are control characters (a CR/LF is
 * never part of a name) and values over `maxLength`. Returns the trimmed text ('' when absent).
 */
export function checkText(
	context: IExecuteFunctions,
	itemIndex: number,
	label: string,
	raw: unknown,
	maxLength = MAX_TEXT_LENGTH,
): string {
	if (raw === undefined || raw === null || raw === '') return '';
	if (typeof raw !== 'string' && typeof raw !== 'number') {
		throw badParameter(context, itemIndex, `${label} must be text, got ${describeType(raw)}`);
	}
	const text = String(raw).trim();
	if (hasControlCharacter(text)) throw badParameter(context, itemIndex, `${label} contains control characters (such as a line break)`);
	if (text.length > maxLength) throw badParameter(context, itemIndex, `${label} is longer than ${maxLength} characters`);
	return text;
}

/** A text parameter of the item, checked by checkText; `required` refuses an empty value. */
export function readText(
	context: IExecuteFunctions,
	itemIndex: number,
	name: string,
	label: string,
	options: { required: boolean; maxLength?: number },
): string {
	const text = checkText(context, itemIndex, label, context.getNodeParameter(name, itemIndex, ''), options.maxLength);
	if (options.required && text === '') throw badParameter(context, itemIndex, `${label} is empty`);
	return text;
}

/** A boolean parameter; an expression may also give "true" or "false". Anything else is refused, never guessed. */
export function readBoolean(context: IExecuteFunctions, itemIndex: number, name: string, label: string, fallback: boolean): boolean {
	return checkBoolean(context, itemIndex, label, context.getNodeParameter(name, itemIndex, fallback), fallback);
}

export function checkBoolean(context: IExecuteFunctions, itemIndex: number, label: string, raw: unknown, fallback: boolean): boolean {
	if (raw === undefined || raw === null || raw === '') return fallback;
	if (typeof raw === 'boolean') return raw;
	if (raw === 'true' || raw === 'false') return raw === 'true';
	throw badParameter(context, itemIndex, `${label} must be true or false, got ${typeof raw === 'string' ? JSON.stringify(raw.slice(0, 40)) : describeType(raw)}`);
}

/** One of a fixed set of option values; an expression giving anything else is refused. */
export function readChoice<T extends string>(
	context: IExecuteFunctions,
	itemIndex: number,
	name: string,
	label: string,
	allowed: readonly T[],
	fallback: T,
): T {
	const raw = context.getNodeParameter(name, itemIndex, fallback);
	if ((allowed as readonly unknown[]).includes(raw)) return raw as T;
	const given = typeof raw === 'string' ? JSON.stringify(raw.slice(0, 40)) : describeType(raw);
	throw badParameter(context, itemIndex, `${label} must be one of ${allowed.join(', ')}, got ${given}`);
}
