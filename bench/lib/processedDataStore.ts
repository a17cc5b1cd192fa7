/**
 * The store behind n8n's "Remove Items Processed in Previous Executions", which n8n's server provides to
 * n8n-core's DataDeduplicationService from its database (table processed_data). The engine here has no
 * database, so this keeps the same record in memory, as that store does: one record per workflow and node (or
 * workflow), holding the MD5 (base64) of each value seen, appended in order and trimmed to the oldest-first
 * History Size; the count is the number of hashes kept. A record survives n8n restarts (it is in the database),
 * so it is never cleared here. Only the mode the Remove Duplicates node uses for key values ('entries') is
 * provided; the bench uses no other.
 */
import { createHash } from 'crypto';

import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
} from 'n8n-workflow';

interface ProcessedRecord {
	mode: string;
	data: string[];
}

function recordKey(scope: DeduplicationScope, context: ICheckProcessedContextData): string {
	if (scope === 'node' && !context.node) throw new Error("scope 'node' without a node");
	return `${String(context.workflow.id)} ${scope === 'node' ? `n:${context.node?.id}` : ''}`;
}

const hashOf = (value: DeduplicationItemTypes) => createHash('md5').update(String(value)).digest('base64');

function entriesOnly(options: ICheckProcessedOptions): void {
	if (options.mode !== 'entries') throw new Error(`the bench's processed-data store keeps only mode 'entries', not '${options.mode}'`);
}

export class InMemoryProcessedDataStore implements IDataDeduplicator {
	private readonly records = new Map<string, ProcessedRecord>();

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		entriesOnly(options);
		const key = recordKey(scope, context);
		const record = this.records.get(key) ?? { mode: options.mode, data: [] };
		if (record.mode !== options.mode) throw new Error('processed data was saved with another mode');
		const seen = new Set(record.data);
		const output: IDeduplicationOutput = { new: [], processed: [] };
		for (const item of items) {
			const hash = hashOf(item);
			if (seen.has(hash)) {
				output.processed.push(item);
			} else {
				output.new.push(item);
				record.data.push(hash);
				seen.add(hash);
			}
		}
		const maxEntries = Number(options.maxEntries ?? 0);
		if (maxEntries > 0 && record.data.length > maxEntries) record.data.splice(0, record.data.length - maxEntries);
		this.records.set(key, record);
		return output;
	}

	async removeProcessed(items: DeduplicationItemTypes[], scope: DeduplicationScope, context: ICheckProcessedContextData, options: ICheckProcessedOptions): Promise<void> {
		entriesOnly(options);
		const record = this.records.get(recordKey(scope, context));
		if (!record) return;
		const gone = new Set(items.map(hashOf));
		record.data = record.data.filter((hash) => !gone.has(hash));
	}

	async clearAllProcessedItems(scope: DeduplicationScope, context: ICheckProcessedContextData): Promise<void> {
		this.records.delete(recordKey(scope, context));
	}

	async getProcessedDataCount(scope: DeduplicationScope, context: ICheckProcessedContextData, options: ICheckProcessedOptions): Promise<number> {
		return options.mode === 'entries' ? (this.records.get(recordKey(scope, context))?.data.length ?? 0) : 0;
	}

	/** Bytes of the stored record of one workflow's node, as JSON (what n8n's database row holds as its value). */
	storedBytes(workflowId: string, nodeId: string): number {
		const record = this.records.get(`${workflowId} n:${nodeId}`);
		return record ? JSON.stringify(record).length : 0;
	}

	storedEntries(workflowId: string, nodeId: string): number {
		return this.records.get(`${workflowId} n:${nodeId}`)?.data.length ?? 0;
	}
}
