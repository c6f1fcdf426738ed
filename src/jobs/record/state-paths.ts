/** Files of the state directory beside `<state>/jobs` that more than one module names. */
import { dirname, join } from 'node:path';

/** The folder of the usage index in the state directory: `<state>/usage-index`, beside `<state>/jobs`. */
export const usageIndexDir = (stateDir: string): string => join(stateDir, 'usage-index');

/** The append-only list of jobs whose caller.jsonl grew: one job id a line. */
export const callerLedgerFile = (jobsRoot: string): string => join(usageIndexDir(dirname(jobsRoot)), 'caller-ledger.log');
