/**
 * What redaction hides: the model (docs/guarantees.md, "What redaction hides: the model"), in one sentence: every
 * form of a key (the key as sent, base64 of it and of its URL- and form-encoded forms, and its hex) is hidden wherever
 * it shows in the text or in any reading of it made of up to two readings, each dropping lone line breaks and then
 * decoding one layer of escapes (two layers in all, a form's own included), and then reading a hex dump as its bytes;
 * a key shows as itself only as a token (no letter or digit touching it in that reading, a dropped line break being
 * a boundary).
 *
 * One part of the model per file: keys.ts (what is hidden, and keys too short to hide), forms.ts (the forms derived
 * from them), readings.ts (the readings), automaton.ts (every form searched at once, in any case), search.ts (one
 * text, step by step, each step bounded whatever the keys), sentIds.ts (ids kept as the service sent them).
 */
export { MIN_SECRET_LENGTH, secretForms, shortKeyProblem, shortSecretProblem } from './keys';
export { FIRST_STEP_CHARS, PLAN_WHOLE_CHARS, redact, redactionWork, redactor, runAll, STEP_CHARS, stepEnd } from './search';
export type { RedactionWork } from './search';
export { keepSentId, sentId } from './sentIds';
