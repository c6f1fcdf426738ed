/**
 * `localagents doctor --self-test` proves an installation end to end with no
 * model server and no models.yaml, and leaves nothing behind: not in HOME, not
 * in TMPDIR. On failure it keeps the evidence and says where.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { runSelfTest } from '../../src/selftest/self-test.js';
import { REPO_ROOT } from '../e2e/harness.js';
import { pathWithout } from '../helpers/path-without.js';
import { runCli } from './cli-process.js';

const made: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

describe('doctor --self-test', { timeout: 120_000 }, () => {
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('passes every stage with the real Claude Code and cleans up after itself; exit 0', async () => {
    const home = tempDir('la-st-home-');
    const tmp = tempDir('la-st-tmp-');
    const result = await runCli(['doctor', '--self-test'], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: tmp } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe('localagents self-test: one real Claude Code job through the shim, against a built-in scripted model on 127.0.0.1');
    const stages = lines.slice(1, -1).map((l) => /^(ok {2}|FAIL) ([^:]+):/.exec(l)?.slice(1, 3));
    expect(stages).toEqual([
      ['ok  ', 'config'],
      ['ok  ', 'scripted backend'],
      ['ok  ', 'claude code'],
      ['ok  ', 'sandbox'],
      ['ok  ', 'throwaway repo'],
      ['ok  ', 'job started'],
      ['ok  ', 'file written in worktree'],
      ['ok  ', 'job succeeded'],
      ['ok  ', 'sandbox holds'],
      ['ok  ', 'worktree kept'],
      ['ok  ', 'cleanup'],
    ]);
    expect(result.stdout).toMatch(/ok {3}claude code: \d+\.\d+\.\d+ \(Claude Code\) at /);
    expect(result.stdout).toMatch(/ok {3}job succeeded: 3 turns, 2 tool calls, 3 model requests through the shim; result: Wrote SELFTEST\.md\./);
    expect(result.stdout).toMatch(/ok {3}sandbox holds: the job's Bash could not write \S+sandbox-escape\.txt outside its worktree \(1 refusal in the transcript\)/);
    expect(result.stdout).toMatch(/ok {3}worktree kept: .* SELFTEST\.md \| 3 \+\+\+; 1 file changed, 3 insertions\(\+\)/);
    expect(lines.at(-1)).toMatch(/^self-test passed: /);
    // It never touched the user's HOME (no ~/.claude, no ~/.claude.json, no models.yaml) and left no temp folder.
    expect(readdirSync(home)).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
  });

  // The README's quick start must pass on a machine without bubblewrap: it names what is missing and proves the rest.
  it('without bubblewrap on PATH: passes, warns what is missing and how to install it, and runs its job unsandboxed', async () => {
    const tmp = tempDir('la-st-tmp-');
    const path = pathWithout(['bwrap']);
    made.push(path);
    const result = await runCli(['doctor', '--self-test'], { cwd: REPO_ROOT, env: { PATH: path, HOME: tempDir('la-st-home-'), TMPDIR: tmp } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('warn sandbox: the sandbox cannot run: bubblewrap (bwrap) is missing (not on PATH) — this self-test runs its job unsandboxed, and delegated jobs refuse to start until that is fixed');
    expect(result.stdout).toContain('fix: install bubblewrap and socat: sudo apt-get install bubblewrap socat');
    expect(result.stdout).toContain('fix: if this machine is itself the boundary (a throwaway VM or container), turn the sandbox off in models.yaml');
    expect(result.stdout).not.toContain('sandbox holds');
    expect(result.stdout).toMatch(/ok {3}job succeeded: 3 turns/);
    expect(result.stdout.trim().split('\n').at(-1)).toMatch(/^self-test passed: /);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('with a bubblewrap that cannot make a sandbox (a container without user namespaces): passes, and says what bwrap said and what to change', async () => {
    const tmp = tempDir('la-st-tmp-');
    const bin = tempDir('la-st-bin-');
    writeFileSync(join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n');
    chmodSync(join(bin, 'bwrap'), 0o755);
    const result = await runCli(['doctor', '--self-test'], { cwd: REPO_ROOT, env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: tempDir('la-st-home-'), TMPDIR: tmp } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`warn sandbox: the sandbox cannot run: bubblewrap cannot create one here (${bin}/bwrap: bwrap: No permissions to create new namespace)`);
    expect(result.stdout).toContain('fix: allow unprivileged user namespaces');
    expect(result.stdout.trim().split('\n').at(-1)).toMatch(/^self-test passed: /);
  });

  it('--json: one report a script can read', async () => {
    const tmp = tempDir('la-st-tmp-');
    const result = await runCli(['doctor', '--self-test', '--json'], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tempDir('la-st-home-'), TMPDIR: tmp } });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { ok: boolean; evidence?: string; stages: Array<{ name: string; ok: boolean }>; job: { status: string } };
    expect(report.ok).toBe(true);
    expect(report.evidence).toBeUndefined();
    expect(report.stages.every((s) => s.ok)).toBe(true);
    expect(report.job.status).toBe('succeeded');
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a Claude Code that cannot run a session: the later stages fail and the evidence is kept and named', async () => {
    const tmp = tempDir('la-st-tmp-');
    const fake = join(tempDir('la-st-bin-'), 'claude');
    writeFileSync(fake, '#!/bin/sh\nif [ "$1" = "--version" ]; then echo "9.9.9 (Claude Code)"; exit 0; fi\necho "cannot start" >&2\nexit 3\n');
    chmodSync(fake, 0o755);
    const report = await runSelfTest({ env: { PATH: process.env.PATH, TMPDIR: tmp }, log: silentLogger, claudeExecutable: fake, timeoutS: 60 });
    expect(report.ok).toBe(false);
    expect(report.stages.map((s) => [s.name, s.ok])).toEqual([
      ['config', true],
      ['scripted backend', true],
      ['claude code', true],
      ['sandbox', true],
      ['throwaway repo', true],
      ['job started', true],
      ['file written in worktree', false],
      ['job succeeded', false],
      ['sandbox holds', false],
      ['worktree kept', false],
      ['cleanup', true],
    ]);
    expect(report.stages.find((s) => s.name === 'job succeeded')?.detail).toMatch(/^failed: /);
    const evidence = report.evidence ?? '';
    expect(evidence.startsWith(tmp)).toBe(true);
    expect(report.stages.at(-1)?.detail).toBe(`skipped: kept ${evidence} as evidence`);
    const jobs = join(evidence, 'state', 'jobs');
    expect(report.stages.at(-1)?.fixes[0]).toContain(jobs);
    const [jobId] = readdirSync(jobs);
    expect(existsSync(join(jobs, jobId ?? '', 'transcript.txt'))).toBe(true);
  });
});
