/** One line per poll in n8n's log for what the trigger had to leave aside or may have missed; nothing when all is well. */
import type { IPollFunctions } from 'n8n-workflow';

import { MAX_LISTED_JOBS, MAX_MISSES, MAX_OPEN_JOBS, MAX_STATE_BYTES } from './jobStatusTracker';
import type { PollStats } from './jobStatusTracker';
import { gapText } from './possibleGap';

export function logPoll(context: IPollFunctions, stats: PollStats, reasons: string[]): void {
	const parts: string[] = [];
	if (stats.unreadable > 0) parts.push(`skipped ${stats.unreadable} listed job(s) without a usable ID`);
	if (stats.overflow > 0) parts.push(`read only the first ${MAX_LISTED_JOBS} jobs of a list, leaving ${stats.overflow}`);
	if (stats.forgotten > 0) parts.push(`forgot ${stats.forgotten} unfinished job(s) to stay within its bounds (${MAX_OPEN_JOBS} jobs, ${MAX_STATE_BYTES} bytes)`);
	if (stats.retrying.length > 0) {
		parts.push(
			`could not read ${stats.retrying.length} tracked job(s) (${reasons.join(', ') || 'failed'}: ${idList(stats.retrying)}); ` +
				`each is read again in a later poll, with backoff, up to ${MAX_MISSES} reads`,
		);
	}
	if (stats.givenUp.length > 0) parts.push(`gave up ${stats.givenUp.length} tracked job(s) after ${MAX_MISSES} failed reads: ${idList(stats.givenUp)}`);
	if (stats.gap !== null) parts.push(gapText(stats.gap));
	if (parts.length > 0) context.logger.warn(`Job Execution Trigger: ${parts.join('; ')}`);
}

/** A few ids, each cut short: a log line stays readable whatever the service's ids are. */
function idList(ids: string[]): string {
	const shown = ids.slice(0, 3).map((id) => (id.length > 40 ? `${id.slice(0, 40)}…` : id));
	return shown.join(', ') + (ids.length > 3 ? ` and ${ids.length - 3} more` : '');
}
