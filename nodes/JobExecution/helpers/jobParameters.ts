/**
 * Job parameters as the service accepts them: name, type (string | integer | float) and a string value.
 * Checked before anything is sent, so a typo never becomes a failed (or, worse, a wrong) job.
 * Pure: problems are returned as values, and the operation turns them into a NodeOperationError.
 */
import { hasControlCharacter, isPlainObject } from '../../shared/jobVocabulary';
import { EXACT_DIGITS, ExactNumber, parseJsonKeepingDigits, significantDigits } from './preciseJson';

export const PARAMETER_TYPES = ['string', 'integer', 'float'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];

export type JobParameter = {
	name: string;
	type: ParameterType;
	value: string;
};

/** `subject` names the parameter for the user, `reason` says what to fix. */
export interface ParameterProblem {
	subject: string;
	reason: string;
}

export type ParametersResult =
	| { parameters: JobParameter[]; problem?: undefined }
	| { parameters?: undefined; problem: ParameterProblem };

type RawParameter = { name?: unknown; type?: unknown; value?: unknown };

const INTEGER = /^[+-]?\d+$/;
const FLOAT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const MAX_VALUE_LENGTH = 100_000;
const MAX_NAME_LENGTH = 4096;

function checkOne(raw: RawParameter, position: number): JobParameter | ParameterProblem {
	const name = typeof raw.name === 'string' ? raw.name.trim() : '';
	const subject = name ? `Parameter "${name}"` : `Parameter ${position}`;
	if (!name) return { subject, reason: 'has an empty name' };
	if (name.length > MAX_NAME_LENGTH) return { subject: `Parameter ${position}`, reason: `has a name longer than ${MAX_NAME_LENGTH} characters` };
	if (hasControlCharacter(name)) return { subject: `Parameter ${position}`, reason: 'has control characters (such as a line break) in its name' };
	const type = typeof raw.type === 'string' ? raw.type.trim().toLowerCase() : 'string';
	if (!(PARAMETER_TYPES as readonly string[]).includes(type)) {
		return { subject, reason: `has type "${String(raw.type)}": only string, integer and float are supported` };
	}
	const text = valueText(raw.value, type);
	if (typeof text !== 'string') return { subject, reason: text.reason };
	let value = text;
	if (value.length > MAX_VALUE_LENGTH) return { subject, reason: `has a value longer than ${MAX_VALUE_LENGTH} characters` };
	if (type === 'integer') {
		value = value.trim();
		if (!INTEGER.test(value)) return { subject, reason: `must be an integer, got "${value}"` };
	}
	if (type === 'float') {
		value = value.trim();
		if (!FLOAT.test(value)) return { subject, reason: `must be a number, got "${value}"` };
	}
	return { name, type: type as ParameterType, value };
}

/**
 * A parameter's value as the text sent: the digits the user wrote. A number that reached the node already parsed
 * (an expression's object) and whose digits a JS number may have changed is refused rather than sent altered.
 */
function valueText(given: unknown, type: string): string | { reason: string } {
	if (given === undefined || given === null) return '';
	if (given instanceof ExactNumber) return (type === 'integer' ? given.wholeDigits(MAX_VALUE_LENGTH) : null) ?? given.literal;
	if (typeof given === 'number' && Number.isInteger(given) && !Number.isSafeInteger(given)) {
		// Up to 15 significant digits a double holds exactly (1e21 is 1 followed by 21 zeros); past that, not.
		const literal = String(given);
		if (significantDigits(literal) <= EXACT_DIGITS) return new ExactNumber(literal).wholeDigits(MAX_VALUE_LENGTH) ?? literal;
		return { reason: `is a whole number beyond 2^53 (${literal}) whose digits may have changed before it reached the node: give it as text, in quotes` };
	}
	if (!['string', 'number', 'boolean'].includes(typeof given)) return { reason: 'has a value that is not text or a number' };
	return String(given);
}

/** Validates raw parameters: empty names, unsupported types, bad numbers and duplicate names. */
export function checkParameters(raw: unknown): ParametersResult {
	if (!Array.isArray(raw)) return { problem: { subject: 'Parameters', reason: 'must be a list of parameters' } };
	const notObject = raw.findIndex((entry) => !isPlainObject(entry));
	if (notObject >= 0) {
		return { problem: { subject: `Parameter ${notObject + 1}`, reason: 'must be an object with name, type and value' } };
	}
	const seen = new Set<string>();
	const parameters: JobParameter[] = [];
	for (let index = 0; index < raw.length; index++) {
		const checked = checkOne(raw[index] as RawParameter, index + 1);
		if ('reason' in checked) return { problem: checked };
		if (seen.has(checked.name)) return { problem: { subject: `Parameter "${checked.name}"`, reason: 'is given more than once' } };
		seen.add(checked.name);
		parameters.push(checked);
	}
	return { parameters };
}

function parseJson(text: string): { value: unknown } | undefined {
	try {
		return { value: parseJsonKeepingDigits(text) };
	} catch {
		return undefined;
	}
}

/** A JSON number's parameter type: whole numbers are integers (checked on the digits written), others floats. */
function numberType(entry: unknown): ParameterType | undefined {
	if (entry instanceof ExactNumber) return entry.wholeDigits(MAX_VALUE_LENGTH) === null ? 'float' : 'integer';
	if (typeof entry === 'number') return Number.isInteger(entry) ? 'integer' : 'float';
	return undefined;
}

/**
 * Parameters given as JSON: an array of { name, type, value }, or an object { name: value } whose
 * types follow the values (whole numbers → integer, other numbers → float, anything else → string).
 */
export function parametersFromJson(input: unknown): ParametersResult {
	let value = input;
	if (typeof value === 'string') {
		if (value.trim() === '') return { parameters: [] };
		const parsed = parseJson(value);
		if (!parsed) return { problem: { subject: 'Parameters (JSON)', reason: 'is not valid JSON' } };
		value = parsed.value;
	}
	if (value === null || value === undefined) return { parameters: [] };
	if (Array.isArray(value)) return checkParameters(value);
	if (typeof value === 'object') {
		return checkParameters(
			Object.entries(value as Record<string, unknown>).map(([name, entry]) => ({
				name,
				type: numberType(entry) ?? 'string',
				value: entry,
			})),
		);
	}
	return {
		problem: { subject: 'Parameters (JSON)', reason: 'must be an array of { name, type, value } or an object of name: value' },
	};
}
