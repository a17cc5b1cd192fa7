/**
 * Bodies the fuzzing service sends: compression bombs that are small on the wire, huge lists, deep nesting and logs
 * built to make a parser backtrack. Big ones are built once per process (streamed through zlib, never whole in
 * memory) and kept; a multi-member gzip repeats one compressed member, so 528 MiB costs one MiB of work.
 */
import { brotliCompressSync, constants, createBrotliCompress, createDeflate, createGzip, deflateSync, gzipSync } from 'node:zlib';
import type { Transform } from 'node:stream';

export type Encoding = 'identity' | 'gzip' | 'multiGzip' | 'deflate' | 'br';

/**
 * What a bomb decodes to: a JSON array of zeros, a job whose log is huge, a list of that job, or a list of one job whose
 * `counts` field holds numbers only (each one value a parser keeps: 24 MiB make 12.6 million).
 */
export type BombShape = 'zeros' | 'log' | 'logList' | 'numberList';

export const FUZZ_JOB_ID = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const MIB = 1024 * 1024;

export interface WireBody {
	/** The bytes sent, after content coding. */
	bytes: Buffer;
	/** The Content-Encoding header (none for identity). */
	encoding?: string;
	/** Bytes once decoded, for reports. */
	decodedBytes: number;
}

function encoder(encoding: Exclude<Encoding, 'identity' | 'multiGzip'>): Transform {
	if (encoding === 'br') {
		return createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_LGWIN]: 24 } });
	}
	return encoding === 'gzip' ? createGzip({ level: 9 }) : createDeflate({ level: 9 });
}

/** Streams `parts` through one encoder; memory stays at one part plus the (small) output. */
async function encodeParts(encoding: Exclude<Encoding, 'identity' | 'multiGzip'>, parts: Iterable<Buffer>): Promise<Buffer> {
	const stream = encoder(encoding);
	const out: Buffer[] = [];
	stream.on('data', (chunk: Buffer) => out.push(chunk));
	const ended = new Promise<void>((resolve, reject) => {
		stream.on('end', resolve);
		stream.on('error', reject);
	});
	for (const part of parts) {
		if (!stream.write(part)) await new Promise((resolve) => stream.once('drain', resolve));
	}
	stream.end();
	await ended;
	return Buffer.concat(out);
}

function jobHead(id: string): string {
	return `{"id":"${id}","jobName":"sales_default","flowName":"sales","runProfileName":"default","executionStatus":"COMPLETED","startTime":1767603600000,"endTime":1767603660000,"log":"`;
}

/** Prefix, filler repeated to `mib` MiB, suffix: the three parts of every bomb. */
function bombParts(shape: BombShape, mib: number): { prefix: string; filler: Buffer; count: number; suffix: string } {
	if (shape === 'zeros') return { prefix: '[', filler: Buffer.from('0,'.repeat(MIB / 2)), count: mib, suffix: '0]' };
	if (shape === 'numberList') {
		const job = JSON.stringify(saneJob(FUZZ_JOB_ID, 'COMPLETED', { start: 1, end: 2 }));
		return { prefix: `[${job.slice(0, -1)},"counts":[`, filler: Buffer.from('0,'.repeat(MIB / 2)), count: mib, suffix: '0]}]' };
	}
	const prefix = shape === 'log' ? jobHead(FUZZ_JOB_ID) : `[${jobHead(FUZZ_JOB_ID)}`;
	const suffix = shape === 'log' ? '"}' : '"}]';
	return { prefix, filler: Buffer.alloc(MIB, 'A'), count: mib, suffix };
}

const cache = new Map<string, Promise<WireBody>>();

/** A compression bomb of `mib` MiB decoded, in the given coding. */
export function bomb(encoding: Exclude<Encoding, 'identity'>, shape: BombShape, mib: number): Promise<WireBody> {
	const key = `bomb:${encoding}:${shape}:${mib}`;
	let built = cache.get(key);
	if (!built) {
		built = buildBomb(encoding, shape, mib);
		cache.set(key, built);
	}
	return built;
}

async function buildBomb(encoding: Exclude<Encoding, 'identity'>, shape: BombShape, mib: number): Promise<WireBody> {
	const { prefix, filler, count, suffix } = bombParts(shape, mib);
	const decodedBytes = prefix.length + filler.length * count + suffix.length;
	if (encoding === 'multiGzip') {
		// Concatenated gzip members decode to the concatenation of their contents (RFC 1952 §2.2).
		const member = gzipSync(filler, { level: 9 });
		const bytes = Buffer.concat([gzipSync(prefix), ...Array.from({ length: count }, () => member), gzipSync(suffix)]);
		return { bytes, encoding: 'gzip', decodedBytes };
	}
	function* parts(): Generator<Buffer> {
		yield Buffer.from(prefix);
		for (let i = 0; i < count; i++) yield filler;
		yield Buffer.from(suffix);
	}
	return { bytes: await encodeParts(encoding, parts()), encoding, decodedBytes };
}

/** A spec-shaped JobStatus. */
export function saneJob(id: string, status: string, times: { start?: unknown; end?: unknown } = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		id,
		jobType: 'RUNPROFILE',
		jobName: 'sales_default',
		flowName: 'sales',
		runProfileName: 'default',
		runProfile: 'sales_default',
		executionStatus: status,
		startTime: times.start ?? null,
		endTime: times.end ?? null,
		log: times.end === undefined || times.end === null ? null : `2026-01-05 09:00:00 [main] INFO Job ${id} finished with status ${status}`,
		...extra,
	};
}

/** A list of `items` small jobs (1,000,000 decode to about 120 MB), gzip-coded: what one Get Many would output. */
export function hugeList(items: number): Promise<WireBody> {
	const key = `list:${items}`;
	let built = cache.get(key);
	if (!built) {
		built = (async () => {
			const per = 10_000;
			let decodedBytes = 0;
			function* parts(): Generator<Buffer> {
				for (let start = 0; start < items; start += per) {
					const rows: string[] = [];
					for (let n = start; n < Math.min(items, start + per); n++) {
						rows.push(JSON.stringify(saneJob(`00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, 'COMPLETED', { start: 1, end: 2 })));
					}
					const text = (start === 0 ? '[' : ',') + rows.join(',') + (start + per >= items ? ']' : '');
					decodedBytes += text.length;
					yield Buffer.from(text);
				}
			}
			const bytes = await encodeParts('gzip', parts());
			return { bytes, encoding: 'gzip', decodedBytes };
		})();
		cache.set(key, built);
	}
	return built;
}

/** JSON text of a job whose `extra` field is nested `depth` levels deep (200,000 take 1.2 MB). */
export function deepJob(depth: number, list: boolean): string {
	const job = `{"id":"${FUZZ_JOB_ID}","executionStatus":"COMPLETED","startTime":1,"endTime":2,"extra":${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}}`;
	return list ? `[${job}]` : job;
}

/**
 * A log built to make a regular expression backtrack: one performance line padded with blanks before a stray
 * character, or lines that open a bracket and never close it. Linear parsing reads either in milliseconds.
 */
export function adversarialLog(pattern: 'blanks' | 'unclosed', size: number): string {
	if (pattern === 'blanks') return `2026-01-05 09:00:00 [main] PERFORMANCE Node node_1 (Read): elapsed 1${' '.repeat(size)}x\n`;
	return '2026-01-05 09:00:00 [x\n'.repeat(size);
}

/** Encodes a small text body in the given coding (bombs use bomb()). */
export function encodeSmall(text: string, encoding: Encoding): WireBody {
	const raw = Buffer.from(text);
	if (encoding === 'identity') return { bytes: raw, decodedBytes: raw.length };
	if (encoding === 'multiGzip') {
		const half = Math.floor(raw.length / 2);
		return { bytes: Buffer.concat([gzipSync(raw.subarray(0, half)), gzipSync(raw.subarray(half))]), encoding: 'gzip', decodedBytes: raw.length };
	}
	const bytes = encoding === 'gzip' ? gzipSync(raw) : encoding === 'deflate' ? deflateSync(raw) : brotliCompressSync(raw);
	return { bytes, encoding, decodedBytes: raw.length };
}

/** Ids a JSON list may carry that no URL can: the listed job must be that job's trouble, never the list's. */
export const ILL_FORMED_IDS = ['job-\ud800-x', '\udfff-job'];
/** A whole number past 2^53 written in full (its digits are not a double's) and one past a double's range. */
export const BIG_NUMBER_LITERALS = ['9007199254740993', '123456789012345678901234567890', '1e400'];

/**
 * The sane answer `text` with odd values JSON allows: lone surrogates in each job's text fields (and, in a list, an
 * extra running job whose id holds one), or numbers beyond 2^53 in extra fields (and, in a list, a job whose id is
 * such a number). Job ids, statuses and times stay as they were: sane jobs must still be reported as such.
 */
export function withOddValues(text: string, form: 'loneSurrogates' | 'bigNumbers'): string {
	const parsed = JSON.parse(text) as unknown;
	const isJob = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value) && 'executionStatus' in value;
	const mark = (n: number) => `@@big${n}@@`;
	const odd = (job: Record<string, unknown>) =>
		form === 'loneSurrogates'
			? { ...job, flowName: `${String(job.flowName)}\ud800`, runProfileName: `\udfff${String(job.runProfileName)}`, jobName: 'a\udbffb', currentStep: '\ud800' }
			: { ...job, rows: mark(0), bytes: mark(1), weight: mark(2) };
	let out: unknown = parsed;
	if (Array.isArray(parsed)) {
		const extra = form === 'loneSurrogates'
			? ILL_FORMED_IDS.map((id) => saneJob(id, 'RUNNING', { start: 1767603600000 }))
			: [{ ...saneJob('placeholder', 'RUNNING', { start: 1767603600000 }), id: mark(1) }];
		out = [...parsed.map((job) => (isJob(job) ? odd(job) : job)), ...extra];
	} else if (isJob(parsed)) out = odd(parsed);
	return BIG_NUMBER_LITERALS.reduce((json, literal, n) => json.split(JSON.stringify(mark(n))).join(literal), JSON.stringify(out));
}
