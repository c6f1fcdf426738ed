/**
 * The prompt cache across sandboxed jobs (issue 25): with Claude Code's sandbox on (the default), its environment
 * block names the job's private temp folder, its settings file and paths with the session id. The shim names those
 * values (shim/rewrite/per-job-values.ts), so two jobs' first requests are the same up to the end of their task and
 * the second takes all of it from the server's cache (the simulator's llama.cpp slot accounting; the real server's
 * in test/real/run-agent.real.test.ts). Needs the sandbox: bubblewrap and socat on PATH.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canon } from '../../bench/parts/prefix-stability.js';
import { startSimulator, type RecordedRequest, type Simulator } from '../sim/index.js';
import { connect, makeDirs, ok, writeConfig, type Connected, type E2EDirs } from './harness.js';

type Body = Parameters<typeof canon>[0];

const NOTE = '<system>In the environment above, ';

describe('two sandboxed jobs on the same model', { timeout: 180_000 }, () => {
  let dirs: E2EDirs;
  let sim: Simulator;
  let mcp: Connected;

  beforeAll(async () => {
    dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true, slots: 1 });
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
    mcp = await connect(dirs);
  }, 60_000);

  afterAll(async () => {
    await mcp?.close();
    await sim?.close();
  });

  async function firstRequest(isolation: 'none' | 'worktree' = 'none'): Promise<{ request: RecordedRequest; logged: { rewrites: string[] } }> {
    const before = sim.requests.length;
    sim.setScript([{ text: 'Done.' }]);
    const record = ok(await mcp.call('run_agent', { task: 'Say done.', model: sim.modelId, wait_s: 100, isolation }));
    expect(record).toMatchObject({ status: 'succeeded', sandbox: { enabled: true } });
    const request = sim.requests.slice(before).find((r) => r.path === '/v1/messages');
    if (request === undefined) throw new Error('no /v1/messages request reached the simulator');
    const lines = readFileSync(join(dirs.state, 'jobs', String(record.id), 'requests.jsonl'), 'utf8').trim().split('\n');
    return { request, logged: JSON.parse(lines[0] ?? '{}') as { rewrites: string[] } };
  }

  it("share the prompt up to the end of the task, and the second takes ≥ 99% of its first request from the cache", async () => {
    const a = await firstRequest();
    const b = await firstRequest();
    const [pa, pb] = [canon(a.request.json as Body), canon(b.request.json as Body)];
    const noteAt = pa.indexOf(NOTE);
    expect(noteAt).toBeGreaterThan(0);
    // Everything before the note is byte-identical: system, tools, the environment block with the sandbox, the task.
    expect(pb.slice(0, noteAt)).toBe(pa.slice(0, noteAt));
    expect(pa.slice(0, noteAt)).toContain('{job-temp}/claude-0/');
    expect(pa.slice(0, noteAt)).toContain('"text":"Say done."');
    expect((b.request.cachedTokens ?? 0) / (b.request.promptTokens ?? 1)).toBeGreaterThanOrEqual(0.99);
    expect(b.logged.rewrites).toContain('named 3 per-job value(s) in the environment block');

    // The model still reads its own session's values, after the task: the session id Claude Code sent.
    const session = b.request.headers['x-claude-code-session-id'];
    const note = pb.slice(pb.indexOf(NOTE), pb.indexOf('</system>', pb.indexOf(NOTE)));
    expect(note).toContain(`{session-id} stands for ${String(session)}`);
    expect(note).toMatch(/\{job-temp\} stands for \/\S+\/localagents-job\.\d+@\S+\.d\b/);
    expect(note).not.toBe(pa.slice(noteAt, pa.indexOf('</system>', noteAt)));
  });
});
