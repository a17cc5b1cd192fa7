/**
 * A real HTTP hop in front of the reference server that answers with a chosen failure for the first requests,
 * then forwards. For the branches a healthy server cannot reach (5xx, 429, dropped connections).
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the front does with one request: answer with a status, drop the connection, or forward it. */
export type Fault = { status: number; body?: string } | 'drop' | 'pass';

export interface FaultyFront {
	url: string;
	/** Requests received, by method. */
	received: Record<string, number>;
	/** Queues more faults for the next requests (requests beyond the queue are forwarded). */
	inject(faults: Fault[]): void;
	close(): Promise<void>;
}

export async function startFaultyFront(target: string, faults: Fault[]): Promise<FaultyFront> {
	const queue = [...faults];
	const received: Record<string, number> = {};
	const upstream = new URL(target);
	const server = createServer((req, res) => {
		received[req.method ?? 'GET'] = (received[req.method ?? 'GET'] ?? 0) + 1;
		const fault = queue.shift();
		if (fault === 'drop') {
			req.socket.destroy();
			return;
		}
		if (fault && fault !== 'pass') {
			req.resume();
			res.writeHead(fault.status, { 'content-type': 'text/plain' });
			res.end(fault.body ?? '');
			return;
		}
		const forward = request(
			{ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		req.pipe(forward);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		received,
		inject: (more) => queue.push(...more),
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
