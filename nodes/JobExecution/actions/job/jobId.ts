import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions } from 'n8n-workflow';

import { describeType, jobIdProblem } from '../../../shared/jobVocabulary';
import { itemParameter } from '../../helpers/itemParameters';

/**
 * The resource locator's value, or the plain string older workflows saved: what n8n's `extractValue` gives for a
 * locator whose modes have no extractValue pattern (n8n-core extract-value.js, extractValueRLC), without n8n's
 * search of the node's fields for it on every item.
 */
function locatorValue(raw: unknown): unknown {
	return typeof raw === 'object' && raw !== null && 'mode' in raw && 'value' in raw ? raw.value : raw;
}

/** The Job ID of an item: trimmed, and refused when it could not name exactly one job. */
export function readJobId(context: IExecuteFunctions, itemIndex: number): string {
	const raw = locatorValue(itemParameter(context, 'jobId', itemIndex, ''));
	const jobId = typeof raw === 'string' ? raw.trim() : typeof raw === 'number' ? String(raw) : '';
	const given = raw === undefined || raw === null || typeof raw === 'string' || typeof raw === 'number' ? null : describeType(raw);
	const problem = given ? `must be text, got ${given}` : jobIdProblem(jobId);
	if (problem) {
		throw new NodeOperationError(context.getNode(), `Job ID ${problem} [item ${itemIndex}]`, {
			itemIndex,
			description: 'Use the jobId returned by Submit, e.g. {{ $json.jobId }}.',
		});
	}
	return jobId;
}
