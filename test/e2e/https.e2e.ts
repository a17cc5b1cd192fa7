/**
 * The package over https inside real n8n: the reference service serves a certificate of a private test CA
 * (testkit/testCertificates.ts). Without the CA, credentials with Ignore SSL Issues on work and those with it off fail
 * with the error that names the certificate problem and both fixes, no key in n8n's output; with n8n started with
 * NODE_EXTRA_CA_CERTS set to the CA's file, every credential works with the field off.
 */
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { HOSTS } from '../../host/hosts';
import { executeWorkflow, nodeItems } from '../../host/n8n';
import { openSession } from '../../host/session';
import type { Session } from '../../host/session';
import type { CredentialRecord, NodeRecord, WorkflowRecord } from '../../host/workspace';
import { importIntoN8n } from '../../host/workspace';
import { makeTestCertificates } from '../../testkit/testCertificates';
import type { TestCertificates } from '../../testkit/testCertificates';

const versions = (process.env.E2E_N8N_VERSIONS ?? Object.keys(HOSTS).join(',')).split(',').filter(Boolean);
const log = (line: string) => process.stderr.write(`[e2e] ${line}\n`);
const ACTION = 'n8n-nodes-job-execution.jobExecution';
const WORKFLOW_ID = 'jobExecE2eHttps1';
const QUICK = { file: '/Shared/Flows/quick-check.flow', id: '0b7c3d5e-1f2a-4a6b-9c8d-e4f5a6b7c8d9' };

type Via = 'native' | 'relay';
const CASES: Array<{ via: Via; ignoring: boolean; node: string; credentialId: string }> = [
	{ via: 'native', ignoring: true, node: 'Submit and wait (native, Ignore SSL Issues on)', credentialId: 'https-nat-on' },
	{ via: 'relay', ignoring: true, node: 'Get many (relay, Ignore SSL Issues on)', credentialId: 'https-rel-on' },
	{ via: 'native', ignoring: false, node: 'Get many (native, Ignore SSL Issues off)', credentialId: 'https-nat-off' },
	{ via: 'relay', ignoring: false, node: 'Get many (relay, Ignore SSL Issues off)', credentialId: 'https-rel-off' },
];

function credentials(session: Session): CredentialRecord[] {
	const { service } = session;
	return CASES.map(({ via, ignoring, credentialId, node }): CredentialRecord => ({
		id: credentialId,
		name: node,
		type: via === 'native' ? 'jobExecutionApi' : 'jobExecutionRelayApi',
		data:
			via === 'native'
				? { baseUrl: service.url, authType: 'bearerToken', token: service.nativeToken, ignoreSslIssues: ignoring }
				: { relayUrl: service.url, apiKey: service.relayApiKey, userApiKey: service.userApiKey, ignoreSslIssues: ignoring },
	}));
}

function workflow(): WorkflowRecord {
	const start: NodeRecord = { id: 'https-start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} };
	const nodes: NodeRecord[] = CASES.map(({ via, node, credentialId }, index) => {
		const authentication = via === 'native' ? 'jobExecutionApi' : 'jobExecutionRelayApi';
		const parameters = node.startsWith('Submit')
			? { authentication, resource: 'job', operation: 'submit', flowFileName: QUICK.file, runProfileName: 'default', waitForCompletion: true, waitSettings: { pollInterval: 1, timeout: 120 } }
			: { authentication, resource: 'job', operation: 'getMany', scope: 'all', returnAll: false, limit: 5, options: { simplify: true } };
		return {
			id: `https-node-${index}`,
			name: node,
			type: ACTION,
			typeVersion: 1,
			position: [200, index * 120],
			parameters,
			credentials: { [authentication]: { id: credentialId, name: node } },
			executeOnce: true,
			onError: 'continueRegularOutput' as const,
		};
	});
	return {
		id: WORKFLOW_ID,
		name: 'e2e: https',
		active: false,
		nodes: [start, ...nodes],
		connections: { Start: { main: [nodes.map((node) => ({ node: node.name, type: 'main', index: 0 }))] } },
		settings: { executionOrder: 'v1' },
	};
}

describe.each(versions)('https inside n8n %s', (version) => {
	let certs: TestCertificates;
	let session: Session;
	let userFolder: string;
	const secrets = () => [session.service.nativeToken, session.service.relayApiKey, session.service.userApiKey];
	const outcomes = (executed: Awaited<ReturnType<typeof executeWorkflow>>) =>
		CASES.map(({ node }) => {
			const [item] = nodeItems(executed, node);
			// A job's own output holds `error: null`; a node that failed under Continue On Fail holds its message.
			return item && typeof item.error === 'string' ? `error: ${item.error}` : 'ok';
		});

	beforeAll(async () => {
		certs = makeTestCertificates();
		userFolder = mkdtempSync(join(tmpdir(), `job-execution-https-${version}-`));
		session = await openSession({ hostVersion: version, userFolder, log, server: { tls: certs.leaf } });
		await importIntoN8n(session.n8n, credentials(session), [workflow()]);
	}, 20 * 60_000);

	afterAll(async () => {
		await session?.close();
		rmSync(userFolder, { recursive: true, force: true });
		certs?.remove();
	});

	test('the CA not trusted: Ignore SSL Issues on works, off fails naming the certificate and both fixes, no key shown', async () => {
		expect(session.service.url).toMatch(/^https:/);
		const executed = await executeWorkflow(session.n8n, WORKFLOW_ID);
		const refused =
			`error: The Job Execution service at ${new URL(session.service.url).host} presented a certificate n8n does not trust ` +
			'(certificate signed by an authority n8n does not know): turn on Ignore SSL Issues (Insecure) in the credential, or make n8n trust your CA with NODE_EXTRA_CA_CERTS';
		log(`n8n ${version}, CA not trusted: ${JSON.stringify(outcomes(executed))}`);
		expect(outcomes(executed)).toEqual(['ok', 'ok', refused, refused]);
		expect(nodeItems(executed, CASES[0].node)[0]).toMatchObject({ executionStatus: 'COMPLETED' });
		for (const secret of secrets()) expect(executed.output).not.toContain(secret);
	});

	test('n8n started with NODE_EXTRA_CA_CERTS set to the CA: every credential works, Ignore SSL Issues off included', async () => {
		session.n8n.env = { ...session.n8n.env, NODE_EXTRA_CA_CERTS: certs.caFile };
		const executed = await executeWorkflow(session.n8n, WORKFLOW_ID);
		log(`n8n ${version}, CA trusted: ${JSON.stringify(outcomes(executed))}`);
		expect(outcomes(executed)).toEqual(['ok', 'ok', 'ok', 'ok']);
		for (const secret of secrets()) expect(executed.output).not.toContain(secret);
	});
});
