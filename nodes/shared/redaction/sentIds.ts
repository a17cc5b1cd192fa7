/**
 * Ids redaction changed, kept as the service sent them: what the workflow shows stays redacted, but a job is read
 * again under the id it really has (Submit with Wait).
 */
/** Id fields whose value, when redaction changed it, is kept as the service sent it (for reading that job again). */
const ID_FIELDS = new Set(['jobId', 'id']);
const MAX_KEPT_ID_CHARS = 1024;
const sentIds = new WeakMap<object, Map<string, string>>();

/**
 * Remembers the value of an id field as the service sent it, when redaction changed it: what the workflow shows stays
 * redacted, but the job is read again under the id it really has. Other fields and long values are not kept.
 */
export function keepSentId(record: object, field: string, sent: string): void {
	if (!ID_FIELDS.has(field) || sent.length > MAX_KEPT_ID_CHARS) return;
	const kept = sentIds.get(record) ?? new Map<string, string>();
	kept.set(field, sent);
	sentIds.set(record, kept);
}

/** The id field's value as the service sent it, when redaction changed it; undefined otherwise. */
export function sentId(record: unknown, field: string): string | undefined {
	return typeof record === 'object' && record !== null ? sentIds.get(record)?.get(field) : undefined;
}
