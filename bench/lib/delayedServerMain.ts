/**
 * The reference server's CLI with every answer held for a while first (the server's `latency` fault on every
 * request), like a service across a network: `node delayedServerMain.js <latency ms> <server flags…>`. Its own
 * process, so the wait costs the bench process nothing.
 */
import { runCli } from '../../server';

const latencyMs = Number(process.argv[2]);
if (!Number.isInteger(latencyMs) || latencyMs < 1) throw new Error('the first argument is the latency in ms (a whole number ≥ 1)');
runCli(process.argv.slice(3)).then(
	(result) => {
		if (!result.server) process.exit(result.code);
		result.server.faults.inject({ kind: 'latency', ms: latencyMs, times: Infinity });
		process.on('SIGTERM', () => void result.server.close().then(() => process.exit(0)));
	},
	(error: unknown) => {
		process.stderr.write(`${String(error)}\n`);
		process.exit(1);
	},
);
