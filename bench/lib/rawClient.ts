/** The baseline: the same requests from a plain axios client, as a user would write them without n8n. */
import axios from 'axios';
import type { AxiosInstance } from 'axios';

import { NATIVE_TOKEN } from '../../testkit/fixtures';

export function rawClient(url: string): AxiosInstance {
	return axios.create({ baseURL: url, headers: { Authorization: `Bearer ${NATIVE_TOKEN}` } });
}



/** Submits `count` jobs, `atOnce` at a time (one after another by default), and returns their ids in submission order. */
export async function submitJobs(client: AxiosInstance, count: number, flowFileName: string, atOnce = 1): Promise<string[]> {
	const ids: string[] = [];
	for (let i = 0; i < count; i += atOnce) {
		const batch = Array.from({ length: Math.min(atOnce, count - i) }, () => client.post('/api/v1/jobs', { flowFileName, runProfileName: 'default' }));
		for (const { data } of await Promise.all(batch)) ids.push((data as { jobId: string }).jobId);
	}
	return ids;
}
