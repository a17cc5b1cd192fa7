/**
 * The bench's stand-in for n8n's database-backed processed-data store (what Remove Duplicates' "Remove Items
 * Processed in Previous Executions" records): its answers decide the polling workflow's figures, so they are
 * pinned here to the behaviour of n8n's store: new vs processed per value, oldest entries dropped past the
 * History Size, one record per workflow and node.
 */
import type { ICheckProcessedContextData } from 'n8n-workflow';

import { InMemoryProcessedDataStore } from '../../bench/lib/processedDataStore';

const context = (workflowId: string, nodeId: string): ICheckProcessedContextData =>
	({ workflow: { id: workflowId, active: true }, node: { id: nodeId } }) as unknown as ICheckProcessedContextData;

test('values are new once, processed afterwards, across calls', async () => {
	const store = new InMemoryProcessedDataStore();
	const ctx = context('w1', 'n1');
	expect(await store.checkProcessedAndRecord(['a', 'b'], 'node', ctx, { mode: 'entries', maxEntries: 10 })).toEqual({ new: ['a', 'b'], processed: [] });
	expect(await store.checkProcessedAndRecord(['b', 'c', 'c'], 'node', ctx, { mode: 'entries', maxEntries: 10 })).toEqual({ new: ['c'], processed: ['b', 'c'] });
	expect(await store.getProcessedDataCount('node', ctx, { mode: 'entries' })).toBe(3);
	expect(store.storedEntries('w1', 'n1')).toBe(3);
	// 24 characters per MD5 in base64, in a JSON record.
	expect(store.storedBytes('w1', 'n1')).toBe(JSON.stringify({ mode: 'entries', data: ['x'.repeat(24), 'x'.repeat(24), 'x'.repeat(24)] }).length);
});

test('past the History Size the oldest values are dropped and become new again', async () => {
	const store = new InMemoryProcessedDataStore();
	const ctx = context('w1', 'n1');
	await store.checkProcessedAndRecord(['1', '2', '3'], 'node', ctx, { mode: 'entries', maxEntries: 3 });
	await store.checkProcessedAndRecord(['4'], 'node', ctx, { mode: 'entries', maxEntries: 3 });
	expect(await store.getProcessedDataCount('node', ctx, { mode: 'entries' })).toBe(3);
	expect(await store.checkProcessedAndRecord(['1', '4'], 'node', ctx, { mode: 'entries', maxEntries: 3 })).toEqual({ new: ['1'], processed: ['4'] });
});

test('one record per workflow and node; other modes are refused', async () => {
	const store = new InMemoryProcessedDataStore();
	await store.checkProcessedAndRecord(['a'], 'node', context('w1', 'n1'), { mode: 'entries' });
	expect(await store.checkProcessedAndRecord(['a'], 'node', context('w1', 'n2'), { mode: 'entries' })).toEqual({ new: ['a'], processed: [] });
	expect(await store.checkProcessedAndRecord(['a'], 'node', context('w2', 'n1'), { mode: 'entries' })).toEqual({ new: ['a'], processed: [] });
	await store.clearAllProcessedItems('node', context('w1', 'n1'));
	expect(store.storedEntries('w1', 'n1')).toBe(0);
	await expect(store.checkProcessedAndRecord([1], 'node', context('w1', 'n1'), { mode: 'latestIncrementalKey' })).rejects.toThrow(/entries/);
});
