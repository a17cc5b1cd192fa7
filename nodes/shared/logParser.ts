/**
 * Parser for the `log` text of a finished job (grammar: docs/log-format.md).
 *
 * Pure and tolerant: no I/O, never throws, and every input line ends up somewhere in the
 * result (an entry, a table row, an entry's `extraLines`, or `unknownLines`).
 */
import { parseRuntimeSeconds } from './jobVocabulary';

export type JobLogEntry = {
	time: string;
	thread: string;
	level: string;
	message: string;
	/** Header row first, cells unescaped. */
	table?: string[][];
	/** Continuation lines that are not table rows. */
	extraLines?: string[];
};

export type JobLogParameter = {
	name: string;
	type: string;
	value: string;
};

export type JobLogNodePerformance = {
	nodeId: string;
	node: string;
	elapsedSeconds: number;
	rows?: number;
	rowsPerSecond?: number;
};

export type JobLogStepResult = {
	step: string;
	status: string;
	runtime: string;
	runtimeSeconds: number | null;
};

export type JobLogTotal = {
	status: string;
	runtime: string;
	runtimeSeconds: number | null;
};

export type JobLogFailure = {
	step: string;
	kind: 'failed' | 'cancelled';
	reason: string;
};

export type ParsedJobLog = {
	entries: JobLogEntry[];
	jobDetails: Record<string, string>;
	executionDetails: Record<string, string>;
	parameters: JobLogParameter[];
	nodePerformance: JobLogNodePerformance[];
	stepResults: JobLogStepResult[];
	total: JobLogTotal | null;
	failure: JobLogFailure | null;
	completionMessage: string | null;
	finalStatus: string | null;
	unknownLines: string[];
};

// All regexes are anchored and use the `s` flag so that a stray \u2028 or lone \r inside a line
// cannot make `.` stop early and the match fail.
const NUM = '[+-]?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?';
const ENTRY_RE =
	/^(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)[ \t]+\[([^\]]*)\][ \t]+([A-Z][A-Z0-9_]*)(?:[ \t]+(.*))?$/s;
const JOB_DETAILS = 'Job execution details:';
const EXECUTION_DETAILS = 'Execution details:';
// What follows `): elapsed ` in a performance line, on text whose trailing whitespace is already gone: one
// optional blank run before each optional part, anchored at both ends, so no two quantifiers share the same blanks.
const PERFORMANCE_TAIL_RE = new RegExp(
	`^(${NUM})(?:[ \\t]*(?:seconds?|secs?|s))?(?:[ \\t]*,[ \\t]*rows[ \\t]+(${NUM})(?:[ \\t]*,[ \\t]*(${NUM})[ \\t]*rows/s)?)?$`,
);
const PERFORMANCE_HEAD_RE = /^Node[ \t]+(\S+)[ \t]+\(/;
const ELAPSED_RE = /\):[ \t]+elapsed[ \t]+/y;
// Step ids are `Step <n>`; `\S+` (not `.+?`) keeps the match linear on long runs of spaces.
const FAILURE_RE = /^(Step[ \t]+\S+)[ \t]+(failed|cancell?ed):[ \t]?(.*)$/is;
const COMPLETION_MARK = ' finished with status ';

const CODE_PIPE = 124; // |
const CODE_BACKSLASH = 92; // \

/**
 * Logs longer than this are kept raw, not parsed: parsing is linear, but a bounded log bounds the time one item
 * blocks the event loop (bench/figures/logParser.ts measures it at this size).
 */
export const MAX_PARSED_LOG_CHARS = 1024 * 1024;

// One line at a time (never `m` over the whole log): the thread may not hold a newline, so no match runs past its line.
// Sticky, tried at each line start in place (no copy of the line).
const ENTRY_START_RE = /\uFEFF?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?[ \t]+\[[^\]\n]*\][ \t]+[A-Z]/y;

/**
 * One line read as an entry of the grammar (time, thread, level, message), or null when it is not one. Linear in the
 * line (the regex is anchored and its parts cannot overlap).
 */
export function readEntryLine(line: string): Pick<JobLogEntry, 'time' | 'thread' | 'level' | 'message'> | null {
	const m = ENTRY_RE.exec(line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line);
	return m ? { time: m[1], thread: m[2], level: m[3], message: m[4] ?? '' } : null;
}

/** True for a string that contains at least one log entry line, i.e. parsing yields structure. Linear in the text. */
export function isParsableLog(value: unknown): value is string {
	if (typeof value !== 'string' || value.length === 0) return false;
	for (let start = 0; start < value.length; ) {
		let end = value.indexOf('\n', start);
		if (end === -1) end = value.length;
		const first = value.charCodeAt(start);
		// Only lines starting with a digit (or the BOM) can be entries: the regex never runs on the others.
		if ((first >= 48 && first <= 57) || first === 0xfeff) {
			ENTRY_START_RE.lastIndex = start;
			if (ENTRY_START_RE.test(value)) return true;
		}
		start = end + 1;
	}
	return false;
}

/** Sets a key without letting `__proto__` change the prototype of the result object. */
function setKey(target: Record<string, string>, key: string, value: string): void {
	if (key === '__proto__') {
		Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
	} else {
		target[key] = value;
	}
}

/** `k=v, k=v` into `target`; a fragment without `=` is a value that contained `, ` after all. */
function parseKeyValues(text: string, target: Record<string, string>): void {
	const parts = text.split(', ');
	let lastKey: string | null = null;
	for (const part of parts) {
		const eq = part.indexOf('=');
		if (eq > 0) {
			lastKey = part.slice(0, eq).trim();
			setKey(target, lastKey, part.slice(eq + 1).trim());
		} else if (lastKey !== null) {
			setKey(target, lastKey, `${target[lastKey]}, ${part.trim()}`);
		} else if (part.trim() !== '') {
			lastKey = part.trim();
			setKey(target, lastKey, '');
		}
	}
}

/** Strips the one padding space the grammar puts on each side of a cell. */
function unpad(cell: string): string {
	const start = cell.charCodeAt(0) === 32 ? 1 : 0;
	const end = cell.length > start && cell.charCodeAt(cell.length - 1) === 32 ? cell.length - 1 : cell.length;
	return start === 0 && end === cell.length ? cell : cell.slice(start, end);
}

/**
 * Cells of a table row (`line` already known to start with `|` after indentation and end with `|`).
 * Splits on unescaped `|` and unescapes `\\`, `\|`, `\n`; other backslashes are kept as written.
 */
function parseRow(line: string, open: number, close: number): string[] {
	const backslash = line.indexOf('\\', open + 1);
	// Fast path: no escapes, so slice each cell straight out of the line (one string per cell).
	if (backslash === -1 || backslash > close) {
		const cells: string[] = [];
		let from = open + 1;
		while (from <= close) {
			let to = line.indexOf('|', from);
			if (to === -1 || to > close) to = close;
			let a = from;
			let b = to;
			if (line.charCodeAt(a) === 32 && a < b) a++;
			if (line.charCodeAt(b - 1) === 32 && b > a) b--;
			cells.push(line.slice(a, b));
			from = to + 1;
		}
		return cells;
	}
	const inner = line.slice(open + 1, close);
	const cells: string[] = [];
	let pieces: string[] = [];
	let from = 0;
	for (let i = 0; i < inner.length; i++) {
		const c = inner.charCodeAt(i);
		if (c === CODE_PIPE) {
			pieces.push(inner.slice(from, i));
			cells.push(pieces.join(''));
			pieces = [];
			from = i + 1;
		} else if (c === CODE_BACKSLASH && i + 1 < inner.length) {
			const next = inner.charCodeAt(i + 1);
			if (next === CODE_BACKSLASH || next === CODE_PIPE || next === 110 /* n */) {
				pieces.push(inner.slice(from, i), next === 110 ? '\n' : inner[i + 1]);
				i++;
				from = i + 1;
			}
		}
	}
	pieces.push(inner.slice(from));
	cells.push(pieces.join(''));
	// Unpad the raw text only: an escaped trailing space does not exist, so unpadding after is safe.
	for (let i = 0; i < cells.length; i++) cells[i] = unpad(cells[i]);
	return cells;
}

/**
 * Position of the closing `|` if `line` is a table row (indentation, `|`, ..., unescaped `|`,
 * optional trailing whitespace), else -1. `open` is the index of the first `|`.
 */
function rowClose(line: string, open: number): number {
	let end = line.length - 1;
	while (end > open && (line.charCodeAt(end) === 32 || line.charCodeAt(end) === 9)) end--;
	if (end <= open || line.charCodeAt(end) !== CODE_PIPE) return -1;
	// The closing pipe must not be escaped: count the backslashes just before it.
	let slashes = 0;
	for (let i = end - 1; i > open && line.charCodeAt(i) === CODE_BACKSLASH; i--) slashes++;
	return slashes % 2 === 0 ? end : -1;
}

/** Index of the first `|` when the line is only indentation before it, else -1. */
function rowOpen(line: string): number {
	let i = 0;
	while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++;
	return i < line.length && line.charCodeAt(i) === CODE_PIPE ? i : -1;
}

function normaliseHeader(cells: string[]): string[] {
	return cells.map((c) => c.trim().toLowerCase());
}

function emptyResult(): ParsedJobLog {
	return {
		entries: [],
		jobDetails: {},
		executionDetails: {},
		parameters: [],
		nodePerformance: [],
		stepResults: [],
		total: null,
		failure: null,
		completionMessage: null,
		finalStatus: null,
		unknownLines: [],
	};
}

/** Feeds a finished table into the structured fields when its header is one we know. */
function collectTable(table: string[][], result: ParsedJobLog): void {
	const header = normaliseHeader(table[0]);
	const name = header.indexOf('name');
	const type = header.indexOf('type');
	const value = header.indexOf('value');
	if (name !== -1 && type !== -1 && value !== -1) {
		for (let r = 1; r < table.length; r++) {
			const row = table[r];
			if (row.length <= Math.max(name, type, value)) continue;
			result.parameters.push({ name: row[name], type: row[type], value: row[value] });
		}
		return;
	}
	const step = header.indexOf('step');
	const status = header.indexOf('status');
	const runtime = header.indexOf('runtime');
	if (step !== -1 && status !== -1 && runtime !== -1) {
		for (let r = 1; r < table.length; r++) {
			const row = table[r];
			if (row.length <= Math.max(step, status, runtime)) continue;
			const runtimeText = row[runtime];
			const runtimeSeconds = parseRuntimeSeconds(runtimeText);
			if (row[step].trim().toLowerCase() === 'total') {
				result.total = { status: row[status], runtime: runtimeText, runtimeSeconds };
			} else {
				result.stepResults.push({ step: row[step], status: row[status], runtime: runtimeText, runtimeSeconds });
			}
		}
	}
}

function optionalNumber(text: string | undefined): number | undefined {
	if (text === undefined) return undefined;
	const n = Number(text);
	return Number.isFinite(n) ? n : undefined;
}

/** `Job details: …`, or `Job <jobName> finished with status <STATUS> in <s> seconds`. */
function readJobLine(message: string, result: ParsedJobLog): boolean {
	if (message.startsWith(JOB_DETAILS)) {
		parseKeyValues(message.slice(JOB_DETAILS.length), result.jobDetails);
		return false;
	}
	// indexOf, not a regex with `.+`, so a huge line cannot backtrack quadratically.
	if (!message.startsWith('Job ')) return false;
	const at = message.lastIndexOf(COMPLETION_MARK);
	if (at <= 3 || message.slice(4, at).trim() === '') return false;
	const status = /^\S+/.exec(message.slice(at + COMPLETION_MARK.length).trimStart());
	if (status) {
		result.completionMessage = message.trim();
		result.finalStatus = status[0];
	}
	return false;
}

function readExecutionDetails(message: string, result: ParsedJobLog): boolean {
	if (message.startsWith(EXECUTION_DETAILS)) parseKeyValues(message.slice(EXECUTION_DETAILS.length), result.executionDetails);
	return false;
}

/**
 * `Node <id> (<name>): elapsed <n> seconds[, rows <n>[, <n> rows/s]]`. The name ends at the first `): elapsed `
 * (names may contain parentheses); found with indexOf and a sticky regex, so the line is read in linear time.
 */
function readNodePerformance(message: string, result: ParsedJobLog): boolean {
	const head = PERFORMANCE_HEAD_RE.exec(message);
	if (!head) return false;
	const nameStart = head[0].length;
	let tail: RegExpExecArray | null = null;
	let close = message.indexOf('):', nameStart);
	for (; close !== -1; close = message.indexOf('):', close + 2)) {
		ELAPSED_RE.lastIndex = close;
		if (ELAPSED_RE.test(message)) {
			tail = PERFORMANCE_TAIL_RE.exec(message.slice(ELAPSED_RE.lastIndex).trimEnd());
			break;
		}
	}
	if (!tail) return false;
	const elapsed = Number(tail[1]);
	if (!Number.isFinite(elapsed)) return false;
	const perf: JobLogNodePerformance = { nodeId: head[1], node: message.slice(nameStart, close), elapsedSeconds: elapsed };
	const rows = optionalNumber(tail[2]);
	if (rows !== undefined) perf.rows = rows;
	const rate = optionalNumber(tail[3]);
	if (rate !== undefined) perf.rowsPerSecond = rate;
	result.nodePerformance.push(perf);
	return false;
}

/** The first step failure or cancellation; true when this message is one (its continuation lines follow). */
function readFailure(message: string, result: ParsedJobLog): boolean {
	if (result.failure !== null) return false;
	const m = FAILURE_RE.exec(message);
	if (!m) return false;
	const kind = m[2].toLowerCase() === 'failed' ? 'failed' : 'cancelled';
	result.failure = { step: m[1], kind, reason: m[3].trim() };
	return true;
}

/** Readers by the first character of a message: unknown messages never run every regex. */
const READERS_BY_FIRST_CHARACTER: Record<string, (message: string, result: ParsedJobLog) => boolean> = {
	J: readJobLine,
	E: readExecutionDetails,
	N: readNodePerformance,
	S: readFailure,
	s: readFailure,
};

/** Structured fields a single entry message carries (tables and continuation lines come later). */
function classifyMessage(entry: JobLogEntry, result: ParsedJobLog): boolean {
	const reader = Object.prototype.hasOwnProperty.call(READERS_BY_FIRST_CHARACTER, entry.message.charAt(0))
		? READERS_BY_FIRST_CHARACTER[entry.message.charAt(0)]
		: undefined;
	return reader ? reader(entry.message, result) : false;
}

/** Parses a job log. Never throws; lines it cannot classify are kept, not dropped. */
export function parseJobLog(log: string): ParsedJobLog {
	const result = emptyResult();
	if (typeof log !== 'string' || log.length === 0) return result;
	try {
		parseInto(log, result);
	} catch {
		// Defensive only: the parser has no known throwing path, but a log must never fail an item.
		return salvage(log);
	}
	return result;
}

/** Fallback result that still keeps every line. */
function salvage(log: string): ParsedJobLog {
	const result = emptyResult();
	result.unknownLines = log.split('\n');
	return result;
}

function parseInto(log: string, result: ParsedJobLog): void {
	if (log.charCodeAt(0) === 0xfeff) log = log.slice(1);
	if (log === '') return;
	const lines = log.split('\n');
	// A terminating newline does not start another line.
	if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();

	const { entries, unknownLines } = result;
	let current: JobLogEntry | null = null;
	let failureEntry: JobLogEntry | null = null;

	for (let i = 0; i < lines.length; i++) {
		let line = lines[i];
		if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);

		// Entries start with a digit; checking it first keeps the regex off most other lines.
		const first = line.charCodeAt(0);
		if (first >= 48 && first <= 57) {
			const m = ENTRY_RE.exec(line);
			if (m) {
				current = { time: m[1], thread: m[2], level: m[3], message: m[4] ?? '' };
				entries.push(current);
				if (classifyMessage(current, result)) failureEntry = current;
				continue;
			}
		}

		if (current === null) {
			unknownLines.push(line);
			continue;
		}

		const open = rowOpen(line);
		if (open !== -1) {
			const close = rowClose(line, open);
			if (close !== -1) {
				const row = parseRow(line, open, close);
				if (current.table) current.table.push(row);
				else current.table = [row];
				continue;
			}
		}

		if (current.extraLines) current.extraLines.push(line);
		else current.extraLines = [line];
	}

	for (const entry of entries) {
		if (entry.table) collectTable(entry.table, result);
	}
	// A multi-line reason continues on the lines after the failure entry.
	if (failureEntry?.extraLines && result.failure) {
		result.failure.reason = [result.failure.reason, ...failureEntry.extraLines].join('\n').trim();
	}
}
