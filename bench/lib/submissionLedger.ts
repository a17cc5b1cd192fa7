/**
 * A hop in front of the reference server that keeps the ledger of jobs created: every submission that reaches the
 * server (each creates a job) is recorded by the item it carries (the job parameter `item`, which every contender of
 * figure D sends), so a job created twice for one item shows however the client resent it.
 */
import { createServer, request } from 'http';
import type { AddressInfo } from 'net';

export interface SubmissionLedger {
	url: string;
	/** Jobs created since the last reset, and how many of them repeat an item that already had one. */
	created(): number;
	createdTwice(): number;
	reset(): void;
	close(): Promise<void>;
}

/** The `item` parameter of a submission's body, or the whole body when it has none. */
function itemOf(body: string): string {
	try {
		const parameters = (JSON.parse(body) as { parameters?: Array<{ name?: string; value?: unknown }> }).parameters ?? [];
		const item = parameters.find((parameter) => parameter.name === 'item');
		return item ? String(item.value) : body;
	} catch {
		return body;
	}
}

export async function startSubmissionLedger(target: string): Promise<SubmissionLedger> {
	const upstream = new URL(target);
	let items: string[] = [];
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const body = Buffer.concat(chunks);
			const forwarded = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
				const submission = req.method === 'POST' || req.headers.method === 'POST';
				if (submission && (answer.statusCode ?? 500) < 300) items.push(itemOf(body.toString('utf8')));
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			});
			forwarded.on('error', () => res.destroy());
			forwarded.end(body);
		});
	});
	server.keepAliveTimeout = 60_000;
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		created: () => items.length,
		createdTwice: () => items.length - new Set(items).size,
		reset: () => (items = []),
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
