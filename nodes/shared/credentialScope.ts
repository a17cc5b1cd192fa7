/**
 * Which n8n nodes may use this package's credentials: only its own two. n8n 2.x refuses to decrypt a credential type
 * with `restrictToSupportedNodes` for any other node (the HTTP Request node's "predefined credential" included, which
 * would otherwise send the keys to any URL), and refuses to save a workflow that tries. n8n compares the node's type
 * as a workflow stores it: the package name, a dot, the node's `name`. 1.x ignores both properties (docs/guarantees.md).
 */
const PACKAGE_NAME = 'n8n-nodes-job-execution';

export const CREDENTIAL_USERS = [`${PACKAGE_NAME}.jobExecution`, `${PACKAGE_NAME}.jobExecutionTrigger`];
