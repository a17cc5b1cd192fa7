/**
 * The least any n8n node does to call the service: read its parameters per item through the engine, send
 * through `httpRequestWithAuthentication` with the same credential, return the parsed answer. No checks,
 * no error handling, no retries. Measuring it beside the Job Execution node splits the node's cost into
 * n8n's part (engine, expressions, request helper) and ours. With a Poll Interval it also waits for each
 * submitted job: it reads the job every interval until its status is final (the floor of Submit + Wait).
 * With Bounded Read it reads each answer as n8n's helper streams it, stopping past a byte cap, as any node must that
 * bounds what it reads: the helper's only bounded way (a buffered answer is read whole, whatever its size).
 */
import { sleep } from 'n8n-workflow';
import type { Readable } from 'stream';
import type { IDataObject, IExecuteFunctions, IHttpRequestOptions, IN8nHttpFullResponse, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { credentialTypes, nodeClasses } from '../../testkit/engine';

export const PLAIN_NODE_TYPE = 'bench.plainRequest';
const FINAL = new Set(['COMPLETED', 'ERROR', 'CANCELLED']);

class PlainRequestNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Plain Request',
		name: 'plainRequest',
		group: ['transform'],
		version: 1,
		description: 'Benchmark baseline',
		defaults: { name: 'Plain Request' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [
			{ name: 'jobExecutionApi', required: false },
			{ name: 'jobExecutionRelayApi', required: false },
		],
		properties: [
			{ displayName: 'Method', name: 'method', type: 'string', default: 'GET' },
			{ displayName: 'Path', name: 'path', type: 'string', default: '' },
			{ displayName: 'Body', name: 'body', type: 'json', default: '{}' },
			{ displayName: 'Concurrency', name: 'concurrency', type: 'number', default: 1 },
			{ displayName: 'Through the Relay', name: 'relay', type: 'boolean', default: false },
			{ displayName: 'Poll Interval (ms, 0: no wait)', name: 'pollMs', type: 'number', default: 0 },
			{ displayName: 'Bounded Read', name: 'bounded', type: 'boolean', default: false },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const relay = this.getNodeParameter('relay', 0) as boolean;
		const credentialType = relay ? 'jobExecutionRelayApi' : 'jobExecutionApi';
		const credentials = await this.getCredentials(credentialType);
		const baseUrl = String(relay ? credentials.relayUrl : credentials.baseUrl).replace(/\/+$/, '');
		const method = this.getNodeParameter('method', 0) as 'GET' | 'POST';
		const pollMs = this.getNodeParameter('pollMs', 0, 0) as number;
		const send = (this.getNodeParameter('bounded', 0, false) as boolean) ? boundedRequest(this, credentialType) : bufferedRequest(this, credentialType);
		// The relay takes the native path and verb in headers (spec: Relay interface).
		const target = (path: string) =>
			relay ? { url: `${baseUrl}/call/${method === 'POST' ? 'execute' : 'status'}`, headers: { endpoint: path, method } } : { url: `${baseUrl}${path}` };
		const output: INodeExecutionData[] = [];
		let next = 0;
		const worker = async () => {
			while (next < items.length) {
				const itemIndex = next++;
				const path = this.getNodeParameter('path', itemIndex) as string;
				const body = method === 'POST' ? (JSON.parse(this.getNodeParameter('body', itemIndex) as string) as IDataObject) : undefined;
				let json = await send({ method, ...target(path), body });
				const jobPath = `/api/v1/jobs/${String(json.jobId)}`;
				const read = relay ? { url: `${baseUrl}/call/status`, headers: { endpoint: jobPath, method: 'GET' } } : { url: `${baseUrl}${jobPath}` };
				while (pollMs > 0 && !FINAL.has(String(json.executionStatus))) {
					await sleep(pollMs);
					json = await send({ method: 'GET', ...read });
				}
				output[itemIndex] = { json, pairedItem: { item: itemIndex } };
			}
		};
		const concurrency = this.getNodeParameter('concurrency', 0) as number;
		await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
		return [output];
	}
}

type Send = (request: IHttpRequestOptions) => Promise<IDataObject>;

function bufferedRequest(context: IExecuteFunctions, credentialType: string): Send {
	return async (request) => (await context.helpers.httpRequestWithAuthentication.call(context, credentialType, { ...request, json: true })) as IDataObject;
}

/** The same answer read as a stream to its end, refused one byte past the cap of a job's answer (4 MiB), then parsed. */
const BOUNDED_READ_BYTES = 4 * 1024 * 1024;

function boundedRequest(context: IExecuteFunctions, credentialType: string): Send {
	return async (request) => {
		const options: IHttpRequestOptions = { ...request, json: false, encoding: 'stream', returnFullResponse: true };
		const response = (await context.helpers.httpRequestWithAuthentication.call(context, credentialType, options)) as IN8nHttpFullResponse;
		const stream = response.body as Readable;
		const text = await new Promise<string>((resolve, reject) => {
			const chunks: Buffer[] = [];
			let bytes = 0;
			stream.on('data', (chunk: Buffer) => {
				bytes += chunk.length;
				if (bytes > BOUNDED_READ_BYTES) stream.destroy(new Error('answer over the cap'));
				else chunks.push(chunk);
			});
			stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
			stream.on('error', reject);
		});
		return JSON.parse(text) as IDataObject;
	};
}

nodeClasses[PLAIN_NODE_TYPE] = new PlainRequestNode();
// The credentials are restricted to the package's nodes (credentialScope.ts); the plain node stands in for one of them.
for (const type of Object.values(credentialTypes)) type.supportedNodes = [...(type.supportedNodes ?? []), PLAIN_NODE_TYPE];
