// Writes the `log` of a finished job in the grammar of docs/log-format.md (the nodes parse it).
import { createHash } from 'crypto';

import type { Outcome } from './catalog';
import { formatSeconds, formatTimestamp } from './formats';
import { mulberry32 } from './random';

export interface LogParameter {
	name: string;
	type: string;
	value: string;
}

export interface LogInput {
	jobId: string;
	jobName: string;
	flowId: string;
	flowName: string;
	flowFileName: string;
	notificationEnabled: boolean;
	parameters: LogParameter[];
	steps: number;
	stepMs: number;
	outcome: Outcome;
	startTime: number;
	nodes?: string[];
	reason?: string;
}

export interface PlannedNode {
	id: string;
	name: string;
}

const GENERATED_NODE_NAMES = [
	'Read input',
	'Filter rows',
	'Lookup (reference data)',
	'Derive columns',
	'Aggregate',
	'Sort',
	'Deduplicate',
	'Write output',
];

// Seeded from a text, so the same flow or job always gets the same log.
export function seededRandom(seedText: string): () => number {
	return mulberry32(createHash('sha256').update(seedText).digest().readUInt32LE(0));
}

// The node layout depends on the flow only (same flow, same nodes); rows depend on the job.
export function planNodes(flowId: string, steps: number, names?: string[]): PlannedNode[][] {
	const rnd = seededRandom(`nodes:${flowId}:${steps}`);
	const pool = names && names.length > 0 ? names : GENERATED_NODE_NAMES;
	const plan: PlannedNode[][] = [];
	let n = 0;
	for (let s = 0; s < steps; s++) {
		const count = 1 + Math.floor(rnd() * 3);
		const step: PlannedNode[] = [];
		for (let k = 0; k < count; k++) {
			step.push({ id: `node_${n + 1}`, name: pool[n % pool.length] });
			n++;
		}
		plan.push(step);
	}
	return plan;
}

// Cell escaping of the grammar: `\` -> `\\`, `|` -> `\|`, line break -> `\n`.
export function escapeCell(text: string): string {
	return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r\n|\r|\n/g, '\\n');
}

// Messages are one line.
function oneLine(text: string): string {
	return text.replace(/\r\n|\r|\n/g, ' ');
}

// key=value values never contain `, ` (the pairs' separator).
function kv(text: string): string {
	return oneLine(text).replace(/, /g, ',');
}

function row(cells: string[]): string {
	return `  | ${cells.map(escapeCell).join(' | ')} |`;
}

// Collects the log's lines; entry timestamps never go backwards and never pass the job's end.
class LogLines {
	readonly lines: string[] = [];
	private last: number;

	constructor(
		start: number,
		private readonly end: number,
	) {
		this.last = start;
	}

	entry(t: number, thread: string, level: string, message: string): void {
		this.last = Math.min(this.end, Math.max(this.last, t));
		this.lines.push(`${formatTimestamp(this.last)} [${thread}] ${level} ${oneLine(message)}`);
	}

	row(cells: string[]): void {
		this.lines.push(row(cells));
	}
}

function writeHeader(log: LogLines, job: LogInput): void {
	const start = job.startTime;
	log.entry(start, 'main', 'INFO', `Job execution details: jobId=${job.jobId}, jobName=${kv(job.jobName)}, jobType=RUNPROFILE, notificationEnabled=${job.notificationEnabled}`);
	log.entry(start + 1, 'main', 'INFO', `Execution details: flowId=${job.flowId}, flowName=${kv(job.flowName)}, type=FLOW, runItem=${kv(job.flowFileName)}`);
	if (job.parameters.length > 0) {
		log.entry(start + 2, 'main', 'INFO', 'Parameter set:');
		log.row(['Name', 'Type', 'Value']);
		for (const p of job.parameters) log.row([p.name, p.type, p.value]);
	}
}

// One PERFORMANCE line per node; returns the node that fails in a failing job (the last of the last step).
function writeSteps(log: LogLines, job: LogInput): PlannedNode | undefined {
	const plan = planNodes(job.flowId, job.steps, job.nodes);
	const rnd = seededRandom(`rows:${job.jobId}`);
	const failing = job.outcome !== 'COMPLETED';
	let failedNode: PlannedNode | undefined;
	for (let s = 0; s < job.steps; s++) {
		const stepStart = job.startTime + s * job.stepMs;
		const nodes = plan[s];
		// Split the step's time between its nodes; the last node ends with the step.
		const weights = nodes.map(() => 1 + rnd());
		const sum = weights.reduce((a, b) => a + b, 0);
		let used = 0;
		nodes.forEach((node, k) => {
			const elapsed = k === nodes.length - 1 ? job.stepMs - used : Math.floor((job.stepMs * weights[k]) / sum);
			used += elapsed;
			const hasRows = rnd() < 0.6;
			const rows = 100 + Math.floor(rnd() * 49900);
			if (failing && s === job.steps - 1 && k === nodes.length - 1) {
				failedNode = node;
				return;
			}
			let message = `Node ${node.id} (${node.name}): elapsed ${formatSeconds(elapsed)} seconds`;
			if (hasRows && elapsed > 0) message += `, rows ${rows}, ${(rows / (elapsed / 1000)).toFixed(2)} rows/s`;
			log.entry(stepStart + used, 'worker-1', 'PERFORMANCE', message);
		});
	}
	return failedNode;
}

function writeResults(log: LogLines, job: LogInput, failedNode: PlannedNode | undefined): void {
	const end = job.startTime + job.steps * job.stepMs;
	if (job.outcome === 'ERROR') {
		const node = failedNode as PlannedNode;
		log.entry(end, 'worker-1', 'INFO', `Step ${job.steps} failed: Node ${node.id} (${node.name}) failed: ${job.reason ?? 'node raised an error'}`);
	} else if (job.outcome === 'CANCELLED') {
		log.entry(end, 'main', 'INFO', `Step ${job.steps} cancelled: ${job.reason ?? 'cancelled by user'}`);
	}
	log.entry(end, 'main', 'INFO', 'Execution results:');
	log.row(['Step', 'Status', 'Runtime']);
	for (let s = 1; s <= job.steps; s++) log.row([`Step ${s}`, s === job.steps ? job.outcome : 'COMPLETED', `${formatSeconds(job.stepMs)} seconds`]);
	const total = `${formatSeconds(end - job.startTime)} seconds`;
	log.row(['Total', job.outcome, total]);
	log.entry(end, 'main', 'INFO', `Job ${job.jobName} finished with status ${job.outcome} in ${total}`);
}

export function buildJobLog(job: LogInput): string {
	const log = new LogLines(job.startTime, job.startTime + job.steps * job.stepMs);
	writeHeader(log, job);
	writeResults(log, job, writeSteps(log, job));
	return log.lines.join('\n');
}
