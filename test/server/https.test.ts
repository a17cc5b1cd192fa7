// The reference server over https: the CLI's TLS flags (a self-signed certificate made at start, or a certificate and
// key from files), their usage and startup errors, the programmatic `tls` option, and the TLS handshake's deadline.
import { existsSync, readFileSync, writeFileSync } from 'fs';
import { request } from 'https';
import { connect } from 'net';
import { dirname, join } from 'path';

import { parseArgs, runCli, startReferenceServer } from '../../server';
import { makeTestCertificates } from '../../testkit/testCertificates';
import type { TestCertificates } from '../../testkit/testCertificates';

let certs: TestCertificates;
beforeAll(() => (certs = makeTestCertificates()));
afterAll(() => certs?.remove());

function captureIo() {
	const out: string[] = [];
	const err: string[] = [];
	return { out, err, io: { stdout: (l: string) => out.push(l), stderr: (l: string) => err.push(l) } };
}

/** GET `url` over https trusting only `ca` (when given): the status, or the client's error code. */
function get(url: string, ca?: string, headers: Record<string, string> = {}): Promise<number | string> {
	return new Promise((resolve) => {
		const req = request(url, { ca, headers, agent: false }, (res) => {
			res.resume();
			res.on('end', () => resolve(res.statusCode ?? 0));
		});
		req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
		req.end();
	});
}

describe('CLI TLS flags', () => {
	it('parses --tls-self-signed, and --tls-cert with --tls-key in both forms', () => {
		expect(parseArgs(['--tls-self-signed'])).toEqual({ port: 8080, tlsSelfSigned: true });
		expect(parseArgs(['--tls-cert', 'c.pem', '--tls-key=k.pem'])).toEqual({ port: 8080, tlsCertFile: 'c.pem', tlsKeyFile: 'k.pem' });
	});

	it.each([
		[['--tls-cert', 'c.pem'], '--tls-cert and --tls-key go together'],
		[['--tls-key', 'k.pem'], '--tls-cert and --tls-key go together'],
		[['--tls-self-signed', '--tls-cert', 'c.pem', '--tls-key', 'k.pem'], '--tls-self-signed makes its own certificate: give it, or --tls-cert and --tls-key, not both'],
		[['--tls-self-signed=yes'], '--tls-self-signed takes no value'],
		[['--tls-cert'], '--tls-cert needs a value'],
	])('%j → exit 2, "%s"', async (argv, message) => {
		const { out, err, io } = captureIo();
		expect((await runCli(argv, io)).code).toBe(2);
		expect(out).toEqual([]);
		expect(err[0]).toBe(`error: ${message}`);
		expect(err.join('\n')).toContain('[--tls-self-signed | --tls-cert FILE --tls-key FILE]');
	});

	it('--tls-self-signed: the https URL alone on stdout, the certificate file and how n8n accepts it on stderr, the folder gone at close', async () => {
		const { out, err, io } = captureIo();
		const started = await runCli(['--port', '0', '--relay-api-key', 'relay-key-7f3a91', '--user-api-key', 'user-key-2c8e40', '--tls-self-signed'], io);
		const server = started.server;
		if (!server) throw new Error(`server did not start: ${err.join('\n')}`);
		let certFile = '';
		try {
			expect(out).toEqual([`https://127.0.0.1:${server.port}`]);
			certFile = /made now: (\S+cert\.pem) \(removed when the server stops\)/.exec(err.join('\n'))?.[1] ?? '';
			expect(existsSync(certFile)).toBe(true);
			expect(err.join('\n')).toContain(`Ignore SSL Issues (Insecure) turned on in the credential, or trusts it when started with NODE_EXTRA_CA_CERTS=${certFile}`);
			expect(err.join('\n')).not.toContain('PRIVATE KEY');
			// Trusted by its own file, as NODE_EXTRA_CA_CERTS makes n8n trust it; refused without it.
			expect(await get(`${out[0]}/api/v1/jobs`, readFileSync(certFile, 'utf8'))).toBe(200);
			expect(await get(`https://localhost:${server.port}/api/v1/jobs`, readFileSync(certFile, 'utf8'))).toBe(200);
			expect(await get(`${out[0]}/api/v1/jobs`)).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
			const relay = { apiKey: 'relay-key-7f3a91', 'user-api-key': 'user-key-2c8e40', endpoint: '/api/v1/jobs', method: 'GET' };
			expect(await get(`${out[0]}/call/status`, readFileSync(certFile, 'utf8'), relay)).toBe(200);
		} finally {
			await server.close();
		}
		// The private key lives only as long as its server.
		expect(existsSync(dirname(certFile))).toBe(false);
	});

	it('--tls-cert and --tls-key: serves that certificate (a leaf of the test CA, trusted by the CA alone)', async () => {
		const leafCert = join(dirname(certs.caFile), 'leaf.pem');
		const leafKey = join(dirname(certs.caFile), 'leaf.key');
		const { out, err, io } = captureIo();
		const server = (await runCli(['--port', '0', '--tls-cert', leafCert, '--tls-key', leafKey], io)).server;
		if (!server) throw new Error(`server did not start: ${err.join('\n')}`);
		try {
			expect(out).toEqual([`https://127.0.0.1:${server.port}`]);
			expect(err).toContain(`https: certificate ${leafCert}`);
			expect(await get(`${out[0]}/api/v1/jobs`, readFileSync(certs.caFile, 'utf8'))).toBe(200);
			expect(await get(`${out[0]}/api/v1/jobs`)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
		} finally {
			await server.close();
		}
	});

	// The files exist only once beforeAll has made them: each row gives its files and message when it runs.
	const leafKey = () => join(dirname(certs.caFile), 'leaf.key');
	it.each([
		['a missing certificate file', () => ['/nonexistent/cert.pem', leafKey(), 'cannot read the certificate /nonexistent/cert.pem: ENOENT']],
		['a key file holding a certificate', () => [certs.selfSigned.certFile, certs.selfSigned.certFile, `the private key ${certs.selfSigned.certFile} holds no PEM private key`]],
		['a certificate file holding a key', () => [leafKey(), leafKey(), `the certificate ${leafKey()} holds no PEM certificate`]],
	])('%s → exit 1 with one line naming the file', async (_name, row) => {
		const [cert, key, message] = row();
		const { out, err, io } = captureIo();
		expect((await runCli(['--port', '0', '--tls-cert', cert, '--tls-key', key], io)).code).toBe(1);
		expect(out).toEqual([]);
		expect(err).toEqual([`error: ${message}`]);
	});

	it('a certificate with another key → exit 1, "cannot be used together", the key not quoted', async () => {
		const mismatched = join(dirname(certs.caFile), 'mismatched-key.pem');
		writeFileSync(mismatched, certs.leaf.key);
		const { out, err, io } = captureIo();
		expect((await runCli(['--port', '0', '--tls-cert', certs.selfSigned.certFile, '--tls-key', mismatched], io)).code).toBe(1);
		expect(out).toEqual([]);
		expect(err).toHaveLength(1);
		expect(err[0]).toMatch(/^error: the TLS certificate and key cannot be used together: /);
		const keyBody = certs.leaf.key.split('\n')[1];
		expect(err[0]).not.toContain(keyBody);
	});
});

describe('programmatic tls option', () => {
	it('serves https at an https:// URL, http without the option', async () => {
		const secure = await startReferenceServer({ port: 0, tls: certs.leaf });
		const plain = await startReferenceServer({ port: 0 });
		try {
			expect(secure.url).toBe(`https://127.0.0.1:${secure.port}`);
			expect(plain.url).toBe(`http://127.0.0.1:${plain.port}`);
			expect(await get(`${secure.url}/api/v1/jobs`, readFileSync(certs.caFile, 'utf8'))).toBe(200);
			expect(secure.connectionsAccepted()).toBe(1);
		} finally {
			await Promise.all([secure.close(), plain.close()]);
		}
	});

	it('a client that opens a connection and never starts the handshake is dropped at the headers deadline', async () => {
		const server = await startReferenceServer({ port: 0, tls: certs.leaf, headersTimeoutMs: 200, requestTimeoutMs: 400 });
		try {
			const socket = connect(server.port, '127.0.0.1');
			// Hang bound: the test's own timeout (30 s); Node's default handshake deadline (120 s) would pass it.
			await new Promise<void>((resolve) => socket.on('close', () => resolve()));
			expect(server.connectionsAccepted()).toBe(1);
		} finally {
			await server.close();
		}
	});
});
