/**
 * Job parameters as the service accepts them: name, type (string | integer | float) and a string value.
 * Checked before anything is sent, so a typo never becomes a failed (or, worse, a wrong) job.
 * Pure: problems are returned as values, and the operation turns them into a NodeOperationError.
 */
import { hasControlCharacter, isPlainObject } from '../../shared/jobVocabulary';

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
	const { value: given } = raw;
	if (given !== undefined && given !== null && !['string', 'number', 'boolean'].includes(typeof given)) {
		return { subject, reason: 'has a value that is not text or a number' };
	}
	let value = given === undefined || given === null ? '' : String(given);
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
		return { value: JSON.parse(text) };
	} catch {
		return undefined;
	}
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
				type: typeof entry === 'number' ? (Number.isInteger(entry) ? 'integer' : 'float') : 'string',
				value: entry,
			})),
		);
	}
	return {
		problem: { subject: 'Parameters (JSON)', reason: 'must be an array of { name, type, value } or an object of name: value' },
	};
}
