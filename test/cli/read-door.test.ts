/**
 * The read commands' own door (src/cli/read-command-line.ts) and commander read the same command lines:
 * for every mistake both print the same line and exit the same way, and a good command line prints the same.
 * Both run in this process on one empty state directory, their output captured from stdout and stderr.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { readInvocation, runReadCommand } from '../../src/cli/read-command-line.js';
import { runCommandLine } from '../../src/cli/run.js';
import { createLogger } from '../../src/log.js';

interface Printed {
  readonly code: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
}

describe('the read commands\' door and commander', () => {
  let root: string;
  let config: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'la-read-door-'));
    config = join(root, 'models.yaml');
    writeFileSync(config, 'endpoints: {}\n');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  async function printed(run: (ctx: CliContext) => Promise<number | undefined>): Promise<Printed> {
    const out: string[] = [];
    const err: string[] = [];
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => err.push(String(chunk)) > 0);
    try {
      const ctx: CliContext = { version: '0.0.0', cwd: root, env: { LOCALAGENTS_STATE_DIR: join(root, 'state'), HOME: root }, log: createLogger(), stdinIsTty: () => true, exitCode: 0 };
      const code = await run(ctx);
      return { code, stdout: out.join(''), stderr: err.join('') };
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
  }

  const bothWays = async (args: readonly string[]): Promise<{ door: Printed; commander: Printed }> => ({
    door: await printed((ctx) => runReadCommand(ctx, ['--config', config, ...args])),
    commander: await printed((ctx) => runCommandLine(ctx, ['--config', config, ...args])),
  });

  it.each([
    [['jobs', '--bogus']],
    [['jobs', '-x']],
    [['jobs', 'extra']],
    [['jobs', '--all=yes']],
    [['show']],
    [['show', 'a', 'b']],
    [['show', 'nope']],
    [['usage', '--by', 'hour']],
    [['usage', '--by']],
    [['usage', '--since', 'last tuesday']],
  ])('%j: the same error line, the same exit 2', async (args) => {
    const { door, commander } = await bothWays(args);
    expect(door.code).toBe(2);
    expect(door.stderr).toMatch(/^error: .+\nlocalagents (jobs|show|usage) .+\n$|^error: .+\n.+\n$/);
    expect(door).toEqual(commander);
  });

  it.each([[['jobs', '--all', '--json']], [['usage', '--by', 'model', '--json']], [['usage']], [['jobs']]])('%j: the same output, exit 0', async (args) => {
    const { door, commander } = await bothWays(args);
    expect(door.code).toBe(0);
    expect(door.stderr).toBe('');
    expect(door).toEqual(commander);
  });

  it('leaves --help, other root options and other commands to commander', () => {
    expect(readInvocation(['jobs', '--help'])).toBeUndefined();
    expect(readInvocation(['usage', '-h'])).toBeUndefined();
    expect(readInvocation(['--port', '1', 'jobs'])).toBeUndefined();
    expect(readInvocation(['models'])).toBeUndefined();
    expect(readInvocation(['--config'])).toBeUndefined();
    expect(readInvocation(['--config=a.yaml', 'show', 'last'])).toMatchObject({ command: { name: 'show' }, configPath: 'a.yaml', rest: ['last'] });
  });
});
