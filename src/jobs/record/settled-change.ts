/**
 * A job's files changed after it ended (its caller.jsonl grew, its record got an outcome): the usage store's
 * summary of it (src/usage/summary-store.ts) is stale. Said by a line `["<id>","changed"]` appended to
 * the store's month file of the job: a summary before that line is not used, and the next report reads the
 * job's own files and appends a new one after it.
 */
import { dirname } from 'node:path';
import { appendPrivateLine } from '../../coord/private-files.js';
import { checkJobId } from './job-id.js';
import { usageMonthFile } from './state-paths.js';

export async function noteSettledJobChanged(jobsRoot: string, id: string): Promise<void> {
  await appendPrivateLine(usageMonthFile(dirname(jobsRoot), checkJobId(id)), `${JSON.stringify([id, 'changed'])}\n`);
}
