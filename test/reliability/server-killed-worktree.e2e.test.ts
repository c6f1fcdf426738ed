/**
 * The server SIGKILLed mid-job on a worktree job: the next server reports the
 * job `interrupted`, the worktree is still there with the job's changes, and
 * resume_job continues the same session inside it. (restart-resume.e2e covers
 * isolation "none".)
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitOut } from '../helpers/git-repo.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { connect, makeDirs, ok, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { processAlive, until } from './in-process.js';

describe('server killed mid-job, isolation worktree', () => {
  let dirs: E2EDirs;
  let sim: Simulator;

  beforeAll(async () => {
    dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, slots: 1 });
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('is interrupted, keeps its worktree with the change, and resumes in it', { timeout: 60_000 }, async () => {
    // Turn 1 writes part1.txt; turn 2 hangs until the server is killed. After the resume prompt: write part2.txt, then finish.
    let resumed = false;
    sim.setScript((req) => {
      const resumePrompt = req.lastUserText.includes('Please continue');
      resumed ||= resumePrompt;
      if (req.assistantTurns === 0) return { toolUse: { name: 'Write', input: { file_path: 'part1.txt', content: 'one\n' } } };
      if (!resumed) return { text: 'stuck', delayMs: 600_000 };
      return resumePrompt ? { toolUse: { name: 'Write', input: { file_path: 'part2.txt', content: 'two\n' } } } : { text: 'Resumed and finished.' };
    });
    const first = await connect(dirs);
    const started = ok(await first.call('run_agent', { wait_s: 0, task: 'Write part1.txt, then wait.', isolation: 'worktree' }));
    const jobId = String(started.id);
    const recordPath = join(dirs.state, 'jobs', jobId, 'job.json');
    const read = (): { tool_calls: number; session_id?: string; work_dir?: string; claude_pid?: number } => JSON.parse(readFileSync(recordPath, 'utf8')) as never;
    expect(await until(() => read().tool_calls >= 1 && read().session_id !== undefined && sim.stats.inFlight > 0, 30_000, 100)).toBe(true);
    const { work_dir: workDir, claude_pid: claudePid } = read();
    expect(workDir).toBe(join(dirs.state, 'worktrees', `${basename(dirs.repo)}-1`));
    expect(readFileSync(join(workDir!, 'part1.txt'), 'utf8')).toBe('one\n');

    process.kill(first.transport.pid!, 'SIGKILL');
    await first.close().catch(() => undefined);
    // Claude Code must not go on working in the worktree on its own once its server is gone.
    expect(await until(() => !processAlive(claudePid!), 5000)).toBe(true);

    const second = await connect(dirs);
    try {
      const status = ok(await second.call('jobs', { job_id: jobId }));
      expect(status).toMatchObject({ status: 'interrupted', work_dir: workDir });
      // The record says where the work is and how to review it, though the job never finished.
      expect(status.worktree).toMatchObject({ path: workDir, branch: `local-agent/${jobId}`, kept: true });
      expect((status.worktree as { commands: { review: string } }).commands.review).toContain(`git -C ${workDir} diff`);
      expect(String(status.error)).toContain(`run_agent(resume_job="${jobId}")`);
      // The worktree and its branch are kept, with the change, and the caller's tree is untouched.
      expect(readFileSync(join(workDir!, 'part1.txt'), 'utf8')).toBe('one\n');
      expect(gitOut(dirs.repo, 'branch', '--list', `local-agent/${jobId}`)).toContain(jobId);
      expect(existsSync(join(dirs.repo, 'part1.txt'))).toBe(false);

      const resumed = ok(await second.call('run_agent', { task: 'Please continue where you stopped.', resume_job: jobId, wait_s: 100 }));
      expect(resumed).toMatchObject({ status: 'succeeded', result: 'Resumed and finished.', resumed_from: jobId, session_id: status.session_id, work_dir: workDir });
      expect(readFileSync(join(workDir!, 'part2.txt'), 'utf8')).toBe('two\n');
      expect(existsSync(join(dirs.repo, 'part2.txt'))).toBe(false);
    } finally {
      await second.close();
    }
  });
});
