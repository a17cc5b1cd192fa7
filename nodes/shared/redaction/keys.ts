/**
 * The keys of the model (index.ts): what a credential sends and must never show, as the node sends it, and the one
 * policy for keys too short to hide.
 */
import { keyAsSent } from '../transport/serviceCredentials';

/** Shortest key searched as itself: shorter ones match ordinary data (a year, a group of a job id, part of a time). */
export const MIN_SECRET_LENGTH = 8;

/** Base64 and hex forms, and a key's own readings, shorter than this are left out: they could match by chance. */
export const MIN_ENCODED_LENGTH = 8;

/** Why a key cannot be hidden in the service's answers, or null: refused before anything is sent. */
export function shortSecretProblem(label: string, value: string): string | null {
	if (value === '' || value.length >= MIN_SECRET_LENGTH) return null;
	return (
		`The ${label} is shorter than ${MIN_SECRET_LENGTH} characters: the nodes cannot hide so short a key in the service's ` +
		`answers without blanking ordinary data (years, parts of job IDs and times), so an answer echoing it would show it. Use a longer one.`
	);
}

/**
 * The keys a credential sends, by their field labels (the credential types of credentials/): header keys as sent
 * (trimmed, keyAsSent); Basic's password as typed, or, when it is empty, the user (then the key, as Stripe-style
 * APIs take it).
 */
function keysSent(relay: boolean, data: Record<string, unknown>): Array<[string, string]> {
	if (relay) return [['Relay API Key', keyAsSent(data.apiKey)], ['User API Key', keyAsSent(data.userApiKey)]];
	switch (data.authType) {
		case 'bearerToken':
			return [['Token', keyAsSent(data.token)]];
		case 'basicAuth':
			return data.password === '' || data.password === undefined ? [['User', String(data.user ?? '')]] : [['Password', String(data.password)]];
		case 'headerAuth':
			return [['Header Value', keyAsSent(data.headerSecret)]];
		default:
			return [];
	}
}

/**
 * Why a key of the credential is too short to be hidden, or null: the one policy of the credential Test and of every
 * run (the transport's getConnection), checked before anything is sent.
 */
export function shortKeyProblem(relay: boolean, data: Record<string, unknown>): string | null {
	for (const [label, value] of keysSent(relay, data)) {
		const problem = shortSecretProblem(label, value);
		if (problem !== null) return problem;
	}
	return null;
}
/**
 * The strings to hide for these keys, each as given and trimmed (a header key is sent trimmed: keyAsSent); `basic`
 * adds `user:password` and its base64 as in a Basic header, and with an empty password the user (then the key),
 * `user:` and its base64. Keys shorter than MIN_SECRET_LENGTH are left out (see above); redactor() searches the rest
 * in every form.
 */
export function secretForms(secrets: readonly string[], basic?: { user: string; password: string }): string[] {
	const forms = new Set<string>();
	const keys = basic && basic.password === '' ? [...secrets, basic.user] : secrets;
	for (const secret of keys) for (const key of [secret, secret.trim()]) if (key.length >= MIN_SECRET_LENGTH) forms.add(key);
	if (basic && (basic.password !== '' || basic.user !== '')) {
		const pair = `${basic.user}:${basic.password}`;
		for (const form of [pair, Buffer.from(pair, 'utf8').toString('base64').replace(/=+$/, '')]) {
			if (form.length >= MIN_SECRET_LENGTH) forms.add(form);
		}
	}
	return [...forms].sort((a, b) => b.length - a.length);
}
