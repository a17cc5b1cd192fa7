// Entry point of the package (`main`): n8n loads the files listed in package.json's `n8n` section,
// this index lets other code import the node and credential classes directly.
export { JobExecutionApi } from './credentials/JobExecutionApi.credentials';
export { JobExecutionRelayApi } from './credentials/JobExecutionRelayApi.credentials';
export { JobExecution } from './nodes/JobExecution/JobExecution.node';
export { JobExecutionTrigger } from './nodes/JobExecutionTrigger/JobExecutionTrigger.node';
