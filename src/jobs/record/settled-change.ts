/**
 * The one way to tell the usage index that a settled job's files changed after
 * it ended (its caller.jsonl grew, its outcome became known): the job's id is
 * appended to the state directory's ledger (usage-index/caller-ledger.log), and
 * src/usage/usage-index.ts reads such a job's files again instead of its row.
 */
import { appendFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { privateDir } from '../../coord/private-files.js';
import { isErrno } from '../../errors.js';
import { callerLedgerFile } from './state-paths.js';

export async function noteSettledJobChanged(jobsRoot: string, id: string): Promise<void> {
  const ledger = callerLedgerFile(jobsRoot);
  try {
    await appendFile(ledger, `${id}\n`, { mode: 0o600 });
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
    await privateDir(dirname(ledger));
    await appendFile(ledger, `${id}\n`, { mode: 0o600 });
  }
}
