/**
 * Certificates for the https tests, made per run into a temp folder with the openssl command (server/tls.ts): a
 * self-signed one, and a private CA with the leaves a real deployment meets (good, expired, for another name). A
 * client trusts the CA only through NODE_EXTRA_CA_CERTS, read once when Node starts, so the tests that trust it run
 * in a child process (testkit/httpsChild.ts).
 */
import { readFileSync, writeFileSync } from 'fs';
import { join } from 'path';

import { altNames, certificateFolder, LOCAL_NAMES, openssl, selfSignedCertificate } from '../server';
import type { TlsCertificate } from '../server';

export interface TestCertificates {
	/** Self-signed for the local names: DEPTH_ZERO_SELF_SIGNED_CERT unless trusted. */
	selfSigned: TlsCertificate & { certFile: string };
	/** The private CA's certificate (PEM file): what NODE_EXTRA_CA_CERTS points at. */
	caFile: string;
	/** Signed by the CA, for the local names, served alone: UNABLE_TO_VERIFY_LEAF_SIGNATURE unless the CA is trusted. */
	leaf: TlsCertificate;
	/** The same leaf served with the CA after it: SELF_SIGNED_CERT_IN_CHAIN unless the CA is trusted. */
	leafWithChain: TlsCertificate;
	/**
	 * Signed by an intermediate CA the CA signed, served with the intermediate (the usual corporate chain):
	 * UNABLE_TO_GET_ISSUER_CERT_LOCALLY unless the CA is trusted.
	 */
	viaIntermediate: TlsCertificate;
	/** Signed by the CA, expired yesterday: CERT_HAS_EXPIRED once the CA is trusted. */
	expired: TlsCertificate;
	/** Signed by the CA for jobs.example.com only: ERR_TLS_CERT_ALTNAME_INVALID at 127.0.0.1 once the CA is trusted. */
	otherName: TlsCertificate;
	remove(): void;
}

const P256 = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

const CA_EXTENSIONS = 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n';

/**
 * A certificate for `names` (a leaf; or a CA when `names` is 'ca'), signed by `issuer` (its .pem and .key in `dir`),
 * valid `days` days (-1: expired since yesterday).
 */
function signed(dir: string, name: string, names: readonly string[] | 'ca', days: number, serial: number, issuer = 'ca'): TlsCertificate {
	openssl(['req', ...P256, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`], dir);
	writeFileSync(join(dir, `${name}.ext`), names === 'ca' ? CA_EXTENSIONS : `subjectAltName=${altNames(names)}\nbasicConstraints=CA:FALSE\n`);
	openssl(
		['x509', '-req', '-in', `${name}.csr`, '-CA', `${issuer}.pem`, '-CAkey', `${issuer}.key`, '-set_serial', String(serial), '-days', String(days), '-extfile', `${name}.ext`, '-out', `${name}.pem`],
		dir,
	);
	return { cert: readFileSync(join(dir, `${name}.pem`), 'utf8'), key: readFileSync(join(dir, `${name}.key`), 'utf8') };
}

function viaIntermediate(dir: string): TlsCertificate {
	const intermediate = signed(dir, 'intermediate', 'ca', 2, 4);
	const leaf = signed(dir, 'corporate', LOCAL_NAMES, 2, 5, 'intermediate');
	return { cert: `${leaf.cert}${intermediate.cert}`, key: leaf.key };
}

export function makeTestCertificates(): TestCertificates {
	const selfSigned = selfSignedCertificate();
	const folder = certificateFolder('job-execution-test-ca-');
	try {
		const dir = folder.dir;
		openssl(
			['req', '-x509', ...P256, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Job Execution test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
			dir,
		);
		const leaf = signed(dir, 'leaf', LOCAL_NAMES, 2, 1);
		const ca = readFileSync(join(dir, 'ca.pem'), 'utf8');
		return {
			selfSigned: { cert: selfSigned.cert, key: selfSigned.key, certFile: selfSigned.certFile },
			caFile: join(dir, 'ca.pem'),
			leaf,
			leafWithChain: { cert: `${leaf.cert}${ca}`, key: leaf.key },
			viaIntermediate: viaIntermediate(dir),
			expired: signed(dir, 'expired', LOCAL_NAMES, -1, 2),
			otherName: signed(dir, 'other', ['jobs.example.com'], 2, 3),
			remove: () => {
				selfSigned.remove();
				folder.remove();
			},
		};
	} catch (err) {
		selfSigned.remove();
		folder.remove();
		throw err;
	}
}
