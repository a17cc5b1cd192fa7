// What the queue-mode tests and benchmark share: a sink for what workflows report, webhook calls, job lookups.
import { createServer } from 'http';
import type { Server } from 'http';

import type { QueueCluster } from '../../host/queue';
import type { StoredJob } from '../../server';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs: number): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await probe();
		if (value) return value;
		if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
		await sleep(500);
	}
}

export interface SinkEvent {
	path: string;
	at: number;
	body: Record<string, string>;
}

export interface Sink {
	url: string;
	events: SinkEvent[];
	on(path: string): SinkEvent[];
	close(): Promise<void>;
}

export function startSink(): Promise<Sink> {
	const events: SinkEvent[] = [];
	const server: Server = createServer((req, res) => {
		let body = '';
		req.on('data', (chunk: Buffer) => (body += chunk.toString()));
		req.on('end', () => {
			events.push({ path: req.url ?? '', at: Date.now(), body: JSON.parse(body || '{}') as Record<string, string> });
			res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
		});
	});
	return new Promise((resolve) =>
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			resolve({
				url: `http://127.0.0.1:${port}`,
				events,
				on: (path) => events.filter((event) => event.path === path),
				close: () => new Promise((done) => server.close(() => done())),
			});
		}),
	);
}

export interface WebhookAnswer {
	status: number;
	body: Record<string, unknown>;
	ms: number;
	// When the answer (or the failure) came.
	at: number;
	// Set when no answer came: the connection failed or the time ran out.
	error?: string;
}

export async function callWebhook(baseUrl: string, path: string, body: Record<string, string>, timeoutMs = 120_000): Promise<WebhookAnswer> {
	const started = Date.now();
	try {
		const response = await fetch(`${baseUrl}/webhook/${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
			signal: AbortSignal.timeout(timeoutMs),
		});
		const text = await response.text();
		let parsed: Record<string, unknown>;
		try {
			parsed = JSON.parse(text) as Record<string, unknown>;
		} catch {
			parsed = { text };
		}
		return { status: response.status, body: parsed, ms: Date.now() - started, at: Date.now() };
	} catch (err) {
		return { status: 0, body: {}, ms: Date.now() - started, at: Date.now(), error: (err as Error).message };
	}
}

// `count` calls at most `parallel` at a time, in order.
export async function inParallel<T>(count: number, parallel: number, call: (index: number) => Promise<T>): Promise<T[]> {
	const results: T[] = new Array<T>(count);
	let next = 0;
	const lane = async () => {
		while (next < count) {
			const index = next++;
			results[index] = await call(index);
		}
	};
	await Promise.all(Array.from({ length: Math.min(parallel, count) }, lane));
	return results;
}

export function parameterOf(job: StoredJob, name: string): string | undefined {
	return job.parameters.find((parameter) => parameter.name === name)?.value;
}

// main answers before it has registered the active workflows' webhooks (a 404 "not registered" meanwhile).
export async function webhooksRegistered(cluster: QueueCluster, workflowIds: string[]): Promise<void> {
	const query = `select count(distinct "workflowId") from webhook_entity where "workflowId" in (${workflowIds.map((id) => `'${id}'`).join(', ')})`;
	await until('main to register the webhooks', () => Number(cluster.sql(query)[0][0]) === workflowIds.length, 60_000);
}
