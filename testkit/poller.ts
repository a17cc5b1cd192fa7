/**
 * Polls the trigger through n8n-core's real PollContext, and saves its static data the way n8n's server does.
 *
 * The n8n behaviours this stand-in assumes (read in n8n 2.41.1's server package `n8n/dist/…`, n8n-core 2.41.1 in
 * node_modules, and n8n 1.123.81's `active-workflow-manager.js`; the e2e tests in test/e2e check them in real hosts):
 *
 * Default mode (every n8n line; 2.41 without durable cursors):
 *  D1. A poll's static data lives in the in-memory Workflow; a poll that returns null saves nothing
 *      (n8n-core `execution-engine/poll-trigger-executor.js`: a null poll only calls `commitStagedCursor`, which
 *      does nothing without durable cursors).
 *  D2. A poll that emits saves the workflow's static data, fire-and-forget, before the execution runs
 *      (`workflows/triggers/trigger-execution-context.factory.js` `__emit`: `void saveStaticData(workflow)`;
 *      1.x: `active-workflow-manager.js` `__emit`). A crash between the emit and that save loses the save.
 *  D3. Activation (n8n start, publishing, saving an active workflow) builds a new Workflow from the database's
 *      static data, runs one poll at once (n8n-core `active-workflow-triggers.js` `activatePollTrigger`:
 *      `executePollTrigger(true)`) and saves the static data after it (end of `ActiveWorkflowManager.add` in
 *      `active-workflow-manager.js`). So a restart or re-activation goes back to the last saved version.
 *  D4. A poll that throws saves nothing; its in-memory changes stay for the next poll (`__emitError` records a
 *      failed execution only).
 *  D5. A restart loads the package's modules again: nothing in a module's memory survives it.
 *
 * Durable poll cursors (2.41 with N8N_SCHEDULER_ENABLED, N8N_SCHEDULER_POLL_TRIGGERS_ENABLED,
 * N8N_USE_WORKFLOW_PUBLICATION_SERVICE and N8N_POLLER_DURABLE_CURSORS_ENABLED):
 *  C1. Each poll starts from the saved cursor (`poller_state.cursor`): the node sees a copy of it
 *      (`trigger-execution-context.factory.js` `__runPoll` / `resolveNodeStaticData`;
 *      `scheduling/poll-trigger-node/poll-trigger-task-handler.js` builds a new context per scheduled poll).
 *  C2. A poll that emits commits its cursor in the same transaction as the execution row
 *      (`__emit` → `runPolledWorkflow`; `workflows/triggers/poll-cursor.service.js` `commitWithExecution`).
 *  C3. A scheduled poll that returns null commits its cursor alone, when it changed (`poll-trigger-task-handler.js`
 *      → `commitStagedCursor` → `__commitCursor` → `commitCursorOnly`).
 *  C4. The activation poll runs only when the scheduled-job row is new (`active-workflow-triggers.js`: `if
 *      (inserted) await executePollTrigger(true)`; `poll-trigger-job-registrar.js`), and a null activation poll is
 *      not committed (`poll-trigger-executor.js` commits null polls only when not `testingTrigger`). A restart or a
 *      re-save of an active workflow inserts no row, so runs no activation poll.
 *  C5. A poll that throws commits nothing (`__emitError`); the next poll repeats from the saved cursor.
 */
import { ExecutionLifecycleHooks, PollContext } from 'n8n-core';
import { Workflow } from 'n8n-workflow';
import type { IDataObject, INode, INodeExecutionData, INodeParameters, INodeType, WorkflowExecuteMode } from 'n8n-workflow';

import { additionalDataFor, InMemoryCredentialsHelper, nodeTypes, TRIGGER_NODE_TYPE } from './engine';
import type { CredentialsMap } from './engine';

export type SavingMode = 'default' | 'durableCursors';

export interface Poller {
	/**
	 * One poll: the emitted items, or null when nothing fired. Throws what the node throws. The first poll after
	 * creation, a restart or a re-activation is the activation poll where n8n runs one (D3, C4).
	 */
	poll(mode?: WorkflowExecuteMode): Promise<INodeExecutionData[] | null>;
	/** The node's static data as n8n's database holds it (`workflow_entity.staticData` or `poller_state.cursor`). */
	storedState(): IDataObject;
	/** What the next poll starts from: the in-memory Workflow's static data (default mode) or the saved cursor. */
	liveState(): IDataObject;
	/** The node's static data as the last poll that did not throw left it, whatever n8n then saved of it. */
	lastPollState(): IDataObject | null;
	/** An n8n restart: the database's static data, no activation poll with durable cursors; modules reloaded (D5). */
	restart(parameters?: INodeParameters, how?: { reloadModules?: boolean }): void;
	/** The workflow saved while active (a re-activation): the database's static data, same process (same modules). */
	reactivate(parameters?: INodeParameters): void;
	/**
	 * The node's modules loaded again and nothing else: the next poll keeps the live static data but none of the
	 * process's memory, so a test sees what the static data alone carries.
	 */
	forgetModuleMemory(): void;
	/** n8n dies between the next emit and its fire-and-forget save (D2): that save never reaches the database. */
	crashAfterNextEmit(): void;
	/**
	 * The next emit's fire-and-forget save fails (D2: `void saveStaticData(workflow)`, its rejection only logged)
	 * while n8n keeps running: the database keeps the previous static data, the process and its modules live on.
	 */
	failNextSave(): void;
	/** Lines the node wrote to n8n's log with `this.logger.warn`. */
	warnings: string[];
}

export interface PollerOptions {
	/** Poll as n8n 1.x does: its PollContext has no getPollBudgetMs. */
	withoutPollBudget?: boolean;
	/** The poll budget n8n 2.x's PollContext gives (its own default: 5 minutes). */
	pollBudgetMs?: number;
	/** How n8n saves the static data (default: n8n's default mode). */
	saving?: SavingMode;
	/** The node's type version as saved in the workflow (default 1: a trigger saved before version 2 existed). */
	typeVersion?: number;
	/** The workflow's time zone (its Settings → Timezone); none: n8n's default, America/New_York. */
	timezone?: string;
}

const NODE_NAME = 'Job Execution Trigger';
const NODE_KEY = `node:${NODE_NAME}`;
let workflows = 0;

interface JestModules {
	isolateModulesAsync(fn: () => Promise<void>): Promise<void>;
	doMock(name: string, factory: () => unknown): void;
}

/**
 * The node type as a fresh module load gives it (D5), when running under jest; else the shared instance. The package's
 * modules load again; n8n-workflow stays the one n8n-core here runs with, as in n8n, where the package and n8n-core
 * share the process's one n8n-workflow (loading it again cost more than the poll it served).
 */
async function loadNodeType(): Promise<INodeType> {
	// Jest hands each module its `jest` as a wrapper variable, not a global; the benches run without it.
	const jestObject = eval('typeof jest === "undefined" ? undefined : jest') as JestModules | undefined;
	if (!jestObject) return nodeTypes.getByNameAndVersion(TRIGGER_NODE_TYPE, 1);
	const workflowModule = await import('n8n-workflow');
	let nodeType: INodeType | undefined;
	await jestObject.isolateModulesAsync(async () => {
		jestObject.doMock('n8n-workflow', () => workflowModule);
		const module = await import('../nodes/JobExecutionTrigger/JobExecutionTrigger.node');
		nodeType = new module.JobExecutionTrigger();
	});
	return nodeType!;
}

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value ?? {})) as T;

export function createPoller(parameters: INodeParameters, credentials: CredentialsMap, options: PollerOptions = {}): Poller {
	const durable = options.saving === 'durableCursors';
	// Each poller is its own workflow, as n8n's workflow ids are unique.
	const workflowId = `trigger-workflow-${++workflows}`;
	let currentParameters = parameters;
	/** The database: the workflow's whole static data (default mode) or the node's cursor (durable). */
	let saved: IDataObject = {};
	/** C4: the scheduled-job row exists once the workflow was first activated. */
	let scheduledJobRow = false;
	let activationDue = true;
	let crashNext = false;
	let lastPoll: IDataObject | null = null;
	let workflow: Workflow;
	let node: INode;
	let nodeType = nodeTypes.getByNameAndVersion(TRIGGER_NODE_TYPE, 1);
	let reloadModules = false;
	const warnings: string[] = [];

	const build = () => {
		node = {
			id: 'b1b2c3d4-0000-4000-8000-000000000002',
			name: NODE_NAME,
			type: TRIGGER_NODE_TYPE,
			typeVersion: options.typeVersion ?? 1,
			position: [0, 0],
			parameters: currentParameters,
			credentials: {
				jobExecutionApi: { id: '1', name: 'Job Execution API' },
				jobExecutionRelayApi: { id: '2', name: 'Job Execution Relay API' },
			},
		};
		// D3: a new Workflow holds the database's static data (with durable cursors it stays empty: C1).
		workflow = new Workflow({ id: workflowId, nodes: [node], connections: {}, active: true, nodeTypes, staticData: durable ? {} : copy(saved), settings: options.timezone === undefined ? {} : { timezone: options.timezone } });
		activationDue = !durable || !scheduledJobRow;
	};
	build();

	/** D2, D3: what saveStaticData writes (the whole workflow static data), unless n8n died first. */
	const saveStaticData = () => {
		if (crashNext) {
			crashNext = false;
			return;
		}
		saved = copy(workflow.staticData as IDataObject);
	};

	const runPoll = async (mode: WorkflowExecuteMode) => {
		const hooks = new ExecutionLifecycleHooks(mode, 'poll', {} as never);
		const additionalData = additionalDataFor(new InMemoryCredentialsHelper(credentials), hooks);
		// C1: the node works on a copy of the saved cursor.
		const staged: IDataObject = durable ? copy(saved) : {};
		const nodeStaticData = durable ? () => staged : () => workflow.getStaticData('node', node);
		const budget = options.pollBudgetMs === undefined ? undefined : () => options.pollBudgetMs as number;
		const context = new PollContext(workflow, node, additionalData, mode, 'activate', undefined, undefined, undefined, undefined, nodeStaticData, budget);
		if (options.withoutPollBudget) Object.defineProperty(context, 'getPollBudgetMs', { value: undefined });
		// The same context with n8n's logger recorded (its own property cannot be replaced).
		const logger = {
			debug: () => undefined,
			info: () => undefined,
			error: () => undefined,
			warn: (message: string) => {
				warnings.push(message);
				context.logger.warn(message);
			},
		};
		const recorded = Object.create(context, { logger: { value: logger } }) as PollContext;
		if (reloadModules) {
			reloadModules = false;
			nodeType = await loadNodeType();
		}
		const result = await nodeType.poll!.call(recorded);
		return { result, staged };
	};

	return {
		warnings,
		async poll(mode: WorkflowExecuteMode = 'trigger') {
			if (mode === 'manual') return ((await runPoll(mode)).result ?? [null])[0];
			const activation = activationDue;
			activationDue = false;
			if (activation) scheduledJobRow = true;
			// D4, C5: a poll that throws saves nothing.
			const { result, staged } = await runPoll(mode);
			const emitted = result !== null && result !== undefined;
			lastPoll = durable ? { [NODE_KEY]: copy(staged) } : copy(workflow.staticData as IDataObject);
			if (durable) {
				if (emitted && crashNext) {
					// The cursor and the execution row commit together (C2): a crash before it delivers neither.
					crashNext = false;
					throw new Error('n8n stopped before the execution and its cursor were committed');
				}
				// C2: with the execution; C3: alone, unless it is the activation poll (C4).
				if (emitted || !activation) saved = staged;
			} else if (emitted || activation) saveStaticData(); // D2, D3
			return emitted ? result[0] : null;
		},
		lastPollState: () => lastPoll,
		storedState: () => (durable ? (Object.keys(saved).length === 0 ? {} : { [NODE_KEY]: saved }) : saved),
		liveState: () => (durable ? (Object.keys(saved).length === 0 ? {} : { [NODE_KEY]: copy(saved) }) : copy(workflow.staticData as IDataObject)),
		restart(newParameters?: INodeParameters, how: { reloadModules?: boolean } = { reloadModules: true }) {
			if (newParameters) currentParameters = newParameters;
			// A new process: a crash that was due in the old one is behind us.
			crashNext = false;
			if (how.reloadModules !== false) reloadModules = true;
			build();
		},
		reactivate(newParameters?: INodeParameters) {
			if (newParameters) currentParameters = newParameters;
			build();
		},
		forgetModuleMemory() {
			reloadModules = true;
		},
		crashAfterNextEmit() {
			crashNext = true;
		},
		failNextSave() {
			if (durable) throw new Error('with durable cursors the cursor commits with the execution: no save fails alone (C2)');
			crashNext = true;
		},
	};
}
