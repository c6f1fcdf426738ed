/** Files of the state directory beside `<state>/jobs` that more than one module names. */
import { join } from 'node:path';

/** The folder of the usage store in the state directory: `<state>/usage-index`, beside `<state>/jobs`. */
export const usageIndexDir = (stateDir: string): string => join(stateDir, 'usage-index');

/** A job's UTC month, from its id's first six digits: `2026-12`. */
const monthOfId = (id: string): string => `${id.slice(0, 4)}-${id.slice(4, 6)}`;

/** The usage store's file of a job's UTC month: `<state>/usage-index/2026-12.jsonl`. */
export const usageMonthFile = (stateDir: string, id: string): string => join(usageIndexDir(stateDir), `${monthOfId(id)}.jsonl`);

/** That month's jobs summed by cell (src/usage/month-cells.ts): `<state>/usage-index/2026-12.cells.json`. */
export const usageCellsFile = (stateDir: string, id: string): string => join(usageIndexDir(stateDir), `${monthOfId(id)}.cells.json`);
