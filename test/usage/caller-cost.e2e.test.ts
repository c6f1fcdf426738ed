/**
 * The caller's cost of a job, measured: the real Claude Code is the caller (print mode,
 * its model scripted through the simulator with different usage figures on every turn),
 * lists the models, delegates a slow job, waits for it and reports. The job's caller cost
 * must be, token for token, the turns the README says count (run_agent's, wait_job's and
 * the one that read the result; not list_models'), as the caller's own transcript has them,
 * priced at the model the transcript names; the net saving is recomputed here from the
 * job's requests.jsonl and the transcript. Without the transcript the cost is unknown, with why.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/cli-process.js';
import { serverEnv } from '../e2e/harness.js';
import { callerCalls, la, startCallerRig, toolResultTexts, type CallerRig, type CallerRun } from '../caller/rig.js';

const PRICES = { input: 3, cache_write: 3.75, cache_write_1h: 6, cache_read: 0.3, output: 15 };
/** Every caller turn's usage differs, so a turn counted wrongly shows. */
const usageOf = (turn: number) => ({ input_tokens: 1000 + 11 * turn, cache_read_input_tokens: 20_000 + 1009 * turn, output_tokens: 50 + 3 * turn });

interface Tokens { input: number; cacheRead: number; output: number }

/** The caller's assistant messages in its transcript, by message id, with their tool calls: read here, not by localagents. */
function transcriptTurns(path: string): { id: string; model: string; tools: string[]; usage: Tokens }[] {
  const turns = new Map<string, { id: string; model: string; tools: string[]; usage: Tokens }>();
  for (const line of readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '')) {
    const json = JSON.parse(line) as { type?: string; message?: { id?: string; model?: string; usage?: Record<string, number>; content?: { type: string; name?: string }[] } };
    const m = json.message;
    if (json.type !== 'assistant' || m?.id === undefined) continue;
    const turn = turns.get(m.id) ?? { id: m.id, model: m.model ?? '', tools: [], usage: { input: 0, cacheRead: 0, output: 0 } };
    turns.set(m.id, turn);
    for (const b of m.content ?? []) if (b.type === 'tool_use') turn.tools.push(String(b.name));
    if (m.usage) turn.usage = { input: m.usage.input_tokens ?? 0, cacheRead: m.usage.cache_read_input_tokens ?? 0, output: m.usage.output_tokens ?? 0 };
  }
  return [...turns.values()];
}

describe('the caller cost of a job, with the real Claude Code as the caller', { timeout: 300_000 }, () => {
  let rig: CallerRig;
  let run: CallerRun;
  let jobId = '';
  const env = (extra: Record<string, string> = {}): Record<string, string> => serverEnv(rig.dirs, { CLAUDE_CONFIG_DIR: join(rig.dirs.root, 'caller-home', '.claude'), ...extra });
  const cli = async (...args: string[]) => runCli(['--config', rig.dirs.config, ...args], { cwd: rig.dirs.repo, env: env() });

  beforeAll(async () => {
    rig = await startCallerRig({ jobScript: [{ text: 'The job is done.', delayMs: 1500 }] });
    // The caller's model is the simulator's; the user prices it, as they would a model the table lacks.
    const config = readFileSync(rig.dirs.config, 'utf8').replace('defaults:\n', `defaults:\n  prices:\n    caller-model: ${JSON.stringify(PRICES)}\n`);
    writeFileSync(rig.dirs.config, config);
    run = await rig.runCaller('Delegate it.', (req) => {
      const calls = callerCalls(req);
      const usage = usageOf(req.assistantTurns);
      if (calls === 0) return { usage, text: 'Looking.', toolUse: { name: la('list_models'), input: {} } };
      if (calls === 1) return { usage, text: 'Delegating.', toolUse: { name: la('run_agent'), input: { task: 'Say the job is done.', wait_s: 0 } } };
      if (calls === 2) {
        jobId = /"id":"(\d{8}-\d{6}-[a-z0-9]+)"/.exec(toolResultTexts(req).at(-1) ?? '')?.[1] ?? '';
        return { usage, text: 'Waiting.', toolUse: { name: la('wait_job'), input: { job_id: jobId, timeout_s: 60 } } };
      }
      return { usage, text: `Reported: ${toolResultTexts(req).at(-1)?.slice(0, 40) ?? ''}` };
    });
  }, 300_000);
  afterAll(async () => rig?.close());

  it('the caller ran four turns: list_models, run_agent, wait_job, the report', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.toolCalls.map((c) => c.name)).toEqual(['list_models', 'run_agent', 'wait_job']);
    expect(jobId).toMatch(/^\d{8}-/);
    expect(rig.jobRecords().map((r) => r.status)).toEqual(['succeeded']);
    expect(run.transcriptPath).toBeDefined();
  });

  it('without the transcript the cost is unknown, with the reason, and nothing is kept', async () => {
    const r = await runCli(['--config', rig.dirs.config, 'show', jobId, '--json'], { cwd: rig.dirs.repo, env: env({ CLAUDE_CONFIG_DIR: join(rig.dirs.root, 'nowhere') }) });
    expect(r.code, r.stderr).toBe(0);
    const caller = (JSON.parse(r.stdout) as { usage_summary: { caller: { status: string; reason: string }; computed: unknown } }).usage_summary;
    expect(caller.caller.status).toBe('unknown');
    expect(caller.caller.reason).toBe(`no transcript folder for ${rig.dirs.repo} under ${join(rig.dirs.root, 'nowhere', 'projects')}`);
    expect(caller.computed).toBeNull();
    expect(readFileSync(join(rig.dirs.state, 'jobs', jobId, 'caller.jsonl'), 'utf8')).not.toContain('caller_cost');
    const text = await runCli(['--config', rig.dirs.config, 'show', jobId], { cwd: rig.dirs.repo, env: env({ CLAUDE_CONFIG_DIR: join(rig.dirs.root, 'nowhere') }) });
    expect(text.stdout).toContain('caller cost unknown: no transcript folder for');
    expect(text.stdout).not.toMatch(/net saved/);
  });

  it('show: the cost is the attributed turns of the transcript, token for token, on the model it names', async () => {
    const turns = transcriptTurns(run.transcriptPath!);
    expect(turns.map((t) => t.tools.join(','))).toEqual([la('list_models'), la('run_agent'), la('wait_job'), '']);
    const counted = turns.slice(1); // run_agent's, wait_job's, and the turn that read the result
    const want = counted.reduce((s, t) => ({ input: s.input + t.usage.input, cacheRead: s.cacheRead + t.usage.cacheRead, output: s.output + t.usage.output }), { input: 0, cacheRead: 0, output: 0 });
    // The transcript holds what the scripted model reported: turns 1 to 3.
    expect(want).toEqual({ input: 3000 + 11 * 6, cacheRead: 60_000 + 1009 * 6, output: 150 + 3 * 6 });
    const r = await cli('show', jobId, '--json');
    expect(r.code, r.stderr).toBe(0);
    const summary = (JSON.parse(r.stdout) as { usage_summary: { caller: Record<string, unknown> } }).usage_summary;
    expect(summary.caller).toEqual({
      status: 'measured', model: 'caller-model', turns: 3, input_tokens: want.input, cache_read_tokens: want.cacheRead,
      cache_write_5m_tokens: 0, cache_write_1h_tokens: 0, output_tokens: want.output, transcript: run.transcriptPath,
    });
    // Kept in the job's caller.jsonl once final: the transcript is not read for it again.
    expect(readFileSync(join(rig.dirs.state, 'jobs', jobId, 'caller.jsonl'), 'utf8')).toContain('"caller_cost"');
    const text = await cli('show', jobId);
    expect(text.stdout).toContain('caller cost (measured, caller-model): 3 turns');
  });

  it('usage --json: the net saving per job, recomputed from requests.jsonl and the transcript', async () => {
    const local = { evaluated: 0, written: 0, cached: 0, output: 0 };
    for (const line of readFileSync(join(rig.dirs.state, 'jobs', jobId, 'requests.jsonl'), 'utf8').split('\n').filter((l) => l !== '')) {
      const r = JSON.parse(line) as { path: string; method?: string; usage?: Record<string, number | undefined> | null };
      if (r.path !== '/v1/messages' || (r.method !== undefined && r.method !== 'POST') || !r.usage) continue;
      local.evaluated += r.usage.input_tokens ?? 0;
      local.written += r.usage.cache_creation_input_tokens ?? 0;
      local.cached += r.usage.cache_read_input_tokens ?? 0;
      local.output += r.usage.output_tokens ?? 0;
    }
    expect(local.output).toBeGreaterThan(0);
    const caller = transcriptTurns(run.transcriptPath!).slice(1).map((t) => t.usage);
    const callerUsd = caller.reduce((n, t) => n + (t.input * PRICES.input + t.cacheRead * PRICES.cache_read + t.output * PRICES.output) / 1e6, 0);
    const localUsd = (local.evaluated * PRICES.input + local.written * PRICES.cache_write + local.cached * PRICES.cache_read + local.output * PRICES.output) / 1e6;
    const r = await cli('usage', '--by', 'job', '--json');
    expect(r.code, r.stderr).toBe(0);
    const row = (JSON.parse(r.stdout) as { rows: { key: string; caller: { measured: number; turns: number }; priced: { caller_usd: number; local_usd: number; net_usd: number } }[] }).rows.find((x) => x.key === jobId)!;
    expect(row.caller).toMatchObject({ measured: 1, turns: 3 });
    expect(row.priced.caller_usd).toBeCloseTo(callerUsd, 12);
    expect(row.priced.local_usd).toBeCloseTo(localUsd, 12);
    expect(row.priced.net_usd).toBeCloseTo(localUsd - callerUsd, 12);
    const text = await cli('usage');
    expect(text.stdout).toContain('caller (measured from their transcripts, 1 of 1 jobs; 0 unknown, 0 not looked up yet): 3 turns on caller-model');
    const line = await cli('statusline');
    expect(line.stdout).toMatch(/today 1 job, net saved −?\$[\d.]+ \(computed\)/);
  });
});
