/**
 * `localagents statusline` as Claude Code runs it: the status JSON on stdin, one
 * line on stdout, exit 0. On an empty state directory it prints nothing; with a
 * job running in another localagents process it names it (this project first)
 * and the open request; an unreadable state directory is one line, not a trace.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeRepo } from '../helpers/git-repo.js';
import { until } from '../helpers/processes.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { connect, makeDirs, ok, serverEnv, writeConfig, type Connected, type E2EDirs } from '../e2e/harness.js';
import { runCli } from './cli-process.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';

/**
 * The status JSON with every field Claude Code's statusline documentation lists
 * (https://code.claude.com/docs/en/statusline, "JSON input"; read 2026-12-02).
 */
function claudeCodeStatusJson(projectDir: string): string {
  return JSON.stringify({
    hook_event_name: 'Status',
    session_id: 'f3b1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
    transcript_path: '/home/user/.claude/projects/-home-user-project/f3b1c2d4.jsonl',
    cwd: join(projectDir, 'src'),
    model: { id: 'claude-sonnet-5-5', display_name: 'Sonnet 5.5' },
    workspace: { current_dir: join(projectDir, 'src'), project_dir: projectDir },
    version: '2.1.140',
    output_style: { name: 'default' },
    cost: { total_cost_usd: 0.01234, total_duration_ms: 45000, total_api_duration_ms: 2300, total_lines_added: 156, total_lines_removed: 23 },
    context_window: {
      total_input_tokens: 15234,
      total_output_tokens: 4521,
      context_window_size: 200000,
      used_percentage: 42.5,
      remaining_percentage: 57.5,
      current_usage: { input_tokens: 8500, output_tokens: 1200, cache_creation_input_tokens: 5000, cache_read_input_tokens: 2000 },
    },
    exceeds_200k_tokens: false,
  });
}

const words = (n: number): string => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

const cleanups = cleanupsAfterEach();

const statusline = (dirs: E2EDirs, input: string, env: Record<string, string> = serverEnv(dirs)) =>
  runCli(['--config', dirs.config, 'statusline'], { cwd: dirs.root, env, input, timeoutMs: 30_000 });
/** Exactly as Claude Code's statusLine setting runs it (README): the path that skips the argument parser. */
const asClaudeCodeRunsIt = (dirs: E2EDirs, input: string) => runCli(['statusline'], { cwd: dirs.root, env: serverEnv(dirs), input, timeoutMs: 30_000 });

describe('localagents statusline', () => {
  it('prints nothing, exit 0, on an empty state directory', async () => {
    const dirs = makeDirs();
    writeConfig(dirs, 'endpoints: {}\n');
    const r = await statusline(dirs, claudeCodeStatusJson(dirs.repo));
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
    // Not even with no input at all, or input that is not Claude Code's.
    expect(await statusline(dirs, '')).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await statusline(dirs, 'garbage {')).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await asClaudeCodeRunsIt(dirs, claudeCodeStatusJson(dirs.repo))).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('an unreadable state directory is one line of text, exit 0, no stack trace', async () => {
    const dirs = makeDirs();
    writeConfig(dirs, 'endpoints: {}\n');
    mkdirSync(dirs.state, { recursive: true });
    // A symlink loop: unreadable for root too (the suite may run as root, where permissions do not stop a read).
    symlinkSync('jobs', join(dirs.state, 'jobs'));
    const r = await statusline(dirs, claudeCodeStatusJson(dirs.repo));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`localagents: cannot read the state directory ${dirs.state} (ELOOP)\n`);
    expect(await asClaudeCodeRunsIt(dirs, claudeCodeStatusJson(dirs.repo))).toEqual({ code: 0, stdout: r.stdout, stderr: '' });
  });

  it('a job running in another process: this project first, the open request generating, then today\'s jobs once it ended (no saving: no caller cost was measured)', async () => {
    const dirs = makeDirs();
    const sim: Simulator = await startSimulator({ flavor: 'llama.cpp', slots: 2, script: () => ({ text: words(200), tokenDelayMs: 40 }) });
    cleanups.push(() => sim.close());
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
    const server: Connected = await connect(dirs);
    cleanups.push(() => server.close());
    const other = makeRepo();
    const here = String(ok(await server.call('run_agent', { wait_s: 0, task: 'Write a long answer.' })).id);
    const elsewhere = String(ok(await server.call('run_agent', { wait_s: 0, task: 'Write a long answer too.', cwd: other })).id);

    let line = '';
    await until(async () => {
      line = (await statusline(dirs, claudeCodeStatusJson(dirs.repo))).stdout;
      return /generating at \d+ tok\/s/.test(line);
    }, 90_000, 200);
    expect(line).toMatch(/^localagents: 1 running here \(\+1 elsewhere\) · generating at \d+ tok\/s( · today 2 jobs)?\n$/);
    // From the other project's point of view, the counts turn round.
    expect((await statusline(dirs, claudeCodeStatusJson(other))).stdout).toMatch(/^localagents: 1 running here \(\+1 elsewhere\)/);
    expect((await asClaudeCodeRunsIt(dirs, claudeCodeStatusJson(dirs.repo))).stdout).toMatch(/^localagents: 1 running here \(\+1 elsewhere\) · /);

    for (const id of [here, elsewhere]) {
      for (;;) {
        const r = ok(await server.call('wait_job', { job_id: id, timeout_s: 110 }));
        if (r.status !== 'running' && r.status !== 'queued') break;
      }
    }
    const done = await statusline(dirs, claudeCodeStatusJson(dirs.repo));
    expect(done.code).toBe(0);
    expect(done.stdout).toBe('localagents: today 2 jobs\n');
  }, 200_000);
});
