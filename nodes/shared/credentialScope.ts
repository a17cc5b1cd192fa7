/**
 * Which n8n nodes may use this package's credentials: only its own two (and the action node's AI tool variant). n8n 2.x refuses to decrypt a credential type
 * with `restrictToSupportedNodes` for any other node (the HTTP Request node's "predefined credential" included, which
 * would otherwise send the keys to any URL), and refuses to save a workflow that tries. n8n compares the node's type
 * as a workflow stores it: the package name, a dot, the node's `name`. 1.x ignores both properties (docs/guarantees.md).
 */
const PACKAGE_NAME = 'n8n-nodes-job-execution';

// The action node is usableAsTool: n8n adds its AI tool variant (`jobExecutionTool`, what an agent or the MCP
// Server Trigger runs) to the credentials' supported nodes (packages/cli/src/tool-generation/utils.ts).
export const CREDENTIAL_USERS = [`${PACKAGE_NAME}.jobExecution`, `${PACKAGE_NAME}.jobExecutionTool`, `${PACKAGE_NAME}.jobExecutionTrigger`];
