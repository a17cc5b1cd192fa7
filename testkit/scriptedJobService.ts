/**
 * A Job Execution Service on 127.0.0.1 whose lists and single reads a test writes directly (native interface): for
 * what the reference server cannot do on purpose, such as one job whose read always fails, end times a day ahead or
 * in ISO text, huge statuses and ids, a list that answers 429 with Retry-After.
 */
import { createServer } from 'http';
import type { AddressInfo } from 'net';

export type Job = Record<string, unknown> & { id: string; executionStatus: string };

/** How a single read of one job answers instead of the job. */
export type ReadFault = { status: number; headers?: Record<string, string>; body?: string } | 'hang' | 'notJson';

export interface ScriptedJobService {
	url: string;
	/** What GET /jobs?filter=active and ?filter=history answer, in that order. */
	active: Job[];
	history: Job[];
	/** Every job a single read can find (by id), whether listed or not. */
	jobs: Map<string, Job>;
	readFaults: Map<string, ReadFault>;
	/** When set, both lists answer this. */
	listFault: { status: number; headers?: Record<string, string>; body?: string } | null;
	/** Request paths, in order. */
	requests: string[];
	close(): Promise<void>;
}

export async function startScriptedJobService(): Promise<ScriptedJobService> {
	const hanging = new Set<import('http').ServerResponse>();
	const service: Omit<ScriptedJobService, 'url' | 'close'> = { active: [], history: [], jobs: new Map(), readFaults: new Map(), listFault: null, requests: [] };
	const server = createServer((req, res) => {
		const path = req.url ?? '';
		service.requests.push(path);
		const send = (status: number, body: string, headers: Record<string, string> = {}) => {
			res.writeHead(status, { 'content-type': 'application/json', ...headers });
			res.end(body);
		};
		const list = /^\/api\/v1\/jobs\?filter=(active|history)$/.exec(path);
		if (list) {
			if (service.listFault) return send(service.listFault.status, service.listFault.body ?? '{"message":"busy"}', service.listFault.headers);
			return send(200, JSON.stringify(list[1] === 'active' ? service.active : service.history));
		}
		const one = /^\/api\/v1\/jobs\/([^?]+)$/.exec(path);
		if (!one) return send(404, '{"message":"no such endpoint"}');
		const id = decodeURIComponent(one[1]);
		const fault = service.readFaults.get(id);
		if (fault === 'hang') return void hanging.add(res);
		if (fault === 'notJson') return send(200, '<html>oops</html>', { 'content-type': 'text/html' });
		if (fault) return send(fault.status, fault.body ?? '{"message":"refused"}', fault.headers);
		const job = service.jobs.get(id);
		return job ? send(200, JSON.stringify(job)) : send(400, '{"message":"Unknown job"}');
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return Object.assign(service as ScriptedJobService, {
		url,
		close: async () => {
			for (const res of hanging) res.destroy();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	});
}
