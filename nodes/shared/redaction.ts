/**
 * Secrets in every form they travel in: the raw value, the `Basic` base64 of user:password, and what a server that
 * echoes a request usually does to a header (URL- or form-encoding, JSON or HTML escaping, base64, case changes).
 * Pure: the transport derives the forms once per connection and redacts every message it builds with them.
 */

const MIN_SECRET_LENGTH = 3;

/**
 * The part of base64 that is the same whatever text surrounds the secret: one core per alignment of the secret in
 * the encoded text (its offset modulo 3), so `Bearer <token>`, `user:<password>` or a whole echoed header line all
 * show one of them. Cores shorter than 8 characters are left out (they could match by chance).
 */
function base64Cores(secret: string): string[] {
	const length = Buffer.byteLength(secret, 'utf8');
	const cores: string[] = [];
	for (let offset = 0; offset < 3; offset++) {
		const encoded = Buffer.from('\0'.repeat(offset) + secret, 'utf8').toString('base64');
		const core = encoded.slice(offset > 0 ? 4 : 0, Math.floor((offset + length) / 3) * 4);
		if (core.length >= 8) cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
	}
	return cores;
}

function base64Forms(text: string): string[] {
	const standard = Buffer.from(text, 'utf8').toString('base64').replace(/=+$/, '');
	return [standard, standard.replace(/\+/g, '-').replace(/\//g, '_'), ...base64Cores(text)];
}

function escapedForms(secret: string): string[] {
	return [
		secret,
		encodeURIComponent(secret),
		encodeURIComponent(secret).replace(/%20/g, '+'),
		JSON.stringify(secret).slice(1, -1),
		JSON.stringify(JSON.stringify(secret)).slice(2, -2),
		secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;'),
		Buffer.from(secret, 'utf8').toString('hex'),
	];
}

/**
 * Every form of the given secrets worth hiding; `basic` adds base64 of `user:password` as in a Basic header.
 * Forms shorter than 3 characters are left out (they would blank ordinary words).
 */
export function secretForms(secrets: readonly string[], basic?: { user: string; password: string }): string[] {
	const forms = new Set<string>();
	for (const secret of secrets) {
		if (secret.length < MIN_SECRET_LENGTH) continue;
		for (const form of escapedForms(secret)) forms.add(form);
		for (const form of base64Forms(secret)) forms.add(form);
	}
	if (basic && basic.password.length >= MIN_SECRET_LENGTH) {
		for (const form of base64Forms(`${basic.user}:${basic.password}`)) forms.add(form);
	}
	// Longest first, so that a form containing another is replaced whole.
	return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One compiled pattern per list of forms (a connection derives its list once), so redacting many strings is cheap. */
const compiled = new WeakMap<readonly string[], (text: string) => string>();

const NON_ASCII = /[\u0080-\uffff]/;
/** From this length on, a text is first searched form by form (indexOf skips ahead), which is cheaper than the pattern. */
const PRESCAN_FROM_CHARS = 1024;

/**
 * Whether the upper-cased text holds none of the upper-cased forms. Used only when every form is ASCII: then the
 * pattern (flag i without u) can match nothing but ASCII case variants of a form, which upper-case to the form's
 * upper case, so "none here" means the pattern matches nothing and the text can be returned as it is.
 */
function holdsNone(text: string, upperForms: readonly string[]): boolean {
	const upper = text.toUpperCase();
	for (const form of upperForms) if (upper.includes(form)) return false;
	return true;
}

/**
 * A function replacing every form (any case) by ***. The pattern is an alternation of literal strings: matching is
 * linear in the text whatever it holds. Texts shorter than the shortest form are returned as they are; long texts
 * holding no form (the usual case) are told apart by a cheaper search first.
 */
export function redactor(forms: readonly string[]): (text: string) => string {
	const known = compiled.get(forms);
	if (known) return known;
	let clean: (text: string) => string = (text) => text;
	if (forms.length > 0) {
		const pattern = new RegExp(forms.map(escapeRegExp).join('|'), 'gi');
		const shortest = Math.min(...forms.map((form) => form.length));
		const upperForms = forms.every((form) => !NON_ASCII.test(form)) ? [...new Set(forms.map((form) => form.toUpperCase()))] : undefined;
		clean = (text) => {
			if (text.length < shortest) return text;
			if (upperForms && text.length >= PRESCAN_FROM_CHARS && holdsNone(text, upperForms)) return text;
			return text.replace(pattern, '***');
		};
	}
	compiled.set(forms, clean);
	return clean;
}

/** Replaces every form (any case) by ***: the final guard on whatever a server or library echoed. */
export function redact(text: string, forms: readonly string[]): string {
	if (forms.length === 0 || text === '') return text;
	return redactor(forms)(text);
}
