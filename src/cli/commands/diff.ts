/**
 * `localagents diff JOB`: what a worktree job changed — `git diff` of its kept
 * worktree against the commit it started from, new files included (the job
 * marked them intent-to-add when it ended). Through git itself, so the pager
 * and colours work as the user has them set.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { JobRecord } from '../../jobs/job-record.js';
import { FINISHED } from '../../jobs/job-record.js';
import { git } from '../../jobs/git.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { loadJob } from '../job-arg.js';
import { printError, printJson, printNote } from '../output.js';
import { withApp } from '../with-app.js';

function gitToTerminal(args: readonly string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('git', args, { stdio: 'inherit' });
    child.on('error', () => resolve(127));
    child.on('close', (code) => resolve(code ?? 1));
  });
}

interface DiffTarget {
  readonly dir: string;
  readonly base: string;
  readonly note?: string;
}

/** Where to diff and against what; a string is the reason there is nothing to diff. */
function targetOf(record: JobRecord): DiffTarget | { error: string; hint: string } {
  const wt = record.worktree;
  if (record.isolation !== 'worktree') {
    return { error: `job ${record.id} ran in place (isolation none) in ${record.cwd}: there is no worktree to diff`, hint: `git -C ${record.cwd} diff shows the uncommitted changes there (the job's and anyone else's).` };
  }
  if (wt === undefined) {
    if (!FINISHED.has(record.status) && record.work_dir) {
      return { dir: record.work_dir, base: 'HEAD', note: `job ${record.id} is still ${record.status}: changes to tracked files so far (new files show once it ends)` };
    }
    return { error: `job ${record.id} has no worktree (${record.status}${record.error ? `: ${record.error}` : ''})`, hint: `localagents show ${record.id} says what happened.` };
  }
  if (!existsSync(wt.path)) {
    return { error: `the worktree of job ${record.id} is gone: ${wt.path}`, hint: `Its branch ${wt.branch} may still exist: git diff ${wt.base_commit.slice(0, 12)} ${wt.branch}` };
  }
  return { dir: wt.path, base: wt.base_commit };
}

export function registerDiff(program: Command, ctx: CliContext): void {
  program
    .command('diff')
    .description("git diff of a worktree job's changes against the commit it started from (new files included)")
    .argument('<job>', 'job id, a unique prefix of it or of its last part, or last')
    .option('--stat', 'only the diffstat')
    .option('--json', 'print {job_id, worktree, branch, base_commit, diff} as JSON')
    .addHelpText('after', '\nExamples:\n  localagents diff 20261129-111500-7gk2mq4xrz9d\n  localagents diff 20261129-111500-7gk2mq4xrz9d --stat\n  localagents diff 20261129-111500-7gk2mq4xrz9d | git apply --check   # would it apply to your tree?')
    .action((id: string, opts: { stat?: boolean; json?: boolean }) =>
      withApp(ctx, program.opts<GlobalOptions>().config, async (app) => {
        const record = await loadJob(app.store, id);
        if (record.worktree && !record.worktree.kept) {
          printNote(`job ${record.id} changed nothing: its worktree and branch were removed`);
          if (opts.json) printJson({ job_id: record.id, worktree: null, branch: null, base_commit: record.worktree.base_commit, diff: '' });
          return;
        }
        const target = targetOf(record);
        if ('error' in target) {
          printError(target.error, target.hint);
          ctx.exitCode = 1;
          return;
        }
        if (target.note) printNote(target.note);
        const args = ['-C', target.dir, 'diff', ...(opts.stat ? ['--stat'] : []), target.base];
        if (opts.json) {
          const out = await git(target.dir, args.slice(2));
          if (!out.ok) throw new Error(`git diff failed in ${target.dir}: ${out.stderr.trim()}`);
          printJson({ job_id: record.id, worktree: target.dir, branch: record.worktree?.branch ?? null, base_commit: target.base, diff: out.stdout });
          return;
        }
        const code = await gitToTerminal(args);
        if (code !== 0) ctx.exitCode = 1;
      }),
    );
}
