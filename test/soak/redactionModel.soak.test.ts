/**
 * The redaction model's long run (issue 47 §4): the generated cases of test/unit/redactionModel.property.test.ts,
 * MODEL_SOAK_RUNS of them (20,000 by default) from the same seed, and a step's cost in CPU whatever the key: a
 * 3.9 MiB escape-dense Get with a 4 KiB token, and a key of one letter in its worst text, never hold the event loop
 * 100 ms (the tier runs alone, so a CPU bound is measured, not guessed; the default tier counts the work instead).
 */
import fc from 'fast-check';

import { redactionWork, secretForms } from '../../nodes/shared/redaction';
import { cleanParsed } from '../../nodes/shared/transport';
import { watchCpuBlocks } from '../../testkit/cpuBlocks';
import { MODEL_SEED, modelCaseArbitrary, modelFailure } from '../../testkit/redactionModel';

const RUNS = Number(process.env.MODEL_SOAK_RUNS ?? 20_000);

test(`${RUNS} generated cases (seed ${MODEL_SEED}): nothing of the key shows`, () => {
	fc.assert(
		fc.property(modelCaseArbitrary(64), fc.integer({ min: 0, max: 1 }), (item, kind) => {
			const failure = modelFailure(item, kind);
			if (failure !== undefined) throw new Error(failure);
		}),
		{ seed: MODEL_SEED + 1, numRuns: RUNS },
	);
}, 3_600_000);

/** A JWT-like token of `chars` characters (base64url, a dot). */
function jwtLike(chars: number): string {
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
	const body = Array.from({ length: chars - 4 }, (_, at) => alphabet[(at * 37 + 11) % 64]).join('');
	return `eyJ${body.slice(0, chars / 2)}.${body.slice(chars / 2)}`;
}

test.each([
	['a 4 KiB token, %2541 and line breaks', jwtLike(4096), '%2541\n'],
	['a 4 KiB token, %41 and line breaks', jwtLike(4096), '%41\n'],
	['4 KiB of one letter, in runs of 4095', 'a'.repeat(4096), `${'a'.repeat(4095)}b`],
])('a 3.9 MiB Get, %s: no event-loop block of 100 ms of CPU', async (_name, key, unit) => {
	const forms = secretForms([key]);
	redactionWork(forms);
	const answer = { id: 'job-1', log: unit.repeat(Math.ceil((3.9 * 1024 * 1024) / unit.length)), note: `Bearer ${key}` };
	// Once first, so the measured run is not the engine compiling the code.
	await cleanParsed(structuredClone(answer), forms);
	const watch = watchCpuBlocks();
	const cleaned = (await cleanParsed(answer, forms)) as { note: string };
	const block = watch.stop();
	process.stdout.write(`redaction soak: ${_name}: longest block ${block.toFixed(1)} ms of CPU\n`);
	expect(cleaned.note).toBe('Bearer ***');
	expect(block).toBeLessThan(100);
});
