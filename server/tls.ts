// The service's certificate: files given with --tls-cert/--tls-key, or a self-signed one made at start with the
// openssl command (Node cannot build an X.509 certificate by itself; the server is not shipped, so a tool is fine).
import { execFileSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import { isIP } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';

/** A certificate (PEM; may hold its chain after it) and its private key (PEM). */
export interface TlsCertificate {
	cert: string;
	key: string;
}

/** A certificate made on this machine, kept in its own folder until `remove()`. */
export interface MadeCertificate extends TlsCertificate {
	certFile: string;
	keyFile: string;
	dir: string;
	remove(): void;
}

/** The names a self-signed certificate holds by default: what a client on the same machine types. */
export const LOCAL_NAMES = ['localhost', '127.0.0.1', '::1'];

/** `subjectAltName` for names and addresses (an address goes in as IP:, a name as DNS:). */
export function altNames(names: readonly string[]): string {
	return [...new Set(names)].map((name) => (isIP(name) ? `IP:${name}` : `DNS:${name}`)).join(',');
}

/** Runs openssl, saying what is missing when it is not installed. */
export function openssl(args: string[], cwd: string): void {
	try {
		execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
	} catch (err) {
		const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
		if (e.code === 'ENOENT') throw new Error('the openssl command is needed to make a self-signed certificate: install it, or give --tls-cert and --tls-key');
		throw new Error(`openssl ${args[0]} failed: ${e.stderr?.toString().trim() || e.message}`);
	}
}

/** A fresh folder of the temp directory, readable by this user only (mkdtemp makes it 0700). */
export function certificateFolder(prefix = 'job-execution-tls-'): { dir: string; remove(): void } {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A self-signed certificate (P-256, valid `days` days, 2 by default) for `names` (the local names by default),
 * written as cert.pem and key.pem in a new folder. A client trusts it by its cert.pem (NODE_EXTRA_CA_CERTS) or
 * skips the check (n8n's Ignore SSL Issues).
 */
export function selfSignedCertificate(options: { names?: readonly string[]; days?: number } = {}): MadeCertificate {
	const folder = certificateFolder();
	try {
		openssl(
			[
				'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem',
				'-days', String(options.days ?? 2), '-subj', '/CN=Job Execution reference service (self-signed)',
				'-addext', `subjectAltName=${altNames(options.names ?? LOCAL_NAMES)}`,
			],
			folder.dir,
		);
		return { ...readCertificate(join(folder.dir, 'cert.pem'), join(folder.dir, 'key.pem')), certFile: join(folder.dir, 'cert.pem'), keyFile: join(folder.dir, 'key.pem'), ...folder };
	} catch (err) {
		folder.remove();
		throw err;
	}
}

/** A certificate and key read from files, each checked to hold PEM of its kind (messages never quote the key). */
export function readCertificate(certFile: string, keyFile: string): TlsCertificate {
	const read = (file: string, what: string) => {
		try {
			return readFileSync(file, 'utf8');
		} catch (err) {
			throw new Error(`cannot read the ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
		}
	};
	const cert = read(certFile, 'certificate');
	const key = read(keyFile, 'private key');
	if (!cert.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`the certificate ${certFile} holds no PEM certificate`);
	if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) throw new Error(`the private key ${keyFile} holds no PEM private key`);
	return { cert, key };
}
