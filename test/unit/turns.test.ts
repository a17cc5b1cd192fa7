/**
 * When a long reading gives the event loop a turn (nodes/shared/transport/turns.ts): after FIRST_TURN_WORK of work,
 * then after a budget twice the last up to WORK_PER_TURN; exactly at a budget a turn is due, one unit short it is not.
 */
import fc from 'fast-check';

import { FIRST_TURN_WORK, Turns, WORK_PER_TURN } from '../../nodes/shared/transport/turns';

const Ki = 1024;

test('the budgets are 16, 32, 64, 128 Ki, then 256 Ki for every turn after', () => {
	const turns = new Turns();
	const budgets: number[] = [];
	for (let turn = 0; turn < 7; turn++) {
		const budget = turns.room();
		budgets.push(budget);
		turns.add(budget - 1);
		expect({ owed: turns.owed(), due: turns.due(), room: turns.room() }).toEqual({ owed: false, due: false, room: 1 });
		turns.add(1);
		expect(turns.owed()).toBe(true);
		expect(turns.due()).toBe(true);
		expect(turns.owed()).toBe(false);
	}
	expect(budgets).toEqual([16, 32, 64, 128, 256, 256, 256].map((size) => size * Ki));
	expect([FIRST_TURN_WORK, WORK_PER_TURN]).toEqual([16 * Ki, 256 * Ki]);
});

test('work past a budget is owed a turn until due() takes it; the count then starts from nothing, whatever was over', () => {
	const turns = new Turns();
	turns.add(FIRST_TURN_WORK + 5000);
	expect({ owed: turns.owed(), room: turns.room() }).toEqual({ owed: true, room: 1 });
	expect(turns.owed()).toBe(true);
	expect(turns.due()).toBe(true);
	expect(turns.due()).toBe(false);
	expect(turns.room()).toBe(2 * FIRST_TURN_WORK);
});

test('generated: a turn is due exactly when the work since the last reaches the budget the rule gives', () => {
	fc.assert(
		fc.property(fc.array(fc.integer({ min: 0, max: 300 * Ki }), { maxLength: 60 }), (works) => {
			const turns = new Turns();
			let since = 0;
			let budget = FIRST_TURN_WORK;
			for (const work of works) {
				expect(turns.room()).toBe(Math.max(1, budget - since));
				turns.add(work);
				since += work;
				const due = since >= budget;
				expect(turns.due()).toBe(due);
				if (due) {
					since = 0;
					budget = Math.min(2 * budget, WORK_PER_TURN);
				}
			}
		}),
		{ seed: 4711, numRuns: 200 },
	);
});
