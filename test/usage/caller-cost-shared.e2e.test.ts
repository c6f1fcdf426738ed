/**
 * Caller turns that concern several jobs are shared out, never counted once per job: the real Claude Code is
 * the caller, starts two jobs with two run_agent calls in one turn, waits for both with one wait_job, and
 * reports. The two jobs' caller costs must add up, token for token and turn for turn, to those three turns of
 * its transcript, and each job says its share is an even split of turns it shared.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/cli-process.js';
import { serverEnv } from '../e2e/harness.js';
import { callerCalls, la, startCallerRig, toolResultTexts, type CallerRig, type CallerRun } from '../caller/rig.js';

const PRICES = { input: 3, cache_write: 3.75, cache_write_1h: 6, cache_read: 0.3, output: 15 };
/** Odd figures, so an even split has a remainder to place. */
const usageOf = (turn: number) => ({ input_tokens: 1001 + 11 * turn, cache_read_input_tokens: 20_001 + 1009 * turn, output_tokens: 51 + 3 * turn });

interface Row { key: string; caller: { measured: number; turns: number; input_tokens?: number }; priced: { caller_usd: number } }

describe('caller turns shared by several jobs', { timeout: 300_000 }, () => {
  let rig: CallerRig;
  let run: CallerRun;
  let ids: string[] = [];
  const cli = async (...args: string[]) =>
    runCli(['--config', rig.dirs.config, ...args], { cwd: rig.dirs.repo, env: serverEnv(rig.dirs, { CLAUDE_CONFIG_DIR: join(rig.dirs.root, 'caller-home', '.claude') }) });

  beforeAll(async () => {
    rig = await startCallerRig({ jobSlots: 2, jobScript: [{ text: 'Half done.', delayMs: 1500 }] });
    const config = readFileSync(rig.dirs.config, 'utf8').replace('defaults:\n', `defaults:\n  prices:\n    caller-model: ${JSON.stringify(PRICES)}\n`);
    writeFileSync(rig.dirs.config, config);
    run = await rig.runCaller('Delegate both halves.', (req) => {
      const calls = callerCalls(req);
      const usage = usageOf(req.assistantTurns);
      if (calls === 0) {
        const start = (task: string) => ({ name: la('run_agent'), input: { task, wait_s: 0 } });
        return { usage, text: 'Two halves.', toolUse: [start('Write the first half.'), start('Write the second half.')] };
      }
      if (calls === 2) {
        ids = toolResultTexts(req).flatMap((t) => /"id":"(\d{8}-\d{6}-[a-z0-9]+)"/.exec(t)?.[1] ?? []);
        return { usage, text: 'Waiting for both.', toolUse: { name: la('wait_job'), input: { job_id: ids } } };
      }
      return { usage, text: 'Both halves are done.' };
    });
  }, 300_000);
  afterAll(async () => rig?.close());

  it('the two jobs together cost exactly the three caller turns, split evenly, and say so', async () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.toolCalls.map((c) => c.name)).toEqual(['run_agent', 'run_agent', 'wait_job']);
    expect(ids).toHaveLength(2);
    expect(rig.jobRecords().map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
    // The caller's three turns, as its model reported them: turns 0 to 2.
    const want = { turns: 3, input: 3 * 1001 + 11 * 3, cacheRead: 3 * 20_001 + 1009 * 3, output: 3 * 51 + 3 * 3 };

    const shown = await Promise.all(ids.map(async (id) => {
      const r = await cli('show', id, '--json');
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { usage_summary: { caller: { status: string; turns: number; input_tokens: number; cache_read_tokens: number; output_tokens: number; shared?: boolean } } }).usage_summary.caller;
    }));
    for (const c of shown) expect(c).toMatchObject({ status: 'measured', shared: true });
    const sum = (pick: (c: (typeof shown)[number]) => number): number => shown.reduce((n, c) => n + pick(c), 0);
    expect({ turns: sum((c) => c.turns), input: sum((c) => c.input_tokens), cacheRead: sum((c) => c.cache_read_tokens), output: sum((c) => c.output_tokens) }).toEqual(want);
    // An even split: the two shares differ by at most a token in each class.
    expect(Math.abs(shown[0]!.cache_read_tokens - shown[1]!.cache_read_tokens)).toBeLessThanOrEqual(3);

    const text = await cli('show', ids[0]!);
    expect(text.stdout).toMatch(/caller cost \(measured, caller-model; turns shared with other jobs, split evenly\)/);

    const usage = await cli('usage', '--by', 'job', '--json');
    expect(usage.code, usage.stderr).toBe(0);
    const rows = (JSON.parse(usage.stdout) as { rows: Row[] }).rows.filter((r) => ids.includes(r.key));
    expect(rows.reduce((n, r) => n + r.caller.turns, 0)).toBe(3);
    const callerUsd = (want.input * PRICES.input + want.cacheRead * PRICES.cache_read + want.output * PRICES.output) / 1e6;
    expect(rows.reduce((n, r) => n + r.priced.caller_usd, 0)).toBeCloseTo(callerUsd, 12);
  });
});
