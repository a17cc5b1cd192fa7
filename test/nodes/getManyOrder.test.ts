/**
 * Version 2's Get Many sorts the listed jobs itself (nodes/JobExecution/helpers/jobListing.ts `sortJobs`): the same
 * output for every order the service may send a list in, and a job without the sorting time (queued: no start;
 * queued or running: no end) counts as the latest, so "newest first" leads with it and "oldest first" ends with it.
 * Run through n8n's engine against a service on 127.0.0.1 that sends the one list in the order a test chooses.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { runActionNode } from '../../testkit/engine';
import type { RunNodeOptions } from '../../testkit/engine';
import { credentialsFor } from '../../testkit/fixtures';

const T = 1_763_720_100_000;
const MINUTE = 60_000;
const job = (id: string, executionStatus: string, start: number | null, end: number | null): IDataObject => ({
	id: `00000000-0000-4000-8000-${id.padStart(12, '0')}`,
	executionStatus,
	flowName: 'sales',
	runProfileName: 'default',
	startTime: start === null ? null : T + start * MINUTE,
	endTime: end === null ? null : T + end * MINUTE,
});
// Started 0, 1, 2, 4 minutes in, and one not started yet. f3 started before f2 but ended last of the finished jobs.
const JOBS: Record<string, IDataObject> = {
	f1: job('1', 'COMPLETED', 0, 1),
	f3: job('3', 'ERROR', 1, 10),
	f2: job('2', 'COMPLETED', 2, 3),
	running: job('4', 'RUNNING', 4, null),
	queued: job('5', 'QUEUED', null, null),
};
const NAMES = Object.keys(JOBS);

/** Every order of the five jobs would be 120 runs; these put each job first and last, and mix the rest. */
const SERVICE_ORDERS: string[][] = [
	['f1', 'f3', 'f2', 'running', 'queued'],
	['queued', 'running', 'f2', 'f3', 'f1'],
	['running', 'f1', 'queued', 'f3', 'f2'],
	['f2', 'queued', 'f1', 'running', 'f3'],
	['f3', 'f2', 'running', 'queued', 'f1'],
];

const SENT = SERVICE_ORDERS.map((order) => [order.join(', '), order] as const);

let server: Server;
let url: string;
let sent: string[] = [];
const requests: string[] = [];

beforeAll(async () => {
	server = createServer((req, res) => {
		requests.push(req.url ?? '');
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify(sent.map((name) => JOBS[name])));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
});

const nameOf = (item: IDataObject) => NAMES.find((name) => JOBS[name].id === item.jobId);

async function getMany(order: string[], parameters: IDataObject = {}): Promise<Array<string | undefined>> {
	sent = order;
	const result = await runActionNode({
		credentials: credentialsFor(url),
		typeVersion: 2,
		parameters: { authentication: 'jobExecutionApi', resource: 'job', operation: 'getMany', returnAll: true, ...parameters } as RunNodeOptions['parameters'],
	});
	expect(result.error).toBeUndefined();
	return result.json.map(nameOf);
}

test('the service sent each list in the order the test chose, and the node read it whole', async () => {
	requests.length = 0;
	for (const order of SERVICE_ORDERS) expect(new Set(await getMany(order))).toEqual(new Set(NAMES));
	expect(requests).toEqual(SERVICE_ORDERS.map(() => '/api/v1/jobs'));
});

test.each(SENT)('newest first by start time (the default), whatever the service sends (%s): queued, running, f2, f3, f1', async (_sent, order) => {
	expect(await getMany([...order])).toEqual(['queued', 'running', 'f2', 'f3', 'f1']);
	// Limit keeps the newest: the job not started yet and the running one.
	expect(await getMany([...order], { returnAll: false, limit: 2 })).toEqual(['queued', 'running']);
});

test.each(SENT)('oldest first by start time (sent %s): f1, f3, f2, then the running job, then the queued one', async (_sent, order) => {
	expect(await getMany([...order], { sort: { field: 'startTime', direction: 'ascending' } })).toEqual(['f1', 'f3', 'f2', 'running', 'queued']);
});

test.each(SENT)('newest first by end time (sent %s): the unfinished jobs first, in the order sent, then f3, f2, f1', async (_sent, order) => {
	const unfinished = [...order].filter((name) => name === 'running' || name === 'queued');
	expect(await getMany([...order], { sort: { field: 'endTime', direction: 'descending' } })).toEqual([...unfinished, 'f3', 'f2', 'f1']);
});

test('a time filter leaves out the jobs without that time: Ended Before a year on keeps the finished jobs, Started Before the queued one out', async () => {
	const yearOn = new Date(T + 365 * 24 * 60 * MINUTE).toISOString();
	expect(await getMany([...SERVICE_ORDERS[2]], { filters: { endedBefore: yearOn } })).toEqual(['f2', 'f3', 'f1']);
	expect(await getMany([...SERVICE_ORDERS[2]], { filters: { startedBefore: yearOn } })).toEqual(['running', 'f2', 'f3', 'f1']);
	expect(await getMany([...SERVICE_ORDERS[2]], { filters: { startedAfter: new Date(T).toISOString() } })).toEqual(['running', 'f2', 'f3', 'f1']);
});
