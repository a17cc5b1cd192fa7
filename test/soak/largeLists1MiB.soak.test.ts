/**
 * The real-size list cases of test/nodes/largeLists.test.ts (testkit/largeListCases.ts) with 1 MiB logs: 100 MiB lists
 * through n8n's engine, the trigger firing for each newly finished job and Get Many returning the 100 jobs, each log
 * cut at 65,536 characters and saying so. The default tier runs them with 100 KiB logs (9.9 MiB lists).
 */
import { describeFinishedJobs, liftedLimitsForLists } from '../../testkit/largeListCases';
import { LOG_1_MIB } from '../../testkit/largeLists';

liftedLimitsForLists();
describeFinishedJobs('1 MiB', LOG_1_MIB);
