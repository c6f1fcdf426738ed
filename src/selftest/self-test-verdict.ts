/**
 * What the self-test's finished job must show: the file in its kept worktree (and not
 * in the caller's tree), success with the scripted result, the sandbox refusing the
 * write outside the tree (when sandboxed), and the worktree's diffstat naming the file.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobRecord } from '../jobs/record/job-record.js';
import type { StageLog } from './stages.js';

export const SELFTEST_FILE = 'SELFTEST.md';
export const SELFTEST_CONTENT = '# localagents self-test\n\nWritten by Claude Code through the localagents shim.\n';
export const SELFTEST_RESULT = `Wrote ${SELFTEST_FILE}.`;

export interface VerdictPlaces {
  /** The caller's tree the job ran from (its worktree is elsewhere). */
  readonly repo: string;
  /** Where the job's Bash tried to write, outside its worktree. */
  readonly outside: string;
  readonly sandboxed: boolean;
  readonly transcript: string;
  readonly requests: string;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Adds one stage per check to `log`. */
export async function judgeSelfTestJob(job: JobRecord, at: VerdictPlaces, log: StageLog): Promise<void> {
  const written = job.worktree?.kept ? join(job.worktree.path, SELFTEST_FILE) : undefined;
  const content = written ? await readFile(written, 'utf8').catch(() => undefined) : undefined;
  if (content === SELFTEST_CONTENT && !(await exists(join(at.repo, SELFTEST_FILE)))) {
    log.pass('file written in worktree', `${written ?? ''} (the caller's tree is untouched)`);
  } else {
    log.fail('file written in worktree', written ? `${written} is ${content === undefined ? 'missing' : 'not what the model wrote'}` : 'no worktree was kept', [`read ${at.transcript}`]);
  }

  if (job.status === 'succeeded' && job.result === SELFTEST_RESULT) {
    log.pass('job succeeded', `${plural(job.num_turns, 'turn')}, ${plural(job.tool_calls, 'tool call')}, ${plural(job.requests, 'model request')} through the shim; result: ${job.result}`);
  } else {
    log.fail('job succeeded', `${job.status}${job.error ? `: ${job.error}` : ''}`, [`read ${at.transcript} and ${at.requests}`]);
  }

  if (at.sandboxed) {
    const refused = job.sandbox?.refusals ?? 0;
    if (!(await exists(at.outside)) && refused > 0) log.pass('sandbox holds', `the job's Bash could not write ${at.outside} outside its worktree (${plural(refused, 'refusal')} in the transcript)`);
    else log.fail('sandbox holds', (await exists(at.outside)) ? `the job's Bash wrote ${at.outside}, outside its worktree` : 'the job never tried the write outside its tree', [`read ${at.transcript}`]);
  }

  if (job.worktree?.kept && job.worktree.diffstat.includes(SELFTEST_FILE)) {
    log.pass('worktree kept', `${job.worktree.path} on ${job.worktree.branch}: ${job.worktree.diffstat.split('\n').map((l) => l.trim()).join('; ')}`);
  } else {
    log.fail('worktree kept', job.worktree ? `kept=${job.worktree.kept}, diffstat "${job.worktree.diffstat}"` : 'the record has no worktree');
  }
}
