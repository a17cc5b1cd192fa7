/** A possible gap (a full list that held no job seen before) in words, and as the item On Possible Gap emits. */
import type { IDataObject } from 'n8n-workflow';

import { SERVICE_PAGE } from './jobStatusTracker';
import type { PossibleGap } from './jobStatusTracker';

export function gapText(gap: PossibleGap): string {
	const from = gap.from === null ? 'the previous poll' : new Date(gap.from).toISOString();
	const what = gap.list === 'history' ? 'finished' : 'were submitted';
	const count = gap.mayBeHidden === null ? 'an unknown number of' : `about ${gap.mayBeHidden}`;
	return (
		`possible gap: the ${gap.list} list was full (${SERVICE_PAGE} jobs) and held no job seen before, so ${count} jobs that ` +
		`${what} between ${from} and ${new Date(gap.to).toISOString()} may never have been listed; poll more often`
	);
}

export function gapJson(gap: PossibleGap): IDataObject {
	return {
		event: 'possibleGap',
		list: gap.list,
		from: gap.from === null ? null : new Date(gap.from).toISOString(),
		to: new Date(gap.to).toISOString(),
		mayBeHidden: gap.mayBeHidden,
		message: gapText(gap),
	};
}
