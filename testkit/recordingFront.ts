/**
 * A forwarding hop that records every request (method, path, when it arrived and when it was answered, how many
 * it held then) and the most it held at once, and can hold each request for a while first, like a service across
 * a network, or answer some requests itself (a busy service's 429, a dropped connection, a silence), or hold
 * requests until a given number pile up (a gate: the test then knows that many were in flight together).
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
	/** How many requests had arrived when this one's connection closed (undefined while open): orders closes and arrivals. */
	closedAfter?: number;
}

/** An answer of the hop's own instead of forwarding: a status and its headers (e.g. Retry-After). */
export interface Refusal {
	status: number;
	headers?: Record<string, string>;
	/** Drop the connection instead of answering (status unused), or say nothing at all until the hop closes. */
	drop?: boolean;
	silent?: boolean;
}

/** Hold every request from the `from`-th on (0-based) until `until` of them are held at once, then forward them all; once. */
export interface Gate {
	from: number;
	until: number;
	/** Forward them anyway after this long (a failing node would otherwise hang the test); the gate then reports false. */
	giveUpMs?: number;
}

export interface RecordingFrontOptions {
	latencyMs?: number;
	/** Called for each request in arrival order (0-based): a refusal answers it after the latency, unforwarded. */
	refuse?: (index: number, request: RecordedRequest) => Refusal | undefined;
	/** Gates in order of `from`: a request waits at the last gate whose `from` it has reached, while that gate is shut. */
	gate?: Gate | Gate[];
}

export interface RecordingFront {
	url: string;
	requests: RecordedRequest[];
	maxInFlight(): number;
	/** Whether every gate opened because its `until` requests were held at once (false: not yet, or one gave up). */
	gateFilled(): boolean;
	close(): Promise<void>;
}

export async function startRecordingFront(target: string, options: RecordingFrontOptions = {}): Promise<RecordingFront> {
	const upstream = new URL(target);
	const requests: RecordedRequest[] = [];
	let inFlight = 0;
	let maxInFlight = 0;
	const gates = (options.gate === undefined ? [] : Array.isArray(options.gate) ? options.gate : [options.gate]).map((gate) => ({
		...gate,
		held: [] as Array<() => void>,
		open: false,
		filled: false,
		timer: undefined as NodeJS.Timeout | undefined,
	}));
	type GateState = (typeof gates)[number];
	const openGate = (gate: GateState, filled: boolean) => {
		gate.open = true;
		gate.filled = filled;
		clearTimeout(gate.timer);
		for (const release of gate.held.splice(0)) release();
	};
	const server = createServer((req, res) => {
		const endpoint = req.headers.endpoint;
		const call = typeof endpoint === 'string' ? endpoint : (req.url ?? '/');
		const record: RecordedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', call, receivedAt: Date.now(), answeredAt: NaN, inFlightAtArrival: ++inFlight };
		const refusal = options.refuse?.(requests.length, record);
		requests.push(record);
		maxInFlight = Math.max(maxInFlight, inFlight);
		res.on('close', () => {
			inFlight--;
			record.closedAfter = requests.length;
		});
		res.on('finish', () => (record.answeredAt = Date.now()));
		const forward = () => {
			if (refusal?.drop) {
				req.socket.destroy();
				return;
			}
			if (refusal?.silent) return;
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
		const index = requests.length - 1;
		const go = () => (options.latencyMs ? setTimeout(forward, options.latencyMs) : forward());
		const gate = gates.filter((candidate) => index >= candidate.from).pop();
		if (!gate || gate.open) return void go();
		gate.held.push(go);
		if (gate.held.length === 1) gate.timer = setTimeout(() => openGate(gate, false), gate.giveUpMs ?? 20_000);
		if (gate.held.length >= gate.until) openGate(gate, true);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		requests,
		maxInFlight: () => maxInFlight,
		gateFilled: () => gates.length > 0 && gates.every((gate) => gate.filled),
		close: () =>
			new Promise<void>((resolve) => {
				for (const gate of gates) clearTimeout(gate.timer);
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
