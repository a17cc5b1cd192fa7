// The answers routes give: { status, contentType, body } (or a stream of pieces), and their builders.
export interface NativeResponse {
	status: number;
	contentType: string;
	body: string;
	headers?: Record<string, string>;
	// Set for answers written piece by piece (lists); `body` is then empty.
	stream?: () => Iterable<string>;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export function json(status: number, value: unknown, headers?: Record<string, string>): NativeResponse {
	return { status, contentType: JSON_TYPE, body: JSON.stringify(value), headers };
}

export function message(status: number, text: string, headers?: Record<string, string>): NativeResponse {
	return json(status, { message: text }, headers);
}

// Keeps client-supplied text short in error messages.
export function quote(text: string): string {
	const short = text.length > 80 ? `${text.slice(0, 80)}...` : text;
	return JSON.stringify(short);
}

// The whole body of a response as one string (streamed lists included).
export function bodyText(r: NativeResponse): string {
	return r.stream ? [...r.stream()].join('') : r.body;
}

export const TOO_LARGE = message(413, 'request body is larger than 1 MiB');
