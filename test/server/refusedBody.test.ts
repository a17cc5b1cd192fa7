/**
 * A refused body is answered so that the client reads the answer (issue 35): the 413 goes out at once, and the
 * connection closes only once the client has sent the rest of its body (read and discarded, up to a bound).
 * Closing earlier makes the server's system answer the client's next bytes with a reset, which drops the 413
 * before the client reads it: the tests hold the client mid-body until it has read the answer, then let it send
 * the rest, so the race that a loaded machine hits now and then happens every time.
 */
import { Agent } from 'http';
import { connect } from 'net';

import axios from 'axios';

import { MAX_BODY_BYTES, startReferenceServer } from '../../server';
import type { ReferenceServer } from '../../server';

const MiB = 1024 * 1024;
const TOTAL = 20 * MiB;
const CHUNK = 256 * 1024;
const MESSAGE = '{"message":"request body is larger than 1 MiB"}';

interface Upload {
	// In order: 'answer' (the whole 413 read), 'sent all', 'end' (the server closed), 'error <code>'.
	events: string[];
	answer: string;
	sent: number;
}

// Whether `text` holds a whole answer (headers and a body of its content-length).
function wholeAnswer(text: string): boolean {
	const end = text.indexOf('\r\n\r\n');
	const length = /\r\ncontent-length: (\d+)\r\n/i.exec(text);
	return end !== -1 && length !== null && Buffer.byteLength(text.slice(end + 4), 'latin1') >= Number(length[1]);
}

// Sends `head`, then the body's chunks; after `holdAfter` chunks it stops until it has read the whole answer
// (or the connection ended), then sends the rest, as long as the connection takes it.
async function upload(port: number, head: string, chunks: Buffer[], holdAfter: number): Promise<Upload> {
	const socket = connect(port, '127.0.0.1');
	const result: Upload = { events: [], answer: '', sent: 0 };
	let answered!: () => void;
	const answer = new Promise<void>((resolve) => (answered = resolve));
	const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
	socket.on('data', (data: Buffer) => {
		result.answer += data.toString('latin1');
		if (!result.events.includes('answer') && wholeAnswer(result.answer)) {
			result.events.push('answer');
			answered();
		}
	});
	socket.on('end', () => result.events.push('end'));
	socket.on('error', (err: NodeJS.ErrnoException) => result.events.push(`error ${err.code}`));
	const write = (buf: Buffer | string) => new Promise<boolean>((resolve) => socket.write(buf, (err) => resolve(!err)));
	let ok = await write(head);
	for (const [i, chunk] of chunks.entries()) {
		if (i === holdAfter) await Promise.race([answer, closed]);
		if (!ok || socket.destroyed || !socket.writable) break;
		ok = await write(chunk);
		if (ok) result.sent += chunk.length;
	}
	if (ok && result.sent === chunks.reduce((sum, c) => sum + c.length, 0)) result.events.push('sent all');
	// The server ends the exchange (Connection: close).
	await closed;
	return result;
}

const body = (bytes: number) => Array.from({ length: bytes / CHUNK }, () => Buffer.alloc(CHUNK, 0x20));
// The same bytes as HTTP/1.1 chunks, then the last chunk.
const chunked = (bytes: number) => [...body(bytes).map((c) => Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')])), Buffer.from('0\r\n\r\n')];

describe('a refused body: the client reads the 413 while it still sends', () => {
	let server: ReferenceServer;
	beforeAll(async () => {
		server = await startReferenceServer({});
	});
	afterAll(() => server.close());

	const framings: Array<[string, string, Buffer[]]> = [
		['content-length', `POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${TOTAL}\r\n\r\n`, body(TOTAL)],
		['chunked', 'POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n', chunked(TOTAL)],
	];

	it.each(framings)('20 MiB (%s), held after 2 MiB until the 413 is read: then all of it is taken, and only then is the connection closed', async (_framing, head, chunks) => {
		const before = server.store.count();
		const r = await upload(server.port, head, chunks, (2 * MiB) / CHUNK);
		expect(r.events).toEqual(['answer', 'sent all', 'end']);
		expect(r.answer).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
		expect(r.answer).toMatch(/\r\nconnection: close\r\n/i);
		expect(r.answer.endsWith(`\r\n\r\n${MESSAGE}`)).toBe(true);
		expect(server.store.count()).toBe(before);
	});

	it('20 MiB through axios, three at once beside a read: each gets the 413 and its message', async () => {
		const client = axios.create({ baseURL: server.url, validateStatus: () => true, maxBodyLength: Infinity, httpAgent: new Agent({ keepAlive: true }) });
		const big = JSON.stringify({ flowFileName: '/Shared/Flows/sales.flow', runProfileName: 'default', pad: 'x'.repeat(TOTAL) });
		const answers = await Promise.all([
			...Array.from({ length: 3 }, () => client.post('/api/v1/jobs', big, { headers: { 'content-type': 'application/json' } })),
			client.get('/api/v1/jobs'),
		]);
		expect(answers.map((a) => [a.status, a.data])).toEqual([
			...Array(3).fill([413, JSON.parse(MESSAGE)]),
			[200, []],
		]);
	});
});

describe('the bound on what is discarded', () => {
	it('past maxDiscardBytes the connection is closed although the client still sends; it had the 413 first', async () => {
		const server = await startReferenceServer({ maxDiscardBytes: 2 * MiB });
		try {
			const head = `POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: ${TOTAL}\r\n\r\n`;
			const r = await upload(server.port, head, body(TOTAL), (2 * MiB) / CHUNK);
			expect(r.events[0]).toBe('answer');
			expect(r.events).not.toContain('sent all');
			expect(r.sent).toBeLessThan(TOTAL);
			expect(r.answer.endsWith(MESSAGE)).toBe(true);
			expect(MAX_BODY_BYTES).toBe(MiB);
		} finally {
			await server.close();
		}
	});
});
