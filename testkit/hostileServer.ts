/**
 * A service that misbehaves on purpose (not the reference server: this one must be able to lie). A script decides
 * every answer from the native call a request carries (its own path, or the relay's `endpoint` and `method`
 * headers): JSON of any shape, redirects, answers that drip or never come, and echoes of every request header in
 * the forms an echoing server or proxy would use. A recorder stands for "another host" that nothing may reach.
 */
import { createServer } from 'node:http';
import { brotliCompressSync, constants as zlibConstants, createBrotliCompress, gzipSync } from 'node:zlib';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface HostileRequest {
	/** The native verb and path with query (for the relay: its `method` and `endpoint` headers). */
	method: string;
	target: string;
	/** When it arrived (epoch ms), for pacing checks. */
	at: number;
	/** The request as it arrived: its own verb, URL, headers and body. */
	raw: { method: string; url: string; headers: IncomingHttpHeaders; body: string };
}

/** How an echoing server may transform what it reflects. */
export const ECHO_FORMS = [
	'raw',
	'urlEncoded',
	'formEncoded',
	'everyBytePercent',
	'base64',
	'base64Whole0',
	'base64Whole1',
	'base64Whole2',
	'urlSafeBase64',
	'mimeBase64',
	'lowerCase',
	'upperCase',
	'jsonEscaped',
	'jsonUnicode',
	'doubleJson',
	'htmlEscaped',
	'htmlNumeric',
	'hex',
	// Issue 33: a key wrapped over two log lines, hex dumps with separators, base64 of the URL- or form-encoded lines.
	'wrappedLines',
	'xxd',
	'xxdUpper',
	'hexdumpC',
	'colonHex',
	'colonHexUpper',
	'base64UrlEncoded',
	'base64FormEncoded',
] as const;
export type EchoForm = (typeof ECHO_FORMS)[number];

export type Answer =
	| { kind: 'json'; status?: number; body: unknown; headers?: Record<string, string> }
	/** Bytes already compressed, sent with their Content-Encoding (bombs: small on the wire, huge once decoded). */
	| { kind: 'encoded'; status?: number; encoding: 'gzip' | 'br' | 'deflate'; bytes: Buffer }
	/** A body sent as is (for lists too big to build per request). */
	| { kind: 'raw'; status?: number; text: string }
	| { kind: 'redirect'; status: number; location: string }
	/** Headers, then one byte every 50 ms, never ending. */
	| { kind: 'drip' }
	/** Accepts the connection and never answers. */
	| { kind: 'silent' }
	/** Headers with a length, then nothing. */
	| { kind: 'headersOnly' }
	/** Every request header in the body, transformed; as JSON `{ message }` or as bare text. */
	| { kind: 'echo'; status: number; form: EchoForm; json: boolean };

export type Script = (request: HostileRequest) => Answer;

export interface Listener {
	url: string;
	host: string;
	requests: HostileRequest[];
	close(): Promise<void>;
}

/** Secret-looking headers first, so that they are inside what a client shows of a long body. */
export function headerLines(headers: IncomingHttpHeaders): string {
	const secretFirst = /auth|key|token|secret|x-/i;
	const entries = Object.entries(headers).sort(([a], [b]) => Number(secretFirst.test(b)) - Number(secretFirst.test(a)));
	return entries.map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : String(value)}`).join('; ');
}

/** Each header value base64'd on its own, except Basic: a proxy decoding Basic credentials echoes user:password. */
function base64PerValue(text: string): string {
	return text
		.split('; ')
		.map((line) => {
			const [name, ...rest] = line.split(': ');
			const value = rest.join(': ');
			const basic = /^Basic (.+)$/.exec(value);
			const shown = basic ? Buffer.from(basic[1], 'base64').toString('utf8') : Buffer.from(value).toString('base64');
			return `${name}: ${shown}`;
		})
		.join('; ');
}

/** The whole text base64'd after `offset` other characters, so a key sits at each of the three alignments. */
function base64Whole(text: string, offset: number): string {
	return Buffer.from(`${'#'.repeat(offset)}${text}`).toString('base64');
}

function everyChar(text: string, each: (code: number) => string): string {
	return [...text].map((c) => each(c.codePointAt(0) as number)).join('');
}

const printable = (byte: number) => (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : '.');

/** As `xxd` prints bytes: offset, eight groups of two bytes, the ASCII column (`xxd -u`: upper-case hex). */
function xxd(text: string, upper: boolean): string {
	const bytes = Buffer.from(text);
	const lines: string[] = [];
	for (let at = 0; at < bytes.length; at += 16) {
		const row = bytes.subarray(at, at + 16);
		const hex = row.toString('hex').replace(/(.{4})(?=.)/g, '$1 ');
		lines.push(`${at.toString(16).padStart(8, '0')}: ${(upper ? hex.toUpperCase() : hex).padEnd(39)}  ${[...row].map(printable).join('')}`);
	}
	return lines.join('\n');
}

/** As `hexdump -C` prints bytes: offset, sixteen bytes in two halves, the ASCII column between bars. */
function hexdumpC(text: string): string {
	const bytes = Buffer.from(text);
	const lines: string[] = [];
	for (let at = 0; at < bytes.length; at += 16) {
		const row = [...bytes.subarray(at, at + 16)];
		const half = (part: number[]) => part.map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
		const hex = `${half(row.slice(0, 8))}  ${half(row.slice(8))}`.padEnd(48);
		lines.push(`${at.toString(16).padStart(8, '0')}  ${hex}  |${row.map(printable).join('')}|`);
	}
	return lines.join('\n');
}

export function transform(text: string, form: EchoForm): string {
	switch (form) {
		case 'wrappedLines':
			// A log that wraps long lines at 20 columns: most keys straddle a line break.
			return text.replace(/(.{20})(?=.)/g, '$1\n');
		case 'xxd':
		case 'xxdUpper':
			return xxd(text, form === 'xxdUpper');
		case 'hexdumpC':
			return hexdumpC(text);
		case 'colonHex':
		case 'colonHexUpper': {
			const hex = [...Buffer.from(text)].map((byte) => byte.toString(16).padStart(2, '0')).join(':');
			return form === 'colonHex' ? hex : hex.toUpperCase();
		}
		case 'base64UrlEncoded':
			return base64Whole(encodeURIComponent(text), 0);
		case 'base64FormEncoded':
			return base64Whole(new URLSearchParams({ headers: text }).toString(), 2);
		case 'urlEncoded':
			return encodeURIComponent(text);
		case 'formEncoded':
			return new URLSearchParams({ headers: text }).toString();
		case 'everyBytePercent':
			return [...Buffer.from(text)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
		case 'base64':
			return base64PerValue(text);
		case 'base64Whole0':
		case 'base64Whole1':
		case 'base64Whole2':
			return base64Whole(text, Number(form.slice(-1)));
		case 'urlSafeBase64':
			return base64Whole(text, 1).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
		case 'mimeBase64':
			return base64Whole(text, 2).replace(/(.{76})(?=.)/g, '$1\r\n');
		case 'lowerCase':
			return text.toLowerCase();
		case 'upperCase':
			return text.toUpperCase();
		case 'jsonEscaped':
			return JSON.stringify(text);
		case 'jsonUnicode':
			return everyChar(text, (code) => `\\u${code.toString(16).padStart(4, '0')}`);
		case 'doubleJson':
			return JSON.stringify(JSON.stringify({ headers: text }));
		case 'htmlEscaped':
			return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
		case 'htmlNumeric':
			return everyChar(text, (code) => `&#${code};`);
		case 'hex':
			return Buffer.from(text).toString('hex');
		default:
			return text;
	}
}

function send(response: ServerResponse, answer: Answer, request: HostileRequest, drips: Set<NodeJS.Timeout>): void {
	switch (answer.kind) {
		case 'json':
			response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body));
			return;
		case 'encoded':
			response
				.writeHead(answer.status ?? 200, { 'content-type': 'application/json', 'content-encoding': answer.encoding, 'content-length': answer.bytes.length })
				.end(answer.bytes);
			return;
		case 'raw':
			response.writeHead(answer.status ?? 200, { 'content-type': 'application/json' }).end(answer.text);
			return;
		case 'redirect':
			response.writeHead(answer.status, { location: answer.location, 'content-type': 'text/plain' }).end('moved');
			return;
		case 'drip': {
			response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000000' });
			const timer = setInterval(() => response.write(' '), 50);
			drips.add(timer);
			response.on('close', () => clearInterval(timer));
			return;
		}
		case 'headersOnly':
			response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
			response.flushHeaders();
			return;
		case 'silent':
			return;
		case 'echo': {
			const text = transform(headerLines(request.raw.headers), answer.form);
			const body = answer.json ? JSON.stringify({ message: text }) : text;
			response.writeHead(answer.status, { 'content-type': answer.json ? 'application/json' : 'text/plain' }).end(body);
			return;
		}
	}
}

function nativeCall(message: IncomingMessage): { method: string; target: string } {
	const url = message.url ?? '/';
	if (url.startsWith('/call/')) {
		return { method: String(message.headers.method ?? message.method), target: String(message.headers.endpoint ?? '') };
	}
	return { method: message.method ?? 'GET', target: url };
}

async function listen(server: Server, sockets: Set<Socket>): Promise<{ url: string; host: string }> {
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return { url: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}` };
}

/** Starts a server answering every request as `script` says; it records each request. */
export async function startHostileServer(script: Script): Promise<Listener> {
	const requests: HostileRequest[] = [];
	const sockets = new Set<Socket>();
	const drips = new Set<NodeJS.Timeout>();
	const server = createServer((message, response) => {
		const chunks: Buffer[] = [];
		message.on('data', (chunk: Buffer) => chunks.push(chunk));
		message.on('end', () => {
			const raw = { method: message.method ?? '', url: message.url ?? '', headers: message.headers, body: Buffer.concat(chunks).toString() };
			const request: HostileRequest = { ...nativeCall(message), at: Date.now(), raw };
			requests.push(request);
			send(response, script(request), request, drips);
		});
	});
	const { url, host } = await listen(server, sockets);
	return {
		url,
		host,
		requests,
		close: async () => {
			for (const timer of drips) clearInterval(timer);
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/** Another host: records whatever reaches it (nothing should) and answers 200 `{}`. */
export async function startRecorder(): Promise<Listener> {
	return await startHostileServer(() => ({ kind: 'json', body: { jobId: 'f0000000-0000-4000-8000-000000000000' } }));
}

let sequence = 0;

/** A JobStatus as a service would list it. */
export function jobStatus(id: string, executionStatus: string, times: { start?: number; end?: number } = {}): Record<string, unknown> {
	sequence++;
	return {
		id,
		jobName: `job ${sequence}`,
		flowName: 'sales',
		runProfileName: 'default',
		executionStatus,
		startTime: times.start ?? null,
		endTime: times.end ?? null,
	};
}

const MiB = 1024 * 1024;

/** One gzip member of `text`; members back to back decode as their texts joined (RFC 1952 multi-member). */
function gzipMember(text: string): Buffer {
	return gzipSync(Buffer.from(text), { level: 9 });
}

/**
 * A finished job whose `log` is `mib` MiB of one letter, as multi-member gzip: one compressed MiB repeated, so the
 * bomb is built in milliseconds and is about 1 KiB per MiB on the wire.
 */
export function gzipJobWithLog(id: string, mib: number, options: { asList?: boolean } = {}): Buffer {
	const head = JSON.stringify({ ...jobStatus(id, 'COMPLETED', { start: 1767603600000, end: 1767603660000 }), log: '' }).slice(0, -2);
	const block = gzipMember('A'.repeat(MiB));
	const [open, close] = options.asList ? ['[', ']'] : ['', ''];
	return Buffer.concat([gzipMember(open + head), ...Array.from({ length: mib }, () => block), gzipMember(`"}${close}`)]);
}

/** A list of `count` small jobs, gzip (the ids differ, so this one is really compressed). */
export function gzipJobList(count: number): Buffer {
	const parts: string[] = [];
	for (let i = 0; i < count; i++) parts.push(`{"id":"j${i}","executionStatus":"RUNNING","flowName":"sales","runProfileName":"default"}`);
	return gzipSync(Buffer.from(`[${parts.join(',')}]`), { level: 1 });
}

/** A job whose `extra` field is nested `depth` arrays deep (compressed: it is a few hundred KB as text). */
export function gzipDeepJob(id: string, depth: number): Buffer {
	const head = JSON.stringify(jobStatus(id, 'COMPLETED')).slice(0, -1);
	return gzipSync(Buffer.from(`${head},"extra":${'['.repeat(depth)}${']'.repeat(depth)}}`), { level: 9 });
}

/** A JSON array of `2^20 * mebiZeros` zeros, brotli: 136 gives the 142,606,336 zeros of issue 20 in about 1 KB. */
export async function brotliZeros(mebiZeros: number): Promise<Buffer> {
	const encoder = createBrotliCompress({ params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5, [zlibConstants.BROTLI_PARAM_LGWIN]: 24 } });
	const out: Buffer[] = [];
	encoder.on('data', (chunk: Buffer) => out.push(chunk));
	const done = new Promise<void>((resolve) => encoder.on('end', resolve));
	const chunk = Buffer.from('0,'.repeat(MiB));
	encoder.write('[');
	for (let i = 0; i < mebiZeros; i++) {
		if (!encoder.write(chunk)) await new Promise((resolve) => encoder.once('drain', resolve));
	}
	encoder.end('0]');
	await done;
	return Buffer.concat(out);
}

/** Small JSON, brotli-compressed (an ordinary answer in another encoding). */
export function brotliJson(value: unknown): Buffer {
	return brotliCompressSync(Buffer.from(JSON.stringify(value)));
}
