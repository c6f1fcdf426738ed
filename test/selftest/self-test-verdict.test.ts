/**
 * The self-test's verdict on a finished job, on records a real job could leave: a clean
 * pass, and the ways a job can look finished while the self-test must still fail.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobRecord, WorktreeInfo } from '../../src/jobs/record/job-record.js';
import { judgeSelfTestJob, SELFTEST_CONTENT, SELFTEST_FILE, SELFTEST_RESULT } from '../../src/selftest/self-test-verdict.js';
import { createStageLog } from '../../src/selftest/stages.js';
import { makeRecord } from '../dashboard/fixtures.js';

function places(sandboxed: boolean) {
  const root = mkdtempSync(join(tmpdir(), 'la-verdict-'));
  const worktree = join(root, 'worktree');
  const repo = join(root, 'repo');
  for (const d of [worktree, repo, join(root, 'home')]) mkdirSync(d);
  return { worktree, at: { repo, outside: join(root, 'home', 'sandbox-escape.txt'), sandboxed, transcript: join(root, 'transcript.txt'), requests: join(root, 'requests.jsonl') } };
}

const kept = (path: string): WorktreeInfo => ({ path, branch: 'localagents/selftest', base_commit: 'abc', kept: true, diffstat: ` ${SELFTEST_FILE} | 3 +++\n 1 file changed`, commits: 0, commands: {}, warnings: [] });

const sandboxWith = (refusals: number): NonNullable<JobRecord['sandbox']> => ({
  enabled: true,
  strict: false,
  allow_write: [],
  allow_read: [],
  allowed_domains: [],
  unsandboxed_commands: [],
  refusals,
  violations: 0,
});

async function verdict(job: JobRecord, at: ReturnType<typeof places>['at']) {
  const log = createStageLog();
  await judgeSelfTestJob(job, at, log);
  return { ok: log.ok, stages: Object.fromEntries(log.stages.map((s) => [s.name, s.ok ? 'ok' : s.detail])) };
}

describe('self-test verdict', () => {
  it('passes a job that wrote the file in its kept worktree, succeeded, and whose outside write was refused', async () => {
    const { worktree, at } = places(true);
    writeFileSync(join(worktree, SELFTEST_FILE), SELFTEST_CONTENT);
    const job = makeRecord({ result: SELFTEST_RESULT, worktree: kept(worktree), sandbox: sandboxWith(1) });
    expect(await verdict(job, at)).toEqual({ ok: true, stages: { 'file written in worktree': 'ok', 'job succeeded': 'ok', 'sandbox holds': 'ok', 'worktree kept': 'ok' } });
  });

  it("fails a job that succeeded but wrote into the caller's tree and escaped the sandbox", async () => {
    const { worktree, at } = places(true);
    writeFileSync(join(worktree, SELFTEST_FILE), SELFTEST_CONTENT);
    writeFileSync(join(at.repo, SELFTEST_FILE), SELFTEST_CONTENT);
    writeFileSync(at.outside, 'escaped\n');
    const job = makeRecord({ result: SELFTEST_RESULT, worktree: kept(worktree), sandbox: sandboxWith(0) });
    const { ok, stages } = await verdict(job, at);
    expect(ok).toBe(false);
    expect(stages['file written in worktree']).toBe(`${join(worktree, SELFTEST_FILE)} is not what the model wrote`);
    expect(stages['sandbox holds']).toBe(`the job's Bash wrote ${at.outside}, outside its worktree`);
    expect(stages['job succeeded']).toBe('ok');
  });

  it('names the status and error of a failed job without a worktree, and skips the sandbox check when unsandboxed', async () => {
    const { at } = places(false);
    const job = makeRecord({ status: 'failed', error: 'the model stopped answering', result: undefined });
    const { stages } = await verdict(job, at);
    expect(stages).toEqual({
      'file written in worktree': 'no worktree was kept',
      'job succeeded': 'failed: the model stopped answering',
      'worktree kept': 'the record has no worktree',
    });
  });
});
