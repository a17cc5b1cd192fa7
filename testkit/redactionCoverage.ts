/**
 * What the redaction hides and what it wrongly changes, counted: seeded random keys of every credential kind (with
 * `& < > " ' + / %` and more), their request headers echoed in every form the hostile server knows, redacted as the
 * transport does, then searched by the test kit's own checker; and a realistic job list (UUID ids, ISO times of this
 * year, logs) redacted with keys short enough to occur in it, and with ordinary keys, counting the values changed.
 * Takes the redaction to measure as a parameter, so another version can be measured the same way.
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { authenticateRequest } from '../nodes/shared/credentialAuth';
import { ECHO_FORMS, headerLines, transform } from './hostileServer';
import type { EchoForm } from './hostileServer';
import { secretSearch } from './secrets';

export interface Redaction {
	secretForms(secrets: readonly string[], basic?: { user: string; password: string }): string[];
	redact(text: string, forms: readonly string[]): string;
}

export const KINDS = ['None', 'Bearer', 'Basic', 'Basic, password of 1–7', 'Custom Header', 'Relay (two keys)'] as const;
export type Kind = (typeof KINDS)[number];

const SECRET_FIELDS = ['token', 'password', 'headerSecret', 'apiKey', 'userApiKey'];
const ALPHABET = `ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789&<>"'+/%-_.~?`;

function seeded(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state * 1103515245 + 12345) % 2147483648;
		return state / 2147483648;
	};
}

function randomKey(random: () => number, min: number, max: number): string {
	const length = min + Math.floor(random() * (max - min + 1));
	return Array.from({ length }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]).join('');
}

function credentialOf(kind: Kind, key: () => string): { type: string; data: ICredentialDataDecryptedObject } {
	switch (kind) {
		case 'None':
			return { type: 'jobExecutionApi', data: { authType: 'none' } };
		case 'Bearer':
			return { type: 'jobExecutionApi', data: { authType: 'bearerToken', token: key() } };
		case 'Basic':
			return { type: 'jobExecutionApi', data: { authType: 'basicAuth', user: `user${key().slice(0, 4)}`, password: key() } };
		case 'Basic, password of 1–7':
			return { type: 'jobExecutionApi', data: { authType: 'basicAuth', user: `user${key().slice(0, 4)}`, password: key().slice(0, 1 + (key().length % 7)) } };
		case 'Custom Header':
			return { type: 'jobExecutionApi', data: { authType: 'headerAuth', headerName: 'X-Api-Secret', headerSecret: key() } };
		case 'Relay (two keys)':
			return { type: 'jobExecutionRelayApi', data: { apiKey: key(), userApiKey: key() } };
	}
}

/** The forms the transport derives for a credential (getConnection in nodes/shared/transport). */
function formsOf(redaction: Redaction, data: ICredentialDataDecryptedObject): string[] {
	const values = SECRET_FIELDS.map((field) => data[field]).filter((value): value is string => typeof value === 'string' && value !== '');
	const basic = data.authType === 'basicAuth' ? { user: String(data.user ?? ''), password: String(data.password ?? '') } : undefined;
	return redaction.secretForms(values, basic);
}

/** The request headers as the node sends them (Basic as n8n's HTTP client writes it), lower case like Node's parser. */
function sentHeaders(type: string, data: ICredentialDataDecryptedObject): Record<string, string> {
	const signed = authenticateRequest(type, data, { url: '/api/v1/jobs', headers: { accept: 'application/json' } });
	const headers: Record<string, string> = { host: '127.0.0.1:5678' };
	for (const [name, value] of Object.entries(signed.headers ?? {})) headers[name.toLowerCase()] = String(value);
	if (signed.auth) headers.authorization = `Basic ${Buffer.from(`${signed.auth.username}:${signed.auth.password}`).toString('base64')}`;
	return headers;
}

/** Per echo form and kind: how many of `keys` random credentials show after redaction (None: none to show). */
export function measureLeaks(redaction: Redaction, keys: number, seed = 26): Map<EchoForm, Map<Kind, number>> {
	const leaks = new Map<EchoForm, Map<Kind, number>>(ECHO_FORMS.map((form) => [form, new Map(KINDS.map((kind) => [kind, 0]))]));
	for (const kind of KINDS) {
		const random = seeded(seed + kind.length);
		for (let round = 0; round < keys; round++) {
			const { type, data } = credentialOf(kind, () => randomKey(random, 8, 24));
			const forms = formsOf(redaction, data);
			const shown = secretSearch({ c: data });
			const echoed = headerLines(sentHeaders(type, data));
			for (const form of ECHO_FORMS) {
				if (shown(redaction.redact(transform(echoed, form), forms)) !== undefined) leaks.get(form)?.set(kind, (leaks.get(form)?.get(kind) ?? 0) + 1);
			}
		}
	}
	return leaks;
}

/** A job list as the service sends it, this year: UUID ids, ISO times, statuses and logs with timestamps. */
export function realisticJobs(count: number, seed = 29): Array<Record<string, string>> {
	const random = seeded(seed);
	const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(random() * 16)]).join('');
	return Array.from({ length: count }, (_, index) => {
		const start = new Date(Date.UTC(2026, 10, 25, 18, 0, 0) + index * 61_237).toISOString();
		const end = new Date(Date.parse(start) + 45_678).toISOString();
		return {
			jobId: `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`,
			status: index % 7 === 0 ? 'ERROR' : 'COMPLETED',
			startTime: start,
			endTime: end,
			flowFileName: '/Shared/Flows/sales-2026.flow',
			log: `${start} [main] INFO run 2026-${index} started\n${end} [main] INFO done in 45678 ms`,
		};
	});
}

/**
 * Values of the job list changed by redaction, per kind: with keys cut from the list itself (3 to 7 characters: a
 * year, a group of an id, part of a time) and with ordinary random keys of 8 to 24 characters.
 */
export function measureFalsePositives(redaction: Redaction, jobs: Array<Record<string, string>>, keys: number, seed = 27): Map<Kind, { short: number; ordinary: number; values: number }> {
	const values = jobs.flatMap((job) => Object.values(job));
	const result = new Map<Kind, { short: number; ordinary: number; values: number }>();
	for (const kind of KINDS) {
		const random = seeded(seed + kind.length);
		const cut = () => {
			const value = values[Math.floor(random() * values.length)];
			const length = 3 + Math.floor(random() * 5);
			const from = Math.floor(random() * Math.max(1, value.length - length));
			return value.slice(from, from + length);
		};
		const changed = (key: () => string) => {
			let count = 0;
			for (let round = 0; round < keys; round++) {
				const forms = formsOf(redaction, credentialOf(kind, key).data);
				count += values.filter((value) => redaction.redact(value, forms) !== value).length;
			}
			return count;
		};
		result.set(kind, { short: changed(cut), ordinary: changed(() => randomKey(random, 8, 24)), values: values.length * keys });
	}
	return result;
}
