import { NodeOperationError, sleep } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { describeGiven, isPlainObject, isTerminalStatus, normalizeStatus } from '../../shared/jobVocabulary';
import { redact } from '../../shared/redaction';
import { jobFailureReason } from '../../shared/jobSummary';
import { nodeVersion } from '../../shared/nodeVersion';
import { TIMEOUT_DEFAULT, TIMEOUT_UNIT_SECONDS } from '../../shared/descriptions';
import { VERSION_2_1 } from '../../shared/versionDisplay';
import type { ResolvedConnection } from '../../shared/transport';
import { apiRequest, readJobCall } from '../../shared/transport';
import { failureInWords, isRetryableError, retryAfterMs } from '../../shared/transport/errors';
import { badParameter, itemParameter } from './itemParameters';
import { settle } from '../../shared/settle';

export interface WaitSettings {
	pollIntervalSeconds: number;
	timeoutSeconds: number;
	onJobFailure: 'error' | 'returnData';
}

const MAX_BACKOFF_MS = 60_000;
/** Waits are cut in slices this long, so a cancelled execution stops waiting within a slice. */
const SLEEP_SLICE_MS = 250;

async function sleepUnlessCancelled(ms: number, signal: AbortSignal | undefined): Promise<void> {
	const until = Date.now() + ms;
	for (let left = ms; left > 0 && !signal?.aborted; left = until - Date.now()) {
		await sleep(Math.min(left, SLEEP_SLICE_MS));
	}
}

/** Reads the wait settings of an item, refusing values that would poll forever or hammer the service. */
export function readWaitSettings(context: IExecuteFunctions, itemIndex: number, prefix: string): WaitSettings {
	const settings = (itemParameter(context, prefix, itemIndex, {}) as IDataObject) ?? {};
	const number = (raw: unknown): number => (typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN);
	const seconds = (name: string, label: string, fallback: number): number => {
		const raw = settings[name] ?? fallback;
		const value = number(raw);
		if (!Number.isFinite(value) || value < 1) {
			throw badParameter(context, itemIndex, `${label} must be a number of seconds, at least 1, got ${describeGiven(raw, { values: true })}`);
		}
		return value;
	};
	const pollIntervalSeconds = seconds('pollInterval', 'Poll Interval', 5);
	// 2.1 saves an amount and a unit together (default 1 hour); versions 1 and 2 saved seconds.
	const timeoutSeconds = nodeVersion(context) >= VERSION_2_1 ? timeoutOf21(context, itemIndex, settings, number) : seconds('timeout', 'Timeout', 3600);
	const onJobFailure = settings.onJobFailure ?? 'error';
	if (onJobFailure !== 'error' && onJobFailure !== 'returnData') {
		throw badParameter(context, itemIndex, 'When the Job Fails or Is Cancelled must be "error" or "returnData"');
	}
	return { pollIntervalSeconds, timeoutSeconds, onJobFailure };
}

/** 2.1's Timeout: amount × unit (the fixedCollection's values; added without them, its default hour), at least one second. */
function timeoutOf21(context: IExecuteFunctions, itemIndex: number, settings: IDataObject, number: (raw: unknown) => number): number {
	const limit = settings.timeoutAfter ?? {};
	const values = isPlainObject(limit) ? (limit.values ?? TIMEOUT_DEFAULT) : limit;
	if (!isPlainObject(values)) throw badParameter(context, itemIndex, `Timeout must be an amount and a unit, got ${describeGiven(values)}`);
	const unit = values.unit ?? TIMEOUT_DEFAULT.unit;
	if (typeof unit !== 'string' || !Object.hasOwn(TIMEOUT_UNIT_SECONDS, unit)) {
		throw badParameter(context, itemIndex, `Timeout's Unit must be one of ${Object.keys(TIMEOUT_UNIT_SECONDS).join(', ')}, got ${describeGiven(unit)}`);
	}
	const raw = values.amount ?? TIMEOUT_DEFAULT.amount;
	const value = number(raw) * TIMEOUT_UNIT_SECONDS[unit as keyof typeof TIMEOUT_UNIT_SECONDS];
	if (!Number.isFinite(value) || value < 1) {
		throw badParameter(context, itemIndex, `Timeout must be at least 1 second, got ${describeGiven(raw, { values: true })} ${unit}`);
	}
	return value;
}

/** The n8n error of a failed wait: its message kept as written (n8n rewrites messages that contain codes). */
function waitError(context: IExecuteFunctions, message: string, itemIndex: number, description?: string): NodeOperationError {
	const error = new NodeOperationError(context.getNode(), message, { itemIndex, description });
	error.message = message;
	return error;
}

/**
 * The delay before the read after a failed one: never shorter than the Poll Interval (one read per interval, retries
 * included), doubled after each failure up to MAX_BACKOFF_MS (or the interval, when longer), and at least what a
 * Retry-After asked for.
 */
export function delayAfterFailure(previousMs: number, intervalMs: number, retryAfter: number | undefined): number {
	const backoff = Math.max(intervalMs, Math.min(Math.max(previousMs, intervalMs) * 2, MAX_BACKOFF_MS));
	return Math.max(backoff, retryAfter ?? 0);
}

/** The longest share of the Timeout kept for a wait's only read, when the Poll Interval is as long as the Timeout. */
const LAST_READ_RESERVE_MS = 5000;

/**
 * How long to sleep before the next read. A wait that has not read the job yet and whose next read would fall at
 * or past the Timeout (Timeout ≤ Poll Interval) reads it once before the deadline instead, keeping up to
 * LAST_READ_RESERVE_MS (at most half of what is left) for that read: a job that ended at once is reported as such.
 */
export function sleepBeforeRead(delayMs: number, remainingMs: number, readsSoFar: number): number {
	if (readsSoFar > 0 || delayMs < remainingMs) return Math.min(delayMs, remainingMs);
	return remainingMs - Math.min(remainingMs / 2, LAST_READ_RESERVE_MS);
}

/** A Retry-After that points past the wait's Timeout: the wait ends now, saying when the service can be asked again. */
function retryAfterTooLate(context: IExecuteFunctions, jobId: string, waitMs: number, itemIndex: number): NodeOperationError {
	const seconds = Math.ceil(waitMs / 1000);
	return waitError(
		context,
		`The service asked to wait ${seconds} s before reading job ${jobId} again, past this wait's Timeout`,
		itemIndex,
		`Retry after ${new Date(Date.now() + waitMs).toISOString()}, or raise the Timeout.`,
	);
}

/**
 * Polls one job until it ends and returns its final status (whatever the outcome: see checkJobOutcome): at most one
 * read per interval (each read is one attempt: the transport does not retry inside the loop), transient failures
 * back off and are retried until the timeout, a Retry-After is honoured, and the wait ends as soon as the execution
 * is cancelled. The Timeout bounds the whole wait, the read in flight included. In version 2 each read asks the
 * execution's limit for a slot (transport, adaptiveLimit.ts): the sleep between reads holds none.
 */
export async function waitForJob(
	this: IExecuteFunctions,
	connection: ResolvedConnection,
	jobId: string,
	settings: WaitSettings,
	itemIndex: number,
	options: { readFirst: boolean; readAs?: string; stats?: { reads: number } },
): Promise<IDataObject> {
	const intervalMs = settings.pollIntervalSeconds * 1000;
	const deadline = Date.now() + settings.timeoutSeconds * 1000;
	const signal = this.getExecutionCancelSignal();
	let lastStatus = 'not read yet';
	let lastFailure = '';
	let delayMs = options.readFirst ? 0 : intervalMs;
	for (let reads = 0; ; reads++) {
		if (delayMs > 0) {
			const remaining = deadline - Date.now();
			if (remaining <= 0) break;
			await sleepUnlessCancelled(sleepBeforeRead(delayMs, remaining, reads), signal);
		}
		if (signal?.aborted) throw waitError(this, `The execution was cancelled while waiting for job ${jobId}`, itemIndex);
		if (Date.now() >= deadline) break;
		const read = await settle(apiRequest.call(this, connection, readJobCall(options.readAs ?? jobId), { itemIndex, deadline, singleAttempt: true }));
		if (options.stats) options.stats.reads = reads + 1;
		if (read.ok) {
			const { body } = read.value;
			if (!isPlainObject(body)) throw waitError(this, `The service answered with no job status for job ${jobId}`, itemIndex);
			lastStatus = shownStatus(body.executionStatus, connection);
			lastFailure = '';
			if (isTerminalStatus(body.executionStatus)) return body;
			delayMs = intervalMs;
		} else {
			if (!isRetryableError(read.error)) throw read.error;
			lastFailure = failureInWords(read.error);
			const asked = retryAfterMs(read.error);
			delayMs = delayAfterFailure(delayMs, intervalMs, asked);
			if (asked !== undefined && Date.now() + asked >= deadline) throw retryAfterTooLate(this, jobId, asked, itemIndex);
		}
		if (Date.now() >= deadline) break;
	}
	const failed = lastFailure ? `; the last read failed: ${lastFailure}` : '';
	throw waitError(
		this,
		`Timed out after ${settings.timeoutSeconds} s waiting for job ${jobId}: last status ${lastStatus}${failed}`,
		itemIndex,
		'Raise the Timeout, or use the Wait for Completion operation later with this job ID.',
	);
}

/** A status from the service, for a message: short, and without any form of a secret. */
function shownStatus(status: unknown, connection: ResolvedConnection): string {
	if (typeof status !== 'string' || status.trim() === '') return 'unknown';
	return redact(status.trim().slice(0, 64), connection.secrets);
}

/** A job that ended in ERROR or CANCELLED fails the item, unless the settings ask to return it as data. */
export function checkJobOutcome(
	context: IExecuteFunctions,
	job: IDataObject,
	jobId: string,
	settings: WaitSettings,
	itemIndex: number,
	connection: ResolvedConnection,
): IDataObject {
	if (normalizeStatus(job.executionStatus) === 'COMPLETED' || settings.onJobFailure === 'returnData') return job;
	return failJob(context, job, jobId, itemIndex, connection);
}

/**
 * Version 2 puts the reason in the message after the status, as n8n's Databricks node puts a run's state message in
 * its error (`Job run <id> failed (<code>): <message>`, packages/nodes-base/nodes/Databricks/actions/job/run.operation.ts):
 * the service's `error`, else the log's last error lines, and the step it ended in (jobSummary.ts, bounded), redacted
 * once more: 2.1 quotes each line's message only (the step and why), version 2 the whole lines. Version 1 keeps its
 * message as it was.
 */
function failJob(context: IExecuteFunctions, job: IDataObject, jobId: string, itemIndex: number, connection: ResolvedConnection): never {
	const ended = `Job ${jobId} ended with status ${shownStatus(job.executionStatus, connection)}`;
	const version = nodeVersion(context);
	const reason = version >= 2 ? jobFailureReason(job, version >= VERSION_2_1 ? 'messages' : 'logLines') : null;
	throw waitError(
		context,
		reason === null ? ended : `${ended}: ${redact(reason, connection.secrets)}`,
		itemIndex,
		'Set "When the Job Fails or Is Cancelled" to "Return the Job as Data" to handle it in the workflow.',
	);
}
