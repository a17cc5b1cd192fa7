/**
 * A service of limited capacity in front of the reference server: it serves `capacity` requests at once, each for
 * `serviceMs`, then forwards it; beyond that it either queues the request until a place is free, or answers it at
 * once with 429 or 503 (optionally with a Retry-After), unprocessed: a refused submission creates no job. It can
 * also answer a seeded share of requests 503 whatever its load (scattered errors, not overload). It counts what a
 * judge of a client needs: the most requests it served at once, the ones it refused, and the submissions it took.
 */
import { createServer, request } from 'http';
import type { IncomingMessage, ServerResponse } from 'http';
import type { AddressInfo } from 'net';

import { mulberry32 } from '../server/random';

export interface LimitedServiceOptions {
	/** Requests served at once. */
	capacity: number;
	/** How long each request holds its place before it is forwarded (a service's own time). */
	serviceMs: number;
	/** Beyond the capacity: wait for a place, or refuse at once with this status. */
	beyond: 'queue' | 429 | 503;
	/** The Retry-After header of a refusal (seconds or an HTTP date), none when undefined. */
	retryAfter?: string;
	/** A share (0–1) of requests answered 503 whatever the load, by a seeded draw: scattered errors. */
	scatteredBusy?: { share: number; seed: number };
}

export interface LimitedService {
	url: string;
	/** The most requests served at once (never more than the capacity). */
	peak(): number;
	/** Requests refused for want of a place, and the scattered 503s. */
	refused(): number;
	scattered(): number;
	/** Requests forwarded to the reference server, and of them the submissions (POSTs: each creates a job). */
	served(): number;
	submissionsTaken(): number;
	close(): Promise<void>;
}

function refuse(req: IncomingMessage, res: ServerResponse, status: number, retryAfter?: string): void {
	req.resume();
	res.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...(retryAfter === undefined ? {} : { 'retry-after': retryAfter }) });
	res.end(JSON.stringify({ message: status === 429 ? 'Too many requests' : 'Service unavailable' }));
}

export async function startLimitedService(target: string, options: LimitedServiceOptions): Promise<LimitedService> {
	const upstream = new URL(target);
	const draw = options.scatteredBusy ? mulberry32(options.scatteredBusy.seed) : undefined;
	const queue: Array<() => void> = [];
	const counts = { busy: 0, peak: 0, refused: 0, scattered: 0, served: 0, submissions: 0 };
	const release = () => {
		counts.busy--;
		queue.shift()?.();
	};
	const serve = (req: IncomingMessage, res: ServerResponse) => {
		counts.busy++;
		counts.peak = Math.max(counts.peak, counts.busy);
		let done = false;
		const end = () => {
			if (done) return;
			done = true;
			release();
		};
		res.on('close', end);
		setTimeout(() => {
			counts.served++;
			if (req.method === 'POST' || req.headers.method === 'POST') counts.submissions++;
			const forwarded = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			});
			forwarded.on('error', () => res.destroy());
			req.pipe(forwarded);
		}, options.serviceMs);
	};
	const server = createServer((req, res) => {
		if (draw && draw() < (options.scatteredBusy?.share ?? 0)) {
			counts.scattered++;
			return refuse(req, res, 503);
		}
		if (counts.busy < options.capacity) return serve(req, res);
		if (options.beyond === 'queue') return void queue.push(() => serve(req, res));
		counts.refused++;
		refuse(req, res, options.beyond, options.retryAfter);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		peak: () => counts.peak,
		refused: () => counts.refused,
		scattered: () => counts.scattered,
		served: () => counts.served,
		submissionsTaken: () => counts.submissions,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
