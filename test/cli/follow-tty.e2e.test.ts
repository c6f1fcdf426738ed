/**
 * `localagents run` on a terminal: the redrawn status area, the final report,
 * and Ctrl-C's question (detach or cancel). The built binary runs under a
 * pseudo-terminal 100 columns wide; three real Claude Code runs.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HIDE_CURSOR, SHOW_CURSOR } from '../../src/cli/follow/status-area.js';
import { startSimulator, type Script, type Simulator } from '../sim/index.js';
import { makeDirs, serverEnv, writeConfig, type E2EDirs } from '../e2e/harness.js';
import { jobIdIn, runCliInPty, type CliOptions } from './cli-process.js';

const COLUMNS = 100;
const CTRL_C = '\u0003';

/** A Write, then a closing text after `secondTurnMs`. */
const writeThenText = (secondTurnMs: number): Script => (req) =>
  req.assistantTurns === 0
    ? { thinking: 'Plan.', text: 'Creating notes.', toolUse: { name: 'Write', input: { file_path: 'notes.md', content: '# notes\n' } } }
    : { text: 'Wrote notes.md.', delayMs: secondTurnMs };

const ESC = '\x1b';

/** A screen line without the redraw prefix (CSI n F, CSI J) that starts it. */
function withoutRedraw(line: string): string {
  const erase = `${ESC}[J`;
  return line.startsWith(`${ESC}[`) && line.includes(erase) ? line.slice(line.indexOf(erase) + erase.length) : line;
}

/** The status lines as drawn: the spinner line and the lines under it. */
const statusHeads = (screen: string): string[] => screen.split('\r\n').map(withoutRedraw).filter((l) => /^[-\\|/] (queued|running|succeeded|failed|cancelled) /.test(l));

describe('localagents run on a terminal', { timeout: 120_000 }, () => {
  let dirs: E2EDirs;
  let sim: Simulator;
  let opts: CliOptions & { columns: number };
  const run = (args: string[], steps: Parameters<typeof runCliInPty>[1] = []): ReturnType<typeof runCliInPty> =>
    runCliInPty(['--config', dirs.config, 'run', ...args], steps, opts);

  beforeAll(async () => {
    dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, slots: 2 });
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
    opts = { cwd: dirs.repo, env: { ...serverEnv(dirs), TERM: 'xterm' }, columns: COLUMNS };
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dirs.root, { recursive: true, force: true });
    rmSync(dirs.repo, { recursive: true, force: true });
  });

  it('redraws a status area in place, then shows the result and the worktree; exit 0', async () => {
    sim.setScript(writeThenText(1500));
    const shown = await run(['--isolation', 'worktree', 'Write notes.md.']);
    expect(shown.code).toBe(0);
    const screen = shown.stdout;
    const id = jobIdIn(screen);
    expect(screen).toContain(HIDE_CURSOR);
    // Each redraw moves up over the previous area and erases it.
    expect(screen.split(`${ESC}[5F${ESC}[J`).length + screen.split(`${ESC}[4F${ESC}[J`).length - 2).toBeGreaterThan(2);
    const heads = statusHeads(screen);
    expect(heads.some((h) => /^[-\\|/] running \d+(\.\d)? s · unsloth\/Qwen3\.8-27B-GGUF:UD-Q4_K_XL on gpu$/.test(h))).toBe(true);
    expect(screen).toMatch(/ {2}turns 1 · tool calls 1 · model requests \d+ · tokens in [\d.,k]+/);
    expect(screen).toMatch(/ {2}last request: HTTP 200, prompt [\d.]+k? tok\/s, cache reuse \d+%/);
    expect(screen).toMatch(/ {2}last activity: Write notes\.md/);
    expect(screen).toContain('tool: Write notes.md\r\n'); // transcript lines scroll above the area
    // No status or transcript line reaches the last column, so none can wrap and spoil the redraw...
    const live = screen.slice(0, screen.lastIndexOf(SHOW_CURSOR)).split('\r\n').map((l) => withoutRedraw(l).replace(HIDE_CURSOR, ''));
    const drawn = live.filter((l) => /^([-\\|/] | {2}|\d\d:\d\d:\d\d )/.test(l));
    expect(drawn.length).toBeGreaterThan(10);
    expect(Math.max(...drawn.map((l) => l.length))).toBeLessThan(COLUMNS);
    // ...while our own lines keep every character (the transcript path is longer than the terminal).
    expect(screen).toContain(`transcript: ${join(dirs.state, 'jobs', id, 'transcript.txt')}\r\n`);
    // The area is gone and the cursor back before the report.
    const report = screen.slice(screen.lastIndexOf(SHOW_CURSOR) + SHOW_CURSOR.length);
    expect(report).toMatch(new RegExp(`^job ${id}: succeeded after [\\d.]+ s — unsloth/Qwen3\\.8-27B-GGUF:UD-Q4_K_XL on gpu\\r\\n`));
    expect(report).toContain('result: Wrote notes.md.\r\nfiles touched: notes.md\r\nworktree kept: ');
    expect(report).toContain('  notes.md | 1 +\r\n');
    expect(report).not.toContain(`${ESC}[`);
  });

  it('Ctrl-C then d detaches: the display stops, the job finishes in this process, exit 0', async () => {
    sim.setScript(writeThenText(3000));
    const shown = await run(['Write notes.md.'], [
      { wait: 'tool: Write notes\\.md', send: CTRL_C },
      { wait: 'keep following', send: 'd' },
    ]);
    expect(shown.code).toBe(0);
    const id = jobIdIn(shown.stdout);
    const after = shown.stdout.slice(shown.stdout.indexOf('[other key] keep following'));
    expect(after).toContain(`detached: job ${id} keeps running inside this process (pid `);
    expect(after).toContain(`  follow it:      localagents log ${id} -f\r\n`);
    expect(after).toContain('  get the shell:  Ctrl-Z, then bg\r\n');
    // Nothing is drawn after detaching: no redraw, no report.
    const tail = after.slice(after.indexOf('Ctrl-Z, then bg'));
    expect(tail).not.toContain(`${ESC}[`);
    expect(tail).not.toContain('result:');
    // The process lived on until the job's slow last turn was done.
    const record = JSON.parse(readFileSync(join(dirs.state, 'jobs', id, 'job.json'), 'utf8')) as { status: string; result: string };
    expect(record).toMatchObject({ status: 'succeeded', result: 'Wrote notes.md.' });
  });

  it('Ctrl-C then c cancels: the cancelled report, the cursor restored, exit 1', async () => {
    sim.setScript(writeThenText(600_000));
    const shown = await run(['Write notes.md, then wait.'], [
      { wait: 'tool: Write notes\\.md', send: CTRL_C },
      { wait: 'keep following', send: 'c' },
    ]);
    expect(shown.code).toBe(1);
    const id = jobIdIn(shown.stdout);
    expect(shown.stdout).toContain(`cancelling job ${id}…`);
    const report = shown.stdout.slice(shown.stdout.lastIndexOf(SHOW_CURSOR) + SHOW_CURSOR.length);
    expect(report).toMatch(new RegExp(`^job ${id}: cancelled after `));
    expect(report).toContain('files touched: notes.md');
    expect(report).toContain('error: cancelled on request');
  });
});
