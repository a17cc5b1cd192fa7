/**
 * docs/guarantees.md states the bounds the nodes put on what a service sends. The table is built here from the
 * constants the code enforces, so the page cannot drift: a changed constant fails this test until the page is
 * rewritten (`UPDATE_DOCS=1 npx jest test/unit/statedBounds.test.ts` writes it).
 */
import { readFileSync } from 'fs';
import { join } from 'path';

import {
	MAX_MISSES,
	MAX_OPEN_JOBS,
	MAX_STATE_BYTES,
	MAX_STATUS_LENGTH,
} from '../../nodes/JobExecutionTrigger/jobStatusTracker';
import { DEFAULT_MAX_IN_FLIGHT, INITIAL_IN_FLIGHT, INITIAL_READS_IN_FLIGHT, MAX_ITEMS_AT_ONCE, MAX_PAUSE_MS } from '../../nodes/shared/adaptiveLimit';
import { FIRST_ANSWER_ESTIMATE, MAX_ANSWER_BYTES_HELD } from '../../nodes/shared/answerBudget';
import { MAX_PARSED_LOG_CHARS } from '../../nodes/shared/logParser';
import {
	MAX_ANSWER_DEPTH,
	MAX_ANSWER_VALUES,
	MAX_ERROR_ANSWER_BYTES,
	MAX_JOB_ANSWER_BYTES,
	MAX_JOBS_PER_LIST,
	LIST_KEPT_WHOLE_BYTES,
	MAX_LIST_ANSWER_BYTES,
	MAX_LIST_FIELD_CHARS,
	MAX_LIST_KEPT_CHARS,
	MAX_LIST_TOKEN_CHARS,
	MAX_STRING_CHARS,
	transportTiming,
} from '../../nodes/shared/transport';
import { MAX_RETRY_AFTER_MS } from '../../nodes/shared/transport/errors';
import { BLOCK_GOAL_MS, EVENT_LOOP_BLOCK_MS, HEAP_CAP_MB, RSS_CAP_MB } from '../../testkit/fuzz/protocol';
import { markers, writeMeasuredBlock } from '../../testkit/measuredBlock';

const PAGE = join(__dirname, '../../docs/guarantees.md');
const WRITER = 'test/unit/statedBounds.test.ts';

const size = (bytes: number) => (bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`);
const count = (n: number) => n.toLocaleString('en-US');

function table(): string {
	const rows: Array<[string, string, string]> = [
		['Decoded bytes of one job read or a submit answer', size(MAX_JOB_ANSWER_BYTES), 'read as a stream and dropped at the cap, so a compression bomb is never inflated; "larger than …", never retried'],
		['Decoded bytes of a job list kept whole (Get Many, the Job ID list, the trigger, the credential Test)', size(LIST_KEPT_WHOLE_BYTES), 'the list is read as a stream and built as it comes, each string longer than the per-field cap below cut there'],
		['Characters of one string (value or key) of a list past that size', count(MAX_LIST_FIELD_CHARS), 'cut, with a marker at its end; its job gets `cutInList` naming the cut fields (the full job is one Get away); Parse Log then says the log was cut instead of parsing half of it'],
		['Characters kept from a list past that size (strings after their cut, keys, 8 per number or literal)', count(MAX_LIST_KEPT_CHARS), 'the list is refused as soon as it passes it: "keeps more than …", never retried'],
		['Characters of one number or literal in a list past that size', count(MAX_LIST_TOKEN_CHARS), 'the list is refused'],
		['Decoded bytes of a job list streamed through', size(MAX_LIST_ANSWER_BYTES), 'dropped at the cap, so a compression bomb is never inflated further; "larger than …", never retried'],
		['Bytes of an error answer read for its message', size(MAX_ERROR_ANSWER_BYTES), 'the rest is not read; the HTTP status still makes the message'],
		['Nesting depth of an answer', String(MAX_ANSWER_DEPTH), 'the answer is refused before it is parsed (a list past the size kept whole: as soon as the reader reaches it)'],
		['Values in one answer', count(MAX_ANSWER_VALUES), 'the answer is refused before it is parsed (a list past the size kept whole: as soon as the reader reaches it)'],
		['Characters of one string (value or key)', count(MAX_STRING_CHARS), 'cut, with a marker'],
		['Jobs taken from one list (the service promises 100)', count(MAX_JOBS_PER_LIST), 'the rest is left, and the node says how many'],
		['Characters of a log that Parse Log parses', count(MAX_PARSED_LOG_CHARS), 'kept raw, with `logNotParsed` saying why'],
		['One attempt of a call, in time spent waiting on the service', `${transportTiming.attemptMs / 1000} s`, "whatever the service does (drips, silence, headers only); the node's own work is never counted (see Deadlines)"],
		['One call with its retries, and one trigger poll, in time spent waiting on the service', `${transportTiming.callMs / 1000} s`, 'a Wait for Completion ends by its Timeout'],
		['A `Retry-After` the nodes wait for', `${MAX_RETRY_AFTER_MS / 3_600_000} h`, "honoured within the call's time, or the call fails at once saying when; the trigger's poll that met it fails saying until when (seen in the executions list), and later polls until then send nothing"],
		['Requests in flight of one version 2 action node at its defaults (Get, Submit, Wait for Completion)', `${count(DEFAULT_MAX_IN_FLIGHT)} (Concurrency sets 1–${count(DEFAULT_MAX_IN_FLIGHT)})`, `reads start at ${INITIAL_READS_IN_FLIGHT}, submissions at ${INITIAL_IN_FLIGHT}, and grow while answers are ok (a slow answer holds nothing); a rate of 429s, 503s, timeouts or dropped connections cuts the limit, a lone one does not ([the in-flight limiter](#the-in-flight-limiter)); an item waiting for its job between reads holds none; version 1: one at a time`],
		[
			'Answer bytes one version 2 execution reads at once (job reads and submit answers)',
			size(MAX_ANSWER_BYTES_HELD),
			`reserved with a request's slot, before it is sent (the largest answer so far, ${size(FIRST_ANSWER_ESTIMATE)} at first): a request past it waits for its slot, unsent, and never fails for it`,
		],
		['Items of one version 2 action node started and not yet ended', count(MAX_ITEMS_AT_ONCE), 'the next item starts when one ends'],
		['A `Retry-After` that holds every new request of a version 2 node', `${MAX_PAUSE_MS / 1000} s`, "once per burst of refusals; a request whose call cannot wait it out fails at once saying when; longer: nothing is held, and each refused call fails at once saying when"],
		['The trigger\'s stored state', size(MAX_STATE_BYTES), 'statuses cut, long ids hashed, the oldest-seen entries forgotten first'],
		['A status the trigger stores', `${MAX_STATUS_LENGTH} characters`, 'cut'],
		['Unfinished jobs the trigger tracks', count(MAX_OPEN_JOBS), 'the least recently seen are forgotten'],
		['Failed reads of one tracked job before the trigger gives it up', String(MAX_MISSES), 'read again with doubling backoff, logged each poll; every other job keeps firing'],
	];
	const fuzz = `The fuzzer (\`testkit/fuzz/\`) runs each operation, the trigger, the Job ID list and the credential Test in a child process with a ${HEAP_CAP_MB} MiB heap, and fails a run whose resident memory passes ${RSS_CAP_MB} MiB or whose event loop is blocked for more than ${EVENT_LOOP_BLOCK_MS} ms of CPU time (${BLOCK_GOAL_MS} ms where every answer is within the bounds above: escape-dense logs at each size bound, keys in short fields of lists past the size kept whole).`;
	return ['| What the service sends | Bound | Past it |', '|---|---|---|', ...rows.map((row) => `| ${row.join(' | ')} |`), '', fuzz].join('\n');
}

test('docs/guarantees.md states the bounds the code enforces', () => {
	const expected = table();
	if (process.env.UPDATE_DOCS === '1') writeMeasuredBlock(PAGE, 'stated-bounds', WRITER, expected);
	const text = readFileSync(PAGE, 'utf8');
	const { start, end } = markers('stated-bounds', WRITER);
	const from = text.indexOf(start);
	const to = text.indexOf(end);
	expect(from).toBeGreaterThan(-1);
	expect(text.slice(from + start.length, to).trim()).toBe(expected);
});
