/**
 * A forwarding hop that records every request (method, path, when it arrived and when it was answered, how many
 * it held then) and the most it held at once, and can hold each request for a while first, like a service across
 * a network, or answer some requests itself (a busy service's 429).
 */
import { createServer, request } from 'http';
import type { AddressInfo } from 'net';

export interface RecordedRequest {
	method: string;
	path: string;
	/** Date.now() when the request arrived and when its answer was sent. */
	receivedAt: number;
	answeredAt: number;
	/** The native call a relay request carries (its `endpoint` header), or the path itself. */
	call: string;
	/** Requests the hop held when this one arrived, itself included. */
	inFlightAtArrival: number;
	/** The status the hop answered itself with (see `refuse`), or undefined when forwarded. */
	refusedWith?: number;
}

/** An answer of the hop's own instead of forwarding: a status and its headers (e.g. Retry-After). */
export interface Refusal {
	status: number;
	headers?: Record<string, string>;
}

export interface RecordingFrontOptions {
	latencyMs?: number;
	/** Called for each request in arrival order (0-based): a refusal answers it after the latency, unforwarded. */
	refuse?: (index: number, request: RecordedRequest) => Refusal | undefined;
}

export interface RecordingFront {
	url: string;
	requests: RecordedRequest[];
	maxInFlight(): number;
	close(): Promise<void>;
}

export async function startRecordingFront(target: string, options: RecordingFrontOptions = {}): Promise<RecordingFront> {
	const upstream = new URL(target);
	const requests: RecordedRequest[] = [];
	let inFlight = 0;
	let maxInFlight = 0;
	const server = createServer((req, res) => {
		const endpoint = req.headers.endpoint;
		const call = typeof endpoint === 'string' ? endpoint : (req.url ?? '/');
		const record: RecordedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', call, receivedAt: Date.now(), answeredAt: NaN, inFlightAtArrival: ++inFlight };
		const refusal = options.refuse?.(requests.length, record);
		requests.push(record);
		maxInFlight = Math.max(maxInFlight, inFlight);
		res.on('close', () => inFlight--);
		res.on('finish', () => (record.answeredAt = Date.now()));
		const forward = () => {
			if (refusal) {
				record.refusedWith = refusal.status;
				req.resume();
				res.writeHead(refusal.status, { 'content-type': 'application/json', ...refusal.headers });
				res.end(JSON.stringify({ message: 'refused by the recording hop' }));
				return;
			}
			const upstreamRequest = request(
				{ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
				(answer) => {
					res.writeHead(answer.statusCode ?? 502, answer.headers);
					answer.pipe(res);
				},
			);
			req.pipe(upstreamRequest);
		};
		if (options.latencyMs) setTimeout(forward, options.latencyMs);
		else forward();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		requests,
		maxInFlight: () => maxInFlight,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
