/**
 * Hostile servers for a jest file: each one started through the returned function is closed after the test that
 * started it (jest's afterEach, registered once per call). Not for the bench, which has no jest.
 */
import { startHostileServer } from './hostileServer';
import type { Listener, Script } from './hostileServer';

export function serversClosedAfterEach(): (script: Script) => Promise<Listener> {
	let open: Listener[] = [];
	afterEach(async () => {
		await Promise.all(open.map((server) => server.close()));
		open = [];
	});
	return async (script) => {
		const server = await startHostileServer(script);
		open.push(server);
		return server;
	};
}
