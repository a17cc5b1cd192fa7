/** Reference server + credentials for node tests, for both interfaces. */
import type { INodeParameters } from 'n8n-workflow';
import { ManualClock, startReferenceServer } from '../server';
import type { ReferenceServer, ReferenceServerOptions } from '../server';
import type { CredentialsMap } from './engine';

export const CATALOG = {
	flows: [
		{ flowFileName: '/Shared/Flows/sales.flow', flowId: '3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10', flowName: 'sales', steps: 3, stepMs: 1000, outcome: 'COMPLETED' as const },
		{ flowFileName: '/Shared/Flows/broken.flow', flowId: 'c41d7a90-93e5-4f1b-8e26-7b0a5c6d9e12', flowName: 'broken', steps: 2, stepMs: 1000, outcome: 'ERROR' as const },
		{ flowFileName: '/Shared/Flows/stopped.flow', flowId: '5e9f0b23-7a18-4c6d-a3f4-2d8e1b6c0f95', flowName: 'stopped', steps: 2, stepMs: 1000, outcome: 'CANCELLED' as const },
	],
};

export const SALES = { path: '/Shared/Flows/sales.flow', id: '3f2b8c1e-6d4a-4b7e-9a51-0c8d2e7f4a10' };
export const BROKEN = { path: '/Shared/Flows/broken.flow', id: 'c41d7a90-93e5-4f1b-8e26-7b0a5c6d9e12' };

export const RELAY_KEY = 'relay-secret-4f9a2c';
export const USER_KEY = 'user-secret-8d1e7b';
export const NATIVE_TOKEN = 'native-token-c0ffee';

export type Interface = 'native' | 'relay';
export const INTERFACES: Interface[] = ['native', 'relay'];

export interface Fixture {
	server: ReferenceServer;
	clock: ManualClock;
	credentials: CredentialsMap;
	authentication: 'jobExecutionApi' | 'jobExecutionRelayApi';
	/** The flow field and value Submit needs on this interface. */
	flow: (flow: { path: string; id: string }) => Record<string, string>;
}

export async function startFixture(kind: Interface, options: ReferenceServerOptions = {}): Promise<Fixture> {
	const clock = new ManualClock();
	const server = await startReferenceServer({
		port: 0,
		clock,
		catalog: CATALOG,
		relayApiKey: RELAY_KEY,
		userApiKey: USER_KEY,
		nativeAuth: { type: 'bearer', token: NATIVE_TOKEN },
		...options,
	});
	return {
		server,
		clock,
		credentials: credentialsFor(server.url),
		authentication: kind === 'native' ? 'jobExecutionApi' : 'jobExecutionRelayApi',
		flow: (flow): Record<string, string> => (kind === 'native' ? { flowFileName: flow.path } : { flowId: flow.id }),
	};
}

export function credentialsFor(url: string): CredentialsMap {
	return {
		jobExecutionApi: { baseUrl: `${url}/`, authType: 'bearerToken', token: NATIVE_TOKEN },
		jobExecutionRelayApi: { relayUrl: url, apiKey: RELAY_KEY, userApiKey: USER_KEY },
	};
}

export const SECRETS = [RELAY_KEY, USER_KEY, NATIVE_TOKEN];

/** Advances the server's clock in the background while a node waits in real time. */
export function advanceWhileWaiting(clock: ManualClock, stepMs: number, everyMs = 50): () => void {
	const timer = setInterval(() => clock.advance(stepMs), everyMs);
	return () => clearInterval(timer);
}

/** Version 2 Submit parameters on the sales flow, each item's `n` sent as an integer parameter `item`. */
export function numberedSubmit(fx: Fixture, extra: INodeParameters = {}): INodeParameters {
	return {
		authentication: fx.authentication,
		resource: 'job',
		operation: 'submit',
		...fx.flow(SALES),
		runProfileName: 'default',
		parameters: { parameter: [{ name: 'item', type: 'integer', value: '={{ $json.n }}' }] },
		...extra,
	};
}
