/** Files of the state directory beside `<state>/jobs` that more than one module names. */
import { join } from 'node:path';

/** The folder of the usage store in the state directory: `<state>/usage-index`, beside `<state>/jobs`. */
export const usageIndexDir = (stateDir: string): string => join(stateDir, 'usage-index');

/** The usage store's file of a job's UTC month (its id's first six digits): `<state>/usage-index/2026-12.jsonl`. */
export const usageMonthFile = (stateDir: string, id: string): string => join(usageIndexDir(stateDir), `${id.slice(0, 4)}-${id.slice(4, 6)}.jsonl`);
