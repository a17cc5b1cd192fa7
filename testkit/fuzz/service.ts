/**
 * The fuzzing service: an HTTP server on 127.0.0.1 that answers as a scenario says, per route and per request (or per
 * poll of the trigger), native and relay alike, and records what it was asked, when, and what it answered. Faults
 * come from scenario.ts; bodies from bodies.ts; the trigger's job lists from world.ts. A second server stands for
 * another origin: whatever reaches it is a key that left home.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import { ECHO_FORMS, startRecorder, transform } from '../hostileServer';
import type { EchoForm, Listener } from '../hostileServer';
import { STEP_CHARS } from '../../nodes/shared/redaction';
import { ESCAPE_KINDS, escapeLayer, formOf, wrapText } from '../redactionModel';
import type { Form } from '../redactionModel';
import { realisticLog } from '../largeLists';
import { adversarialLog, bomb, deepJob, encodeSmall, FUZZ_JOB_ID, hugeList, saneJob, withOddValues } from './bodies';
import type { Encoding, WireBody } from './bodies';
import { Random } from './random';
import type { Fault, Route, RouteFault, Scenario, SizeBoundFault } from './scenario';
import { denseLog } from '../workBounds';
import { World } from './world';

export interface ServedRequest {
	at: number;
	route: Route | 'unknown';
	/** The request's number on its route (operations) or the poll it came in (trigger). */
	index: number;
	poll: number;
	/** The fault it met, if any. */
	fault?: RouteFault;
	status: number;
	/** What its answer's Retry-After asked for, in ms, when it was a usable delay. */
	retryAfterMs?: number;
	/** The Retry-After was an HTTP date (whole seconds: a client may read it up to a second short). */
	retryAfterDate?: boolean;
	/**
	 * The whole answer reached the client: handed to the connection, which the client did not then reset with its tail
	 * unread (a client that gave up reading a 100 MiB list never gets it).
	 */
	delivered?: boolean;
}

export interface FuzzService {
	url: string;
	/** The other origin: nothing may reach it. */
	recorder: Listener;
	requests: ServedRequest[];
	world?: World;
	/** Per poll: did both lists answer readably, and which sane job ids did the history list show. */
	visible: Map<number, { active: boolean; history: boolean; ids: string[] }>;
	/**
	 * Starts counting requests in `poll`, once the requests the child sent before it said so are read and counted in
	 * the poll before (an attempt aborted at its deadline may still be on its way in).
	 */
	startPoll(poll: number): Promise<void>;
	close(): Promise<void>;
}

const ENCODINGS: Encoding[] = ['identity', 'identity', 'gzip', 'multiGzip', 'deflate', 'br'];
/** Sane bodies longer than this are sent uncompressed. */
const BIG_BODY_CHARS = 4 * 1024 * 1024;

function nativeCall(message: IncomingMessage): { method: string; target: string } {
	const url = message.url ?? '/';
	if (url.startsWith('/call/')) return { method: String(message.headers.method ?? message.method), target: String(message.headers.endpoint ?? '') };
	return { method: message.method ?? 'GET', target: url };
}

function routeOf(method: string, target: string): { route: Route | 'unknown'; id?: string } {
	const [path, query = ''] = target.split('?');
	if (method === 'POST' && path === '/api/v1/jobs') return { route: 'submit' };
	if (method !== 'GET') return { route: 'unknown' };
	if (path === '/api/v1/jobs') return { route: query.includes('filter=active') ? 'active' : query.includes('filter=history') ? 'history' : 'all' };
	if (path.startsWith('/api/v1/jobs/')) return { route: 'read', id: decodeURIComponent(path.slice('/api/v1/jobs/'.length)) };
	return { route: 'unknown' };
}

/** Secret-looking headers first, so that they sit inside what a client shows of a long body. */
function headerLines(headers: IncomingHttpHeaders): string {
	const entries = Object.entries(headers).sort(([a], [b]) => Number(/auth|key|token|secret|x-/i.test(b)) - Number(/auth|key|token|secret|x-/i.test(a)));
	return entries.map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : String(value)}`).join('; ');
}

/**
 * The header lines in the forms the redaction model composes (testkit/redactionModel.ts, issue 47): a header dump
 * folded at 24 columns, one header per line; each escape kind with a line break every 23 characters (inside escapes
 * too); an indented `xxd` dump; hex joined by dashes and by dots.
 */
function composedEchoes(lines: string): Array<[string, string]> {
	const headers = lines.split('; ');
	const folded = headers.map((line) => line.replace(/(.{24})(?=.)/g, '$1\n')).join('\n');
	const escaped = ESCAPE_KINDS.map((kind): [string, string] => {
		const text = escapeLayer(lines, { kind, chosen: [true, false, true], upper: kind === 'cHex', zeros: 2 });
		const every23 = Array.from({ length: Math.floor(text.length / 23) }, (_, n) => (23 * (n + 1) - 1) / Math.max(1, text.length - 1));
		return [`${kind}, wrapped`, wrapText(text, { at: every23, lineBreak: '\n' })];
	});
	const dump = (form: Form) => formOf(lines, form);
	return [
		['folded at 24 columns', folded],
		...escaped,
		['xxd, indented', dump({ kind: 'hex', style: 'xxd', upper: false, indent: 2 })],
		['hex joined by dashes', dump({ kind: 'hex', style: '-', upper: true, indent: 0 })],
		['hex joined by dots', dump({ kind: 'hex', style: '.', upper: false, indent: 0 })],
	];
}

/** A 200's job log echoing every request header in the fault's form, then in every other form the hostile server knows, then composed. */
function echoedLog(lines: string, first: EchoForm): string {
	const forms = [first, ...ECHO_FORMS.filter((form) => form !== first)];
	const echoes: Array<[string, string]> = [...forms.map((form): [string, string] => [form, transform(lines, form)]), ...composedEchoes(lines)];
	return echoes.map(([name, text]) => `2026-01-05 09:00:00 [main] INFO request headers (${name}): ${text}`).join('\n');
}

/**
 * Each job of a JSON text with the digits-only header values (a key) beside its log, as JSON numbers
 * (`"keyNumbers":[7391405261827364519]`), and the first of them again under a field name longer than a step.
 */
function withKeyNumbers(text: string, headers: IncomingHttpHeaders): string {
	const digits = Object.values(headers).filter((value): value is string => typeof value === 'string' && /^[1-9][0-9]{7,}$/.test(value));
	if (digits.length === 0) return text;
	// Also under a field name longer than a step of redaction (STEP_CHARS): such an entry is cleaned on its own path.
	const longName = JSON.stringify(`keyNumber${'_'.repeat(STEP_CHARS)}`);
	return text.split('"log":').join(`"keyNumbers":[${digits.join(',')}],${longName}:${digits[0]},"log":`);
}

function retryAfterMs(value: string, sentAt: number): number | undefined {
	if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
	const date = Date.parse(value);
	return Number.isFinite(date) && date > sentAt ? date - sentAt : undefined;
}

function send(response: ServerResponse, status: number, body: WireBody, headers: Record<string, string> = {}): void {
	const all: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(body.bytes.length), ...headers };
	if (body.encoding) all['content-encoding'] = body.encoding;
	response.writeHead(status, all).end(body.bytes);
}

class Service {
	readonly requests: ServedRequest[] = [];
	readonly visible = new Map<number, { active: boolean; history: boolean; ids: string[] }>();
	readonly world?: World;
	private poll = 0;
	private readonly perRoute = new Map<string, number>();
	private saneReads = 0;
	/** The last request each connection carried: an answer is read whole once another request follows it. */
	private readonly lastOnConnection = new WeakMap<Socket, ServedRequest>();
	private readonly timers = new Set<NodeJS.Timeout>();

	constructor(
		private readonly scenario: Scenario,
		private readonly recorderUrl: string,
	) {
		if (scenario.target === 'trigger') {
			this.world = new World(new Random(scenario.seed * 31 + 5), scenario.world, scenario.polls - scenario.sanePolls);
			this.world.advance(0);
		}
	}

	setPoll(poll: number): void {
		this.poll = poll;
		this.world?.advance(poll);
	}

	/** Sane bodies come in any content coding, chosen from the seed and the request. */
	private encodingFor(route: string, index: number): Encoding {
		return ENCODINGS[(this.scenario.seed * 13 + index * 7 + route.length) % ENCODINGS.length];
	}

	async handle(message: IncomingMessage, response: ServerResponse): Promise<void> {
		const { method, target } = nativeCall(message);
		const { route, id } = routeOf(method, target);
		const trigger = this.scenario.target === 'trigger';
		const index = trigger ? this.poll : (this.perRoute.get(route) ?? 0);
		this.perRoute.set(route, (this.perRoute.get(route) ?? 0) + 1);
		const placed = this.scenario.faults.find((fault) => fault.route === route && index >= fault.from && index < fault.to);
		// The job whose single read always fails fails whatever else happens.
		const unreadable = route === 'read' && id !== undefined && id === this.world?.unreadableId;
		const record: ServedRequest = { at: Date.now(), route, index, poll: this.poll, fault: placed, status: 200 };
		this.requests.push(record);
		response.once('finish', () => (record.delivered = true));
		this.watchConnection(message.socket, response, record);
		if (route === 'unknown') return send(response, (record.status = 404), encodeSmall('{"message":"no such endpoint"}', 'identity'));
		if (unreadable) return send(response, (record.status = this.world?.unreadableStatus ?? 500), encodeSmall('{"message":"this job cannot be read"}', 'identity'));
		if (!placed) return this.sendSane(response, record, route, id);
		return this.sendFault(response, record, placed.fault, route, id, message.headers);
	}

	/**
	 * An answer handed whole to the connection may still sit unread in the client's socket buffer (MiBs on loopback): a
	 * client that gives up then resets the connection (Linux does when closing a socket with unread data), and the
	 * answer was never delivered whole. One that read it sends its next request on the connection or closes it cleanly.
	 * The connection is kept open for that (n8n's requests ask for it to close, and Node's server would close it first).
	 */
	private watchConnection(socket: Socket, response: ServerResponse, record: ServedRequest): void {
		response.setHeader('connection', 'keep-alive');
		if (!this.lastOnConnection.has(socket)) {
			socket.once('close', (hadError) => {
				const last = this.lastOnConnection.get(socket);
				if (hadError && last) last.delivered = false;
			});
		}
		this.lastOnConnection.set(socket, record);
	}

	/**
	 * The body a service that behaves would send: changed only by faults that keep it readable (a log in every job, and
	 * `jobs` jobs in a list the world does not make).
	 */
	private saneBody(route: Route, id: string | undefined, log?: string, jobs = 5): { status: number; text: string; ids?: string[] } {
		const withLog = (job: Record<string, unknown>) => (log !== undefined ? { ...job, log } : job);
		if (route === 'submit') return { status: 200, text: JSON.stringify({ jobId: FUZZ_JOB_ID }) };
		if (this.world) {
			if (route === 'read') {
				const job = id === undefined ? undefined : this.world.read(id);
				return job ? { status: 200, text: JSON.stringify(withLog(job)) } : { status: 400, text: '{"message":"unknown job"}' };
			}
			const list = route === 'history' ? this.world.history() : route === 'active' ? this.world.active() : [...this.world.active(), ...this.world.history()];
			return { status: 200, text: JSON.stringify(list.map(withLog)), ids: list.map((job) => String(job.id)) };
		}
		if (route === 'read') {
			const done = this.saneReads++ >= this.scenario.runningReads;
			const job = saneJob(FUZZ_JOB_ID, done ? 'COMPLETED' : 'RUNNING', { start: 1767603600000, end: done ? 1767603660000 : null });
			return { status: 200, text: JSON.stringify(withLog(job)) };
		}
		const list = Array.from({ length: jobs }, (_, n) =>
			saneJob(`00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, n % 2 ? 'RUNNING' : 'COMPLETED', { start: 1767603600000 + n, end: n % 2 ? null : 1767603660000 + n }),
		);
		return { status: 200, text: JSON.stringify(list.map(withLog)) };
	}

	private sendSane(
		response: ServerResponse,
		record: ServedRequest,
		route: Route,
		id: string | undefined,
		log?: string,
		change?: (text: string) => string,
		jobs?: number,
		plain = false,
	): void {
		const sane = this.saneBody(route, id, log, jobs);
		const { status, ids } = sane;
		const text = change && status === 200 ? change(sane.text) : sane.text;
		record.status = status;
		if (ids && (route === 'active' || route === 'history')) {
			const seen = this.visible.get(this.poll) ?? { active: false, history: false, ids: [] };
			seen[route] = true;
			if (route === 'history') seen.ids = ids;
			this.visible.set(this.poll, seen);
		}
		// A list of real size (100 MiB) goes uncompressed: brotli would take the service minutes to write it.
		send(response, status, encodeSmall(text, plain || (jobs !== undefined && text.length > BIG_BODY_CHARS) ? 'identity' : this.encodingFor(route, record.index)));
	}

	private async sendFault(response: ServerResponse, record: ServedRequest, fault: Fault, route: Route, id: string | undefined, headers: IncomingHttpHeaders): Promise<void> {
		const list = route !== 'read' && route !== 'submit';
		switch (fault.kind) {
			case 'bomb':
				return send(response, 200, await bomb(fault.encoding, fault.shape, fault.mib));
			case 'hugeList':
				return send(response, 200, await hugeList(fault.items));
			case 'deep':
				return send(response, 200, encodeSmall(deepJob(fault.depth, list), this.encodingFor(route, record.index)));
			case 'logCpu':
				return this.sendSane(response, record, route, id, adversarialLog(fault.pattern, fault.size));
			case 'echoLog':
				return this.sendSane(response, record, route, id, echoedLog(headerLines(headers), fault.form), (text) => withKeyNumbers(text, headers));
			case 'oddValues':
				return this.sendSane(response, record, route, id, undefined, (text) => withOddValues(text, fault.form));
			case 'bigLogs':
				return this.sendSane(response, record, route, id, realisticLog(FUZZ_JOB_ID, fault.logBytes), undefined, fault.jobs);
			case 'status': {
				const extra: Record<string, string> = {};
				if (fault.retryAfter !== undefined) {
					const value = fault.retryAfter === 'DATE+5' ? new Date(Date.now() + 5000).toUTCString() : fault.retryAfter;
					extra['retry-after'] = value;
					record.retryAfterMs = retryAfterMs(value, record.at);
					record.retryAfterDate = !/^\d+$/.test(value.trim());
				}
				record.status = fault.status;
				return send(response, fault.status, encodeSmall(`{"message":"fuzz: HTTP ${fault.status}"}`, 'identity'), extra);
			}
			case 'redirect':
				record.status = fault.status;
				response.writeHead(fault.status, { location: `${this.recorderUrl}${response.req.url ?? '/'}`, 'content-type': 'text/plain' }).end('moved');
				return;
			case 'echo': {
				record.status = fault.status;
				const text = transform(headerLines(headers), fault.form);
				response.writeHead(fault.status, { 'content-type': fault.json ? 'application/json' : 'text/plain' }).end(fault.json ? JSON.stringify({ message: text }) : text);
				return;
			}
			case 'slow':
				return this.slow(response, fault.how);
			case 'denseLogs':
			case 'keyInBigList':
				return this.sendAtBound(response, record, fault, route, id, headers);
		}
	}

	/**
	 * A sane body grown to the fault's size: every job's log of escape-dense text (the answer at most `bytes`), or
	 * plain logs past 8 MiB with the request's header lines in the first job's short fields. Sent uncompressed.
	 */
	private sendAtBound(response: ServerResponse, record: ServedRequest, fault: SizeBoundFault, route: Route, id: string | undefined, headers: IncomingHttpHeaders): void {
		const empty = this.saneBody(route, id, '', route === 'read' ? undefined : 5);
		if (empty.status !== 200) return this.sendSane(response, record, route, id);
		const count = route === 'read' ? 1 : Math.max(1, (JSON.parse(empty.text) as unknown[]).length);
		const room = Math.floor((fault.bytes - empty.text.length) / count) - 16;
		const log = fault.kind === 'denseLogs' ? denseLog(fault.unit, room) : 'x'.repeat(room);
		const echoed = fault.kind === 'keyInBigList' ? headerLines(headers) : undefined;
		const change = (text: string) => {
			if (echoed === undefined) return text;
			const parsed = JSON.parse(text) as Array<Record<string, unknown>>;
			if (parsed.length > 0) parsed[0] = { ...parsed[0], jobName: `sales ${echoed}`, message: echoed };
			return JSON.stringify(parsed);
		};
		this.sendSane(response, record, route, id, log, change, count, true);
	}

	private slow(response: ServerResponse, how: 'drip' | 'silent' | 'headersOnly'): void {
		if (how === 'silent') return;
		response.writeHead(200, { 'content-type': 'application/json', 'content-length': how === 'drip' ? '100000000' : '1000' });
		if (how === 'headersOnly') {
			response.flushHeaders();
			return;
		}
		const timer = setInterval(() => response.write(' '), 50);
		this.timers.add(timer);
		response.on('close', () => clearInterval(timer));
	}

	stop(): void {
		for (const timer of this.timers) clearInterval(timer);
	}
}

/**
 * Resolves once what had reached this process's sockets is read and handled. On loopback the child's bytes are queued
 * here before its next message is; a new connection takes one turn of the loop to accept and one to read, and a
 * request is handled on its 'end', so a few turns read it even when the message came first (a busy machine).
 */
export const INPUT_TURNS = { count: 4 };
async function inputRead(): Promise<void> {
	for (let turn = 0; turn < INPUT_TURNS.count; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}

async function listen(server: Server, sockets: Set<Socket>): Promise<string> {
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Big bodies are built before the child starts: built at request time on a loaded machine, they outlast the attempt. */
async function prebuild(scenario: Scenario): Promise<void> {
	await Promise.all(
		scenario.faults.map(async ({ fault }) => {
			if (fault.kind === 'bomb') await bomb(fault.encoding, fault.shape, fault.mib);
			if (fault.kind === 'hugeList') await hugeList(fault.items);
		}),
	);
}

export async function startFuzzService(scenario: Scenario): Promise<FuzzService> {
	await prebuild(scenario);
	const recorder = await startRecorder();
	const service = new Service(scenario, recorder.url);
	const sockets = new Set<Socket>();
	const server = createServer((message, response) => {
		message.resume();
		message.on('end', () => {
			service.handle(message, response).catch(() => response.destroy());
		});
	});
	const url = await listen(server, sockets);
	return {
		url,
		recorder,
		requests: service.requests,
		world: service.world,
		visible: service.visible,
		startPoll: async (poll) => {
			await inputRead();
			service.setPoll(poll);
		},
		close: async () => {
			service.stop();
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
			await recorder.close();
		},
	};
}
