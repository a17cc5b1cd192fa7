// The fuzz service counts a request in the poll the child sent it in, even when the child's next "poll" message is
// read first: an attempt aborted at its deadline may still be on its way in. Counted in the next poll, it reads as a
// complete answer asked for again (how seed 1071 failed once on a busy CI machine, its poll 4 ended by its deadline).
// The race is forced: this process is blocked until the child has sent both, so both wait in its sockets together,
// and the new connection needs more turns to be read.
import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { scenarioFor } from '../../testkit/fuzz/scenario';
import { INPUT_TURNS, startFuzzService } from '../../testkit/fuzz/service';
import type { FuzzService } from '../../testkit/fuzz/service';

const CHILD = `
const http = require('http');
process.on('message', ({ url, marker }) => {
	const request = http.get(url + '/api/v1/jobs?filter=active', { agent: false }, (response) => response.resume());
	request.on('error', () => undefined);
	// 'finish': the request's bytes are handed to the system; only then the message, as the fuzz child's order is.
	request.on('finish', () => process.send({ type: 'poll', poll: 1 }, () => require('fs').writeFileSync(marker, 'sent')));
});
process.send('ready');
`;

/** One request sent, then the next poll announced, while this process is blocked; the poll its request was counted in. */
async function countedPoll(service: FuzzService, dir: string): Promise<number> {
	const scriptPath = join(dir, 'child.js');
	writeFileSync(scriptPath, CHILD);
	const marker = join(dir, `sent-${Date.now()}`);
	const child = fork(scriptPath, [], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
	try {
		await new Promise((ready) => child.once('message', ready));
		const switched = new Promise<void>((done) => child.once('message', (message: { poll: number }) => void service.startPoll(message.poll).then(done)));
		child.send({ url: service.url, marker });
		// Blocked (no turn of the loop) until the child has sent both: they wait here together.
		const until = Date.now() + 30_000;
		while (!existsSync(marker) && Date.now() < until);
		expect(existsSync(marker)).toBe(true);
		await switched;
		// With the poll switched first, the request is read a few turns later.
		for (let turn = 0; service.requests.length === 0 && turn < 2000; turn++) await new Promise((next) => setTimeout(next, 5));
		expect(service.requests.length).toBe(1);
		return service.requests[0].poll;
	} finally {
		child.kill();
	}
}

describe('fuzz service: a request counts in the poll it was sent in', () => {
	let dir: string;
	let turns: number;
	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), 'fuzz-poll-'));
		turns = INPUT_TURNS.count;
	});
	afterAll(() => {
		INPUT_TURNS.count = turns;
		rmSync(dir, { recursive: true, force: true });
	});
	const trigger = scenarioFor(1071);

	it('is read before the poll switches, though the message announcing it came in first', async () => {
		expect(trigger.target).toBe('trigger');
		const service = await startFuzzService(trigger);
		try {
			expect(await countedPoll(service, dir)).toBe(0);
		} finally {
			await service.close();
		}
	});

	it('without the turns that read it, the same race counts it in the next poll (the test can tell)', async () => {
		INPUT_TURNS.count = 0;
		const service = await startFuzzService(trigger);
		try {
			expect(await countedPoll(service, dir)).toBe(1);
		} finally {
			INPUT_TURNS.count = turns;
			await service.close();
		}
	});
});
