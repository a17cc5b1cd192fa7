// Routes are declared once (ROUTES) and resolved in one place: every declared method answers, every other
// method gets 405 with the declared ones, every other path 404. Request targets in absolute form
// (RFC 9112 §3.2.2) and JSON bodies starting with a UTF-8 byte-order mark are accepted.
import { connect } from 'net';

import { ROUTES, resolveRoute, splitTarget } from '../../server';
import { jobBody, SALES_ID, startHarness } from './helpers';
import type { Harness } from './helpers';

// A chunked body's data (ASCII bodies only: sizes are counted in characters).
function dechunk(text: string): string {
	let out = '';
	for (let at = 0; ; ) {
		const eol = text.indexOf('\r\n', at);
		const size = parseInt(text.slice(at, eol), 16);
		if (!(size > 0)) return out;
		out += text.slice(eol + 2, eol + 2 + size);
		at = eol + 2 + size + 2;
	}
}

// One raw HTTP/1.1 exchange (the target is sent as written, which axios cannot do).
function rawRequest(url: string, head: string, body: Buffer = Buffer.alloc(0)): Promise<{ status: number; body: string }> {
	const { port } = new URL(url);
	return new Promise((resolve, reject) => {
		const socket = connect(Number(port), '127.0.0.1');
		const chunks: Buffer[] = [];
		socket.on('data', (chunk: Buffer) => chunks.push(chunk));
		socket.on('error', reject);
		socket.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
			const head = text.slice(0, text.indexOf('\r\n\r\n'));
			const rest = text.slice(head.length + 4);
			resolve({ status, body: /transfer-encoding: chunked/i.test(head) ? dechunk(rest) : rest });
		});
		socket.write(`${head}\r\nHost: example.test\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`);
		socket.end(body);
	});
}

describe('routes declared once', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await startHarness();
	});
	afterAll(async () => {
		await h.server.close();
	});

	it('resolveRoute: each declared method resolves, others get 405 listing them, unknown paths 404', () => {
		const samplePath: Record<string, string> = { '/api/v1/jobs/{jobId}': '/api/v1/jobs/abc' };
		for (const route of ROUTES) {
			const path = samplePath[route.name] ?? route.name;
			for (const method of Object.keys(route.methods)) expect(resolveRoute(ROUTES, method, path)).toMatchObject({ route });
			const refused = resolveRoute(ROUTES, 'DELETE', path);
			expect('refusal' in refused && [refused.refusal.status, refused.refusal.headers]).toEqual([405, { allow: Object.keys(route.methods).join(', ') }]);
		}
		for (const path of ['/', '/api/v1', '/api/v1/jobs/a/b', '/call/other', '/api/v1/jobs/']) {
			const refused = resolveRoute(ROUTES, 'GET', path);
			expect('refusal' in refused && refused.refusal.status).toBe(404);
		}
	});

	it('the HTTP layer answers 404 and 405 as resolveRoute decides, for both interfaces', async () => {
		for (const route of ROUTES) {
			const path = route.name.replace('{jobId}', 'abc');
			const r = await h.relay.request({ method: 'PATCH', url: path });
			expect([r.status, r.headers.allow]).toEqual([405, Object.keys(route.methods).join(', ')]);
		}
		expect((await h.http.get('/api/v1/none')).status).toBe(404);
		expect((await h.relay.get('/call/none')).status).toBe(404);
	});

	it('splitTarget reads origin-form and absolute-form targets alike', () => {
		expect(splitTarget('/api/v1/jobs?filter=active')).toEqual({ path: '/api/v1/jobs', query: 'filter=active' });
		expect(splitTarget('http://host:8080/api/v1/jobs?filter=active')).toEqual({ path: '/api/v1/jobs', query: 'filter=active' });
		expect(splitTarget('HTTPS://host/api/v1/jobs/x')).toEqual({ path: '/api/v1/jobs/x', query: '' });
		expect(splitTarget('http://host')).toEqual({ path: '/', query: '' });
		expect(splitTarget('http://host?x=1')).toEqual({ path: '/', query: 'x=1' });
	});

	it('accepts absolute-form targets on the native and the relay interfaces', async () => {
		const submitted = await rawRequest(h.server.url, `POST http://example.test/api/v1/jobs HTTP/1.1\r\nContent-Type: application/json`, Buffer.from(JSON.stringify(jobBody())));
		expect(submitted.status).toBe(200);
		const { jobId } = JSON.parse(submitted.body);
		const read = await rawRequest(h.server.url, `GET http://example.test/api/v1/jobs/${jobId}?filter=executionStatus HTTP/1.1`);
		expect([read.status, JSON.parse(read.body)]).toEqual([200, 'RUNNING']);
		const list = await rawRequest(h.server.url, `GET http://example.test:1234/api/v1/jobs HTTP/1.1`);
		expect(JSON.parse(list.body).map((s: { id: string }) => s.id)).toContain(jobId);
		const relay = await rawRequest(
			h.server.url,
			`GET http://example.test/call/status HTTP/1.1\r\napiKey: relay-key-1\r\nuser-api-key: user-key-1\r\nendpoint: /api/v1/jobs/${jobId}\r\nmethod: GET`,
		);
		expect([relay.status, JSON.parse(relay.body).id]).toEqual([200, jobId]);
		expect((await rawRequest(h.server.url, 'GET http://example.test/nothing HTTP/1.1')).status).toBe(404);
	});

	it('accepts a JSON body starting with a UTF-8 byte-order mark, natively and through the relay', async () => {
		const bom = Buffer.from([0xef, 0xbb, 0xbf]);
		const native = await rawRequest(h.server.url, 'POST /api/v1/jobs HTTP/1.1\r\nContent-Type: application/json', Buffer.concat([bom, Buffer.from(JSON.stringify(jobBody()))]));
		expect(native.status).toBe(200);
		const relayBody = { flowId: SALES_ID, runProfileName: 'default', notificationEnabled: false, parameters: [] };
		const relay = await h.relay.post('/call/execute', Buffer.concat([bom, Buffer.from(JSON.stringify(relayBody))]), { headers: { endpoint: '/api/v1/jobs', method: 'POST' } });
		expect(relay.status).toBe(200);
		// Only a leading mark is dropped: one elsewhere is still not JSON.
		const inside = await h.http.post('/api/v1/jobs', Buffer.concat([Buffer.from(' '), bom, Buffer.from(JSON.stringify(jobBody()))]), { headers: { 'content-type': 'application/json' } });
		expect([inside.status, inside.data.message]).toEqual([400, 'body is not valid JSON']);
	});
});
