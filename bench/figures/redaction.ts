/**
 * Figure 11: what redaction costs per KiB of the service's text (issue 33 §1), before and after, in one run: the
 * redaction of main 0616b91 (bench/lib/redactionBefore.ts: every string redacted whole, then cut) against the
 * transport's own cleaning (nodes/shared/transport/answer.ts: cut first, then redacted in slices that yield). One
 * job answer of 4 MiB (the stated bound) holding one log, plain or escape-dense; CPU time per KiB of the text, and
 * the longest event-loop block in CPU time (testkit/cpuBlocks.ts). Rounds alternate before and after.
 */

import { redactor as redactorBefore, secretForms as secretFormsBefore } from '../lib/redactionBefore';
import { secretForms } from '../../nodes/shared/redaction';
import { cleanParsed, MAX_STRING_CHARS, cutMarker } from '../../nodes/shared/transport/answer';
import { watchCpuBlocks } from '../../testkit/cpuBlocks';
import { realisticLog } from '../../testkit/largeLists';
import type { Figure } from '../lib/figure';
import { verdict } from '../lib/figure';

const MiB = 1024 * 1024;
const BLOCK_GOAL_MS = 100;
const ROUNDS = 3;
const KEYS = ['bench-token-7e1d9a', 'bench-relay-5a7c1e', 'bench-user-2b8d6f', 'bench-header-9f2e4c'];
const BASIC = { user: 'alice', password: 'bench-pass-3c5b8f' };

/** Texts of about 4 MiB: a realistic log, and the escape-dense ones of issue 33. */
function texts(): Array<{ name: string; text: string }> {
	const chars = 4 * MiB;
	const repeat = (unit: string) => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
	return [
		{ name: 'plain log', text: realisticLog('7c2f0000-0000-4000-8000-000000000001', chars) },
		{ name: '`%41\\n` repeated', text: repeat('%41\n') },
		{ name: '`%2541\\n` repeated', text: repeat('%2541\n') },
		{ name: '`\\u0041` repeated', text: repeat('\\u0041') },
		{ name: '`&#65;` repeated', text: repeat('&#65;') },
	];
}

function cpuMs(): number {
	const { user, system } = process.cpuUsage();
	return (user + system) / 1000;
}

/** The cleaning of main 0616b91: the whole string redacted at once, then cut. */
function cleanBefore(text: string, forms: readonly string[]): string {
	const redacted = redactorBefore(forms)(text);
	return redacted.length <= MAX_STRING_CHARS ? redacted : redacted.slice(0, MAX_STRING_CHARS) + cutMarker(redacted.length - MAX_STRING_CHARS);
}

interface Run {
	cpuMs: number;
	blockMs: number;
}

async function measure(work: () => Promise<unknown>): Promise<Run> {
	// A turn of the loop first, so the watch's first tick does not count the set-up.
	await new Promise((resolve) => setImmediate(resolve));
	const watch = watchCpuBlocks();
	const cpu = cpuMs();
	await work();
	const used = cpuMs() - cpu;
	// A tick after the work, so its last stretch is counted.
	await new Promise((resolve) => setTimeout(resolve, 25));
	return { cpuMs: used, blockMs: watch.stop() };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function measureRedaction(): Promise<Figure[]> {
	const forms = secretForms(KEYS, BASIC);
	const formsBefore = secretFormsBefore(KEYS, BASIC);
	const figures: Figure[] = [];
	let worstAfter = 0;
	let worstBlock = 0;
	for (const { name, text } of texts()) {
		const kib = text.length / 1024;
		const before: Run[] = [];
		const after: Run[] = [];
		for (let round = 0; round < ROUNDS; round++) {
			before.push(await measure(() => Promise.resolve(cleanBefore(text, formsBefore))));
			after.push(await measure(() => cleanParsed({ log: text }, forms)));
		}
		const perKiB = (runs: Run[]) => (median(runs.map((run) => run.cpuMs)) * 1000) / kib;
		const block = (runs: Run[]) => Math.max(...runs.map((run) => run.blockMs));
		worstAfter = Math.max(worstAfter, perKiB(after));
		worstBlock = Math.max(worstBlock, block(after));
		figures.push({
			id: `11${String.fromCharCode(97 + figures.length)}`,
			name: `Redaction of a 4 MiB job log: ${name}`,
			measured: `${perKiB(after).toFixed(1)} µs/KiB, longest block ${block(after).toFixed(0)} ms CPU (before: ${perKiB(before).toFixed(1)} µs/KiB, ${block(before).toFixed(0)} ms)`,
			goal: `every block ≤ ${BLOCK_GOAL_MS} ms`,
			verdict: verdict(block(after) <= BLOCK_GOAL_MS),
			details: [`${name}: CPU per round before ${before.map((run) => run.cpuMs.toFixed(0)).join(', ')} ms; after ${after.map((run) => run.cpuMs.toFixed(0)).join(', ')} ms (${ROUNDS} rounds, alternating)`],
		});
	}
	figures.push({
		id: `11${String.fromCharCode(97 + figures.length)}`,
		name: 'Redaction: worst case of the rows above',
		measured: `${worstAfter.toFixed(1)} µs/KiB, longest block ${worstBlock.toFixed(0)} ms CPU`,
		goal: `every block ≤ ${BLOCK_GOAL_MS} ms`,
		verdict: 'info',
	});
	return figures;
}
