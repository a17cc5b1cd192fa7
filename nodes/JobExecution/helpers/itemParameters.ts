import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { JobOutputOptions } from '../../shared/jobOutput';

import { describeGiven, describeType, MAX_TEXT_LENGTH, sendableTextProblem } from '../../shared/jobVocabulary';

/** Per node run: each parameter holding no expression, with its value (the same for every item), or VARIES. */
const fixedValues = new WeakMap<IExecuteFunctions, Map<string, unknown>>();
const VARIES = Symbol('varies by item');

function holdsExpression(raw: unknown): boolean {
	if (typeof raw === 'string') return raw.startsWith('=');
	if (raw === null || typeof raw !== 'object') return false;
	return Object.values(raw).some(holdsExpression);
}

/**
 * An item's value of a parameter, as getNodeParameter gives it. A parameter with no expression in it is read from
 * n8n once per node run (its value is the same for every item): n8n resolves and copies every value on each read.
 * The value is shared between items, so callers read it and never change it.
 */
export function itemParameter(context: IExecuteFunctions, name: string, itemIndex: number, fallback: unknown, options: { extractValue?: boolean } = {}): unknown {
	let fixed = fixedValues.get(context);
	if (fixed === undefined) fixedValues.set(context, (fixed = new Map()));
	const key = options.extractValue ? `${name}\u0000value` : name;
	const known = fixed.get(key);
	if (known !== undefined && known !== VARIES) return known;
	const value: unknown = options.extractValue ? context.getNodeParameter(name, itemIndex, fallback, { extractValue: true }) : context.getNodeParameter(name, itemIndex, fallback);
	if (known === undefined) {
		const raw = context.getNodeParameter(name, itemIndex, fallback, { rawExpressions: true });
		fixed.set(key, holdsExpression(raw) || value === undefined ? VARIES : value);
	}
	return value;
}

/** The error of a bad parameter: names the field (in `message`) and the item. */
export function badParameter(context: IExecuteFunctions, itemIndex: number, message: string, description?: string): NodeOperationError {
	return new NodeOperationError(context.getNode(), `${message} [item ${itemIndex}]`, { itemIndex, description });
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
	const problem = sendableTextProblem(text, maxLength);
	if (problem !== null) throw badParameter(context, itemIndex, `${label} ${problem}`);
	return text;
}

/** A text parameter of the item, checked by checkText; `required` refuses an empty value. */
export function readText(
	context: IExecuteFunctions,
	itemIndex: number,
	name: string,
	label: string,
	options: { required: boolean; maxLength?: number; locator?: boolean },
): string {
	// locator: a resource locator's value (From List or By Name), or the plain text older versions saved.
	const raw = itemParameter(context, name, itemIndex, '', { extractValue: options.locator === true });
	const text = checkText(context, itemIndex, label, raw, options.maxLength);
	if (options.required && text === '') throw badParameter(context, itemIndex, `${label} is empty`);
	return text;
}

/** A boolean parameter; an expression may also give "true" or "false". Anything else is refused, never guessed. */
export function readBoolean(context: IExecuteFunctions, itemIndex: number, name: string, label: string, fallback: boolean): boolean {
	return checkBoolean(context, itemIndex, label, itemParameter(context, name, itemIndex, fallback), fallback);
}

export function checkBoolean(context: IExecuteFunctions, itemIndex: number, label: string, raw: unknown, fallback: boolean): boolean {
	if (raw === undefined || raw === null || raw === '') return fallback;
	if (typeof raw === 'boolean') return raw;
	if (raw === 'true' || raw === 'false') return raw === 'true';
	throw badParameter(context, itemIndex, `${label} must be true or false, got ${describeGiven(raw)}`);
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
	const raw = itemParameter(context, name, itemIndex, fallback);
	if ((allowed as readonly unknown[]).includes(raw)) return raw as T;
	throw badParameter(context, itemIndex, `${label} must be one of ${allowed.join(', ')}, got ${describeGiven(raw)}`);
}

const OPTION_LABELS: Record<string, string> = { parseLog: 'Parse Log', simplify: 'Simplify', statusOnly: 'Status Only' };

/** The item's Options collection, each switch checked (an expression giving "yes" is refused, not taken as true). */
export function readOutputOptions(context: IExecuteFunctions, itemIndex: number): JobOutputOptions & { statusOnly?: boolean } {
	const raw = itemParameter(context, 'options', itemIndex, {}) as IDataObject;
	const options: Record<string, boolean> = {};
	for (const [name, label] of Object.entries(OPTION_LABELS)) {
		options[name] = checkBoolean(context, itemIndex, `Option ${label}`, raw?.[name], false);
	}
	return options;
}
