/** The baseline: the same requests from a plain axios client, as a user would write them without n8n. */
import axios from 'axios';
import type { AxiosInstance } from 'axios';

import { NATIVE_TOKEN } from '../../testkit/fixtures';

export function rawClient(url: string): AxiosInstance {
	return axios.create({ baseURL: url, headers: { Authorization: `Bearer ${NATIVE_TOKEN}` } });
}



/** Submits `count` jobs one after another and returns their ids. */
export async function submitJobs(client: AxiosInstance, count: number, flowFileName: string): Promise<string[]> {
	const ids: string[] = [];
	for (let i = 0; i < count; i++) {
		const { data } = await client.post('/api/v1/jobs', { flowFileName, runProfileName: 'default' });
		ids.push((data as { jobId: string }).jobId);
	}
	return ids;
}
