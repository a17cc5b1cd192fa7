import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions } from 'n8n-workflow';

import { describeType, jobIdProblem } from '../../../shared/jobVocabulary';

/** The Job ID of an item: trimmed, and refused when it could not name exactly one job. */
export function readJobId(context: IExecuteFunctions, itemIndex: number): string {
	// extractValue: the resource locator's value, or the plain string older workflows saved.
	const raw = context.getNodeParameter('jobId', itemIndex, '', { extractValue: true });
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
