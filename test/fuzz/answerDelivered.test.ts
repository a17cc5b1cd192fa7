// The fuzz service counts an answer as delivered only when the client took it whole. Handed to the connection is not
// enough: MiBs of it may still sit in the client's socket buffer when the client gives up (its wall ceiling, on an n8n
// kept busy), and a retry then asks again for an answer never received (how seed 1017 failed once on a loaded CI
// machine, its 40 MiB list read at the pace of a 90 % busy loop). Forced here: the client stops reading the moment the
// server has handed the last byte over, the tail still in the sockets' buffers.
import { get } from 'node:http';
import type { ClientRequest, IncomingMessage } from 'node:http';

import { scenarioFor } from '../../testkit/fuzz/scenario';
import { startFuzzService } from '../../testkit/fuzz/service';
import type { FuzzService } from '../../testkit/fuzz/service';

/** Seed 1017: a Get Many whose first list is 100 jobs with 400 KiB logs, 40 MiB in all. */
const SCENARIO = scenarioFor(1017);

async function closed(request: ClientRequest): Promise<void> {
	if (request.socket?.destroyed === false) await new Promise((done) => request.socket?.once('close', done));
}

/** Asks for the job list and reads it whole, or until the server has handed it over; then closes the connection. */
async function readList(service: FuzzService, stopWhenHanded: boolean): Promise<{ read: number; ended: boolean }> {
	let ended = false;
	let read = 0;
	const request = get(`${service.url}/api/v1/jobs`, { agent: false });
	await new Promise<void>((done, fail) => {
		request.on('error', fail);
		request.on('response', (response: IncomingMessage) => {
			response.on('data', (chunk: Buffer) => {
				read += chunk.length;
				if (stopWhenHanded && service.requests[0]?.delivered === true) {
					request.destroy();
					done();
				}
				// A client slower than the server (an n8n busy with other work): the sockets' buffers stay full.
				response.pause();
				setTimeout(() => response.resume(), 1);
			});
			response.on('end', () => {
				ended = true;
				done();
			});
		});
	});
	request.destroy();
	await closed(request);
	// The server learns of the close a few turns later.
	await new Promise((next) => setTimeout(next, 200));
	return { read, ended };
}

test('the scenario sends a list far larger than a socket buffer on its first request', () => {
	expect(SCENARIO.target).toBe('getMany');
	expect(SCENARIO.classes).toContain('realisticSize');
});

test('an answer the client stopped reading is not delivered, though handed whole to the connection', async () => {
	const service = await startFuzzService(SCENARIO);
	try {
		const { ended } = await readList(service, true);
		// The race happened: the server had handed it all over, the client had not read it all.
		expect(ended).toBe(false);
		expect(service.requests.map(({ route, status, delivered }) => ({ route, status, delivered }))).toEqual([{ route: 'all', status: 200, delivered: false }]);
	} finally {
		await service.close();
	}
});

test('an answer read whole is delivered, the connection then closed', async () => {
	const service = await startFuzzService(SCENARIO);
	try {
		const { read, ended } = await readList(service, false);
		expect({ ended, over30MiB: read > 30 * 2 ** 20 }).toEqual({ ended: true, over30MiB: true });
		expect(service.requests.map(({ route, status, delivered }) => ({ route, status, delivered }))).toEqual([{ route: 'all', status: 200, delivered: true }]);
	} finally {
		await service.close();
	}
});
