/**
 * Table-driven tests name the expected result. Jest fills `%` placeholders in row order, so a row written
 * [name, input, expected] is turned into [name, expected, input] for a title like '%s → %p'.
 */
export function expectedSecond<I, E>(rows: Array<[string, I, E]>): Array<[string, E, I]> {
	return rows.map(([name, input, expected]) => [name, expected, input]);
}
