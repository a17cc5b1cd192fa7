/**
 * This process's latest state per trigger (workflow, node, service), so that a re-activation, which reloads the
 * static data n8n last saved (in its default mode only when a poll emitted), goes on from the newer state. It is
 * used only when every poll since the stored state fired nothing (so no event depends on a save that may have
 * failed), and when the stored state carries a stamp this process wrote or has no baseline yet (a durable cursor
 * whose activation poll fired nothing is not committed). It does not survive a restart.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import type { ResolvedConnection } from '../shared/transport';
import { loadState } from './jobStatusTracker';
import type { TrackerState } from './jobStatusTracker';

const recentStates = new Map<string, { state: TrackerState; polls: Array<{ stamp: string; emitted: boolean }>; at: number }>();
const PROCESS_MARK = Math.random().toString(36).slice(2, 10);
/** An unsaved baseline older than this is not used: the user expects "from now on" to mean now. */
const MEMORY_FRESH_MS = 15 * 60_000;
const MAX_REMEMBERED_TRIGGERS = 500;
const MAX_REMEMBERED_POLLS = 64;

/** One trigger in this process: its workflow, its node and the service it polls. */
export function memoryKey(context: IPollFunctions, connection: ResolvedConnection): string {
	return JSON.stringify([context.getWorkflow().id, context.getNode().id, connection.credentialType, connection.baseUrl]);
}

/** The state a poll starts from: the stored one, or this process's newer one where that is safe. */
export function resumeState(key: string, staticData: IDataObject): TrackerState {
	const stored = loadState(staticData.tracker);
	const memory = recentStates.get(key);
	if (memory === undefined || memory.state.seq <= stored.seq) return stored;
	const index = memory.polls.findIndex((poll) => poll.stamp === staticData.stamp);
	const fresh = Date.now() - memory.at < MEMORY_FRESH_MS;
	if (index < 0 && (stored.initialized || !fresh)) return stored;
	return memory.polls.slice(index + 1).some((poll) => poll.emitted) ? stored : memory.state;
}

/** Keeps a poll's new state in this process; the stamp it returns goes into the static data beside it. */
export function remember(key: string, state: TrackerState, emitted: boolean): string {
	const stamp = `${PROCESS_MARK}:${state.seq}`;
	const polls = [...(recentStates.get(key)?.polls ?? []), { stamp, emitted }].slice(-MAX_REMEMBERED_POLLS);
	recentStates.delete(key);
	recentStates.set(key, { state, polls, at: Date.now() });
	if (recentStates.size > MAX_REMEMBERED_TRIGGERS) recentStates.delete(recentStates.keys().next().value as string);
	return stamp;
}
