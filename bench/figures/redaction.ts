/**
 * Figure 11: what redaction costs per KiB of the service's answer (issue 33 §1), before and after, in one run: the
 * redaction of main 0616b91 (BENCH_BEFORE, by default 0616b91: every string redacted whole at once, then cut) against
 * the transport's own cleaning (nodes/shared/transport/answer.ts `cleanParsed`: cut first, then redacted in slices,
 * yielding by work). One job answer of 4 MiB, the stated bound, holding two strings of 2 MiB (the longest kept whole,
 * so every character is redacted: the worst case per KiB), plain or escape-dense; CPU time per KiB, and the longest
 * event-loop block in CPU time (testkit/cpuBlocks.ts). Rounds alternate before and after. Also writes the worst
 * case into docs/guarantees.md (its `redaction-cost` block).
 */
import { execFileSync } from 'child_process';
import { join } from 'path';

import * as ts from 'typescript';

import { secretForms } from '../../nodes/shared/redaction';
import { cleanParsed, cutMarker, MAX_STRING_CHARS } from '../../nodes/shared/transport/answer';
import { watchCpuBlocks } from '../../testkit/cpuBlocks';
import { realisticLog } from '../../testkit/largeLists';
import { writeMeasuredBlock } from '../../testkit/measuredBlock';
import type { Figure } from '../lib/figure';
import { verdict } from '../lib/figure';

const BLOCK_GOAL_MS = 100;
const ROUNDS = 3;
const KEYS = ['bench-token-7e1d9a', 'bench-relay-5a7c1e', 'bench-user-2b8d6f', 'bench-header-9f2e4c'];
const BASIC = { user: 'alice', password: 'bench-pass-3c5b8f' };
const WRITER = 'npm run bench -- 11 (bench/figures/redaction.ts)';

/** A text of MAX_STRING_CHARS characters: a realistic log, or one unit repeated (the escape-dense texts of issue 33). */
function texts(): Array<{ name: string; text: string }> {
	const repeat = (unit: string) => unit.repeat(Math.ceil(MAX_STRING_CHARS / unit.length)).slice(0, MAX_STRING_CHARS);
	// Every byte of the bench's token in hex, percent-encoded, in the wrong order: each slice gets every view.
	const scrambled = [...Buffer.from(KEYS[0])].reverse().map((byte) => `%${byte.toString(16)}`).join('');
	return [
		{ name: 'plain log', text: realisticLog('7c2f0000-0000-4000-8000-000000000001', MAX_STRING_CHARS) },
		{ name: '`%41\\n`', text: repeat('%41\n') },
		{ name: '`%2541\\n`', text: repeat('%2541\n') },
		{ name: '`\\u0041`', text: repeat('\\u0041') },
		{ name: '`&#65;`', text: repeat('&#65;') },
		{ name: '`&amp;`', text: repeat('&amp;') },
		{ name: 'a key\'s bytes percent-encoded, scrambled', text: repeat(`${scrambled}\n`) },
	];
}

function cpuMs(): number {
	const { user, system } = process.cpuUsage();
	return (user + system) / 1000;
}

type Redaction = Pick<typeof import('../../nodes/shared/redaction'), 'redactor' | 'secretForms'>;

/** The redaction of a git ref, transpiled from its one file (before issue 33 it imported nothing), loaded in place. */
function redactionAt(ref: string): Redaction {
	const source = execFileSync('git', ['-C', repositoryRoot(), 'show', `${ref}:nodes/shared/redaction.ts`], { encoding: 'utf8' });
	const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } });
	const module = { exports: {} as Redaction };
	new Function('module', 'exports', 'require', outputText)(module, module.exports, require);
	return module.exports;
}

/** The cleaning before issue 33: each string redacted whole at once, then cut. */
function cleanBefore(before: Redaction, answer: Record<string, string>, forms: readonly string[]): Record<string, string> {
	const clean = before.redactor(forms);
	const cut = (text: string) => (text.length <= MAX_STRING_CHARS ? text : text.slice(0, MAX_STRING_CHARS) + cutMarker(text.length - MAX_STRING_CHARS));
	return Object.fromEntries(Object.entries(answer).map(([key, value]) => [key, cut(clean(value))]));
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

/** A bearer token of a JWT's length (about 900 characters): the slices' overlap grows with the longest key. */
const JWT = `eyJ${'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.'.repeat(14)}`;

export async function measureRedaction(): Promise<Figure[]> {
	const ref = process.env.BENCH_BEFORE ?? '0616b91';
	const before = redactionAt(ref);
	const figures: Figure[] = [];
	const worst = { perKiB: 0, block: 0, name: '' };
	const cases = [
		...texts().map((each) => ({ ...each, keys: KEYS })),
		...texts()
			.filter((each) => each.name === '`%41\\n`')
			.map((each) => ({ ...each, name: `${each.name}, with a bearer token of ${JWT.length} characters`, keys: [JWT, ...KEYS.slice(1)] })),
	];
	for (const { name, text, keys } of cases) {
		const forms = secretForms(keys, BASIC);
		const formsBefore = before.secretForms(keys, BASIC);
		// Two strings of 2 MiB: an answer of 4 MiB, all of it kept.
		const answer = () => ({ a: text, b: text.replace(/^./, 'x') });
		const kib = (2 * text.length) / 1024;
		const runsBefore: Run[] = [];
		const after: Run[] = [];
		for (let round = 0; round < ROUNDS; round++) {
			runsBefore.push(await measure(() => Promise.resolve(cleanBefore(before, answer(), formsBefore))));
			after.push(await measure(() => cleanParsed(answer(), forms)));
		}
		const perKiB = (runs: Run[]) => (median(runs.map((run) => run.cpuMs)) * 1000) / kib;
		const block = (runs: Run[]) => Math.max(...runs.map((run) => run.blockMs));
		if (perKiB(after) > worst.perKiB) Object.assign(worst, { perKiB: perKiB(after), name });
		worst.block = Math.max(worst.block, block(after));
		figures.push({
			id: `11${String.fromCharCode(97 + figures.length)}`,
			name: `Redaction of a 4 MiB answer (two 2 MiB strings): ${name}`,
			measured: `${perKiB(after).toFixed(1)} µs/KiB, longest block ${block(after).toFixed(0)} ms CPU (before, ${ref}: ${perKiB(runsBefore).toFixed(1)} µs/KiB, ${block(runsBefore).toFixed(0)} ms)`,
			goal: `every block ≤ ${BLOCK_GOAL_MS} ms`,
			verdict: verdict(block(after) <= BLOCK_GOAL_MS),
			details: [`${name}: CPU per round before ${runsBefore.map((run) => run.cpuMs.toFixed(0)).join(', ')} ms; after ${after.map((run) => run.cpuMs.toFixed(0)).join(', ')} ms (${ROUNDS} rounds, alternating)`],
		});
	}
	const summary = `${worst.perKiB.toFixed(1)} µs of CPU per KiB at worst (${worst.name}), longest event-loop block ${worst.block.toFixed(0)} ms of CPU`;
	figures.push({ id: `11${String.fromCharCode(97 + figures.length)}`, name: 'Redaction: worst case of the rows above', measured: summary, goal: `every block ≤ ${BLOCK_GOAL_MS} ms`, verdict: 'info' });
	writeMeasuredBlock(join(repositoryRoot(), 'docs', 'guarantees.md'), 'redaction-cost', WRITER, `${summary}, over the texts of figure 11 in [BENCHMARKS.md](../BENCHMARKS.md) (${new Date().toISOString().slice(0, 10)}).`);
	return figures;
}

/** The repository, wherever the compiled bench runs from (dist-bench/bench/figures). */
function repositoryRoot(): string {
	return join(__dirname, '..', '..', '..');
}
