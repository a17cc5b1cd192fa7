/**
 * The outcome a status reports (the trigger's `outcome`, version 2): one per status the spec names, read as the
 * vocabulary reads statuses (case and surrounding spaces ignored), and `other` for anything else.
 */
import { JOB_OUTCOMES, JOB_STATUSES, statusOutcome } from '../../nodes/shared/jobVocabulary';

describe('statusOutcome', () => {
	test('each status the spec names has its own outcome, in the order a job passes them', () => {
		expect(JOB_STATUSES.map(statusOutcome)).toEqual(['queued', 'started', 'completed', 'failed', 'cancelled']);
		expect(new Set(JOB_STATUSES.map(statusOutcome)).size).toBe(JOB_STATUSES.length);
		expect([...JOB_OUTCOMES]).toEqual([...JOB_STATUSES.map(statusOutcome), 'other']);
	});

	test('read as the vocabulary reads a status: case and surrounding spaces ignored', () => {
		expect([' completed ', 'Error', '\tcancelled\n'].map(statusOutcome)).toEqual(['completed', 'failed', 'cancelled']);
	});

	test('anything else is other: unknown words, near misses, empty, not text', () => {
		expect(['PAUSED', 'COMPLETE', 'ERRORS', '', 'constructor', '__proto__', 'toString', 3, null, undefined, {}, ['COMPLETED']].map(statusOutcome)).toEqual(Array(12).fill('other'));
	});
});
