/**
 * JSON read without losing the digits a user wrote. JSON.parse turns `9007199254740993` into 9007199254740992 and
 * `123456789012345678901234567890` into 1.2345678901234568e+29: a job parameter would then carry other digits than
 * the user typed. Here each number literal whose digits a JS number may not hold (more than 15 significant digits)
 * or too large for one, is kept as an ExactNumber with its literal; every other number stays a plain number, so what was exact before is
 * read exactly as before. One linear pass over the text, then JSON.parse.
 */

/** A number literal a JS number may not hold exactly, as the user wrote it. */
export class ExactNumber {
	constructor(readonly literal: string) {}

	/** Whole numbers as plain digits (`1.5e3` → `1500`), or null when the literal has a fractional part. */
	wholeDigits(maxLength: number): string | null {
		const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(this.literal);
		if (!match) return null;
		const [, sign, whole, fraction = '', exponentText = '0'] = match;
		const exponent = Number(exponentText) - fraction.length;
		const digits = `${whole}${fraction}`;
		// Past maxLength the value is refused as too long anyway: never build a string that large.
		if (exponent > maxLength) return null;
		const shifted = exponent >= 0 ? digits + '0'.repeat(exponent) : digits.slice(0, exponent);
		if (exponent < 0 && /[1-9]/.test(digits.slice(exponent))) return null;
		const trimmed = shifted.replace(/^0+(?=\d)/, '');
		return trimmed === '0' || trimmed === '' ? '0' : `${sign}${trimmed}`;
	}
}

/** The significant digits a double always holds exactly: a literal with more may be read as another number. */
export const EXACT_DIGITS = 15;

export function significantDigits(literal: string): number {
	const mantissa = literal.replace(/^-/, '').replace(/[eE].*$/, '').replace('.', '');
	return mantissa.replace(/^0+/, '').replace(/0+$/, '').length;
}

/** The end of the number literal starting at `start` (JSON's grammar; JSON.parse checks it afterwards). */
function numberEnd(text: string, start: number): number {
	let end = start;
	while (end < text.length && /[-+.eE0-9]/.test(text[end])) end++;
	return end;
}

/**
 * Parses JSON text; number literals with more than 15 significant digits, or beyond a double, become ExactNumber. Throws as JSON.parse
 * does on text that is not JSON.
 */
export function parseJsonKeepingDigits(text: string): unknown {
	const mark = `\u0000exact${Math.random().toString(36).slice(2)}:`;
	const literals: string[] = [];
	let out = '';
	let copiedTo = 0;
	let inString = false;
	for (let i = 0; i < text.length; i++) {
		const char = text[i];
		if (inString) {
			if (char === '\\') i++;
			else if (char === '"') inString = false;
			continue;
		}
		if (char === '"') inString = true;
		else if (char === '-' || (char >= '0' && char <= '9')) {
			const end = numberEnd(text, i);
			const literal = text.slice(i, end);
			if (significantDigits(literal) > EXACT_DIGITS || !Number.isFinite(Number(literal))) {
				out += `${text.slice(copiedTo, i)}${JSON.stringify(mark + literals.length)}`;
				literals.push(literal);
				copiedTo = end;
			}
			i = end - 1;
		}
	}
	if (literals.length === 0) return JSON.parse(text) as unknown;
	out += text.slice(copiedTo);
	// A marker only ever stands where a valid number was: JSON.parse of the original checks the grammar first.
	JSON.parse(text);
	return JSON.parse(out, (_key, value: unknown) =>
		typeof value === 'string' && value.startsWith(mark) ? new ExactNumber(literals[Number(value.slice(mark.length))]) : value,
	) as unknown;
}
