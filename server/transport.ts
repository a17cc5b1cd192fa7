// The HTTP layer's reading and writing: bodies read up to a limit, answers written whole or (lists) piece by
// piece with backpressure, so neither a large request nor a slow reader makes the server hold unbounded memory.
import type { IncomingMessage, ServerResponse } from 'http';

import type { NativeResponse } from './responses';

// Work done between two yields to the event loop while a streamed answer is built.
const SLICE_MS = 2;
// Pieces are gathered up to this size before a write (fewer, larger chunks).
const WRITE_BYTES = 64 * 1024;

// Reads at most `limit` bytes; undefined when the body is larger (the rest is discarded, not buffered).
export function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
	return new Promise((resolve, reject) => {
		const declared = Number(req.headers['content-length']);
		if (Number.isFinite(declared) && declared > limit) {
			req.resume();
			resolve(undefined);
			return;
		}
		const chunks: Buffer[] = [];
		let size = 0;
		let done = false;
		const onData = (chunk: Buffer) => {
			size += chunk.length;
			if (size > limit) {
				done = true;
				chunks.length = 0;
				req.off('data', onData);
				req.resume();
				resolve(undefined);
				return;
			}
			chunks.push(chunk);
		};
		req.on('data', onData);
		req.on('end', () => {
			if (!done) resolve(Buffer.concat(chunks).toString('utf8'));
		});
		req.on('error', (err) => {
			if (!done) reject(err);
		});
	});
}

// Resolves once the request was received whole (or went away), or once `limit` more bytes of it were discarded.
function discardRest(req: IncomingMessage, limit: number): Promise<void> {
	return new Promise((done) => {
		if (req.complete || req.destroyed) return done();
		let discarded = 0;
		const finish = () => {
			req.off('data', onData).off('end', finish).off('close', finish).off('error', finish);
			done();
		};
		const onData = (chunk: Buffer) => {
			discarded += chunk.length;
			if (discarded > limit) finish();
		};
		req.on('data', onData).on('end', finish).on('close', finish).on('error', finish);
		req.resume();
	});
}

// The answer to a request whose body is refused (413), with `Connection: close`. Written at once, so a client
// may read it while it still sends; ended (Node then closes the connection) only once the client has sent the
// rest of its body, discarded up to `discardBytes`: a socket closed with unread data answers the client's next
// bytes with a reset, and the reset makes its system drop the answer before the client reads it.
export async function sendRefusal(req: IncomingMessage, res: ServerResponse, r: NativeResponse, discardBytes: number): Promise<void> {
	if (res.headersSent) return;
	const body = Buffer.from(r.body, 'utf8');
	res.writeHead(r.status, { 'content-type': r.contentType, 'content-length': String(body.length), ...(r.headers ?? {}), connection: 'close' });
	res.write(body);
	await discardRest(req, discardBytes);
	res.end();
}

// True once the response can take more, false if the client went away or read nothing for `stallMs`.
function drained(res: ServerResponse, stallMs: number): Promise<boolean> {
	return new Promise((resolve) => {
		const finish = (ok: boolean) => {
			clearTimeout(timer);
			res.off('drain', onDrain);
			res.off('close', onClose);
			resolve(ok);
		};
		const onDrain = () => finish(true);
		const onClose = () => finish(false);
		const timer = setTimeout(() => finish(false), stallMs);
		res.on('drain', onDrain);
		res.on('close', onClose);
	});
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

// Writes the pieces as they are produced: waits while the client's buffer is full (a slow reader holds one
// piece, not the whole answer) and lets other requests run between slices of work.
async function writePieces(res: ServerResponse, pieces: Iterable<string>, stallMs: number): Promise<void> {
	let pending = '';
	let sliceStart = performance.now();
	const flush = async (): Promise<boolean> => {
		const ok = res.write(pending);
		pending = '';
		return ok || (await drained(res, stallMs));
	};
	for (const piece of pieces) {
		if (res.destroyed) return;
		pending += piece;
		if (pending.length >= WRITE_BYTES && !(await flush())) {
			res.destroy();
			return;
		}
		if (performance.now() - sliceStart > SLICE_MS) {
			await nextTurn();
			sliceStart = performance.now();
		}
	}
	if (!res.destroyed) res.end(pending);
}

// Sends an answer once; a streamed one goes out chunked. A reader that takes nothing for `stallMs` is dropped.
export async function send(res: ServerResponse, r: NativeResponse, extra: Record<string, string> | undefined, stallMs: number): Promise<void> {
	if (res.headersSent) return;
	if (r.stream) {
		res.writeHead(r.status, { 'content-type': r.contentType, ...(r.headers ?? {}), ...(extra ?? {}) });
		await writePieces(res, r.stream(), stallMs);
		return;
	}
	const body = Buffer.from(r.body, 'utf8');
	res.writeHead(r.status, {
		'content-type': r.contentType,
		'content-length': String(body.length),
		...(r.headers ?? {}),
		...(extra ?? {}),
	});
	res.end(body);
}
