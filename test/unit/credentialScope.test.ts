// The credentials' scope as n8n computes it: n8n's own loader (n8n-core's PackageDirectoryLoader, with the cli's
// package prefix) lists exactly the class's supportedNodes for both credentials, the restriction is on, and n8n's
// "Allowed HTTP Request Domains" fields are not injected into their forms. The real-host proof: test/e2e/credentialScope.e2e.ts.
import { readFileSync } from 'fs';
import { join } from 'path';

import { PackageDirectoryLoader } from 'n8n-core';
import { injectDomainRestrictionFields } from 'n8n-workflow';

import { projectRoot } from '../../host/paths';
import { ACTION_NODE_TYPE, credentialTypes, InMemoryCredentialsHelper, TRIGGER_NODE_TYPE } from '../../testkit/engine';

const packageName = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { name: string }).name;
const CREDENTIALS = ['jobExecutionApi', 'jobExecutionRelayApi'];

describe('credential scope', () => {
	let inferred: Record<string, string[]>;
	beforeAll(async () => {
		// What n8n does for a community package (packages/cli/src/load-nodes-and-credentials.ts): load it, prefix each
		// inferred supported node with the package name, then (createAiTools, tool-generation/utils.ts
		// copyCredentialSupport) add the AI tool variant `<name>Tool` of every usableAsTool node that is supported.
		const loader = new PackageDirectoryLoader(projectRoot);
		await loader.loadAll();
		const toolVariants = loader.types.nodes.filter((node) => node.usableAsTool).map((node) => node.name);
		inferred = Object.fromEntries(
			CREDENTIALS.map((type) => {
				const supported = (loader.known.credentials[type]?.supportedNodes ?? []).map((node) => `${loader.packageName}.${node}`);
				const tools = toolVariants.filter((name) => supported.includes(`${loader.packageName}.${name}`)).map((name) => `${loader.packageName}.${name}Tool`);
				return [type, [...supported, ...tools]];
			}),
		);
	});

	it.each(CREDENTIALS)("%s: supportedNodes is what n8n's loader infers: both nodes and the AI tool variant, package-prefixed", (type) => {
		expect(inferred[type].sort()).toEqual([ACTION_NODE_TYPE, `${ACTION_NODE_TYPE}Tool`, TRIGGER_NODE_TYPE].sort());
		expect([...(credentialTypes[type].supportedNodes ?? [])].sort()).toEqual(inferred[type].sort());
		expect(ACTION_NODE_TYPE.startsWith(`${packageName}.`)).toBe(true);
	});

	it.each(CREDENTIALS)('%s: restricted to its nodes, no injected domain fields', (type) => {
		const credentialType = credentialTypes[type];
		expect(credentialType.restrictToSupportedNodes).toBe(true);
		const names = injectDomainRestrictionFields(credentialType).map((property) => property.name);
		expect(names).not.toContain('allowedHttpRequestDomains');
		expect(names).not.toContain('allowedDomains');
		// The same call on a copy without the flag does inject them: the check can fail.
		const unhidden = Object.assign(Object.create(Object.getPrototypeOf(credentialType) as object) as typeof credentialType, credentialType, {
			hideDomainRestrictionFields: false,
		});
		expect(injectDomainRestrictionFields(unhidden).map((property) => property.name)).toContain('allowedHttpRequestDomains');
	});

	it("the test engine's stand-in applies n8n's rule: our two nodes and the AI tool yes, the HTTP Request node and its tool no", () => {
		const helper = new InMemoryCredentialsHelper({});
		for (const type of CREDENTIALS) {
			expect(helper.isCredentialUsableByNode(type, ACTION_NODE_TYPE)).toBe(true);
			expect(helper.isCredentialUsableByNode(type, TRIGGER_NODE_TYPE)).toBe(true);
			expect(helper.isCredentialUsableByNode(type, `${ACTION_NODE_TYPE}Tool`)).toBe(true);
			expect(helper.isCredentialUsableByNode(type, 'n8n-nodes-base.httpRequest')).toBe(false);
			expect(helper.isCredentialUsableByNode(type, 'n8n-nodes-base.httpRequestTool')).toBe(false);
			expect(helper.isCredentialUsableByNode(type, 'jobExecution')).toBe(false);
		}
	});
});
