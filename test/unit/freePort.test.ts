/**
 * The ports the real-host tiers hand to n8n's servers (host/n8n.ts `freePort`) lie below the kernel's ephemeral range,
 * where no outgoing connection's local end can take them before the server listens (the queue tier once failed with
 * "Task Broker's port … is already in use"); each is free when handed out, and never handed out twice.
 */
import { readFileSync } from 'fs';
import { createServer } from 'net';

import { freePort } from '../../host/n8n';

test('ports below the ephemeral range, free, never the same twice', async () => {
	const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
	const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
	expect(new Set(ports).size).toBe(20);
	for (const port of ports) expect(port < low && port >= 1024).toBe(true);
	// Each can be listened on by the server it is for.
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(ports[0], '127.0.0.1', resolve));
	await new Promise<void>((resolve) => server.close(() => resolve()));
});
