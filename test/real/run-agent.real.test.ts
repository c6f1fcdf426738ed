/**
 * The product's main path against a real llama-server (always-EOS tiny model, the real Qwen3.5 template,
 * `--jinja --slots --metrics --parallel 2`): the built localagents over stdio, the real Claude Code binary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeEnv, runClaudeP } from '../e2e/claude-cli.js';
import { ok } from '../e2e/harness.js';
import type { LlamaServer } from './llama-server.js';
import { startTestServer } from './server-for-test.js';
import { cacheShare, startLocalagents, type Localagents } from './mcp.js';

const SLOT_CONTEXT = 65536;

describe('run_agent on a real llama-server (2 slots)', () => {
  let server: LlamaServer;
  let la: Localagents;

  beforeAll(async () => {
    server = await startTestServer({ model: 'eos', parallel: 2, slotContext: SLOT_CONTEXT });
    la = await startLocalagents({ gpu: { url: server.url } });
  });

  afterAll(async () => {
    await la?.close();
    await server?.close();
  });

  it('list_models reports the real per-slot context and slot count', async () => {
    const listing = ok(await la.mcp.call('list_models'));
    const endpoint = (listing.endpoints as Array<{ endpoint: string; state: string; slots?: { total: number }; models: Array<{ id: string; context?: number }> }>)[0];
    expect(endpoint).toMatchObject({ endpoint: 'gpu', state: 'up', slots: { total: 2 }, models: [{ id: server.modelId, context: SLOT_CONTEXT }] });
  });

  it('a job succeeds through the shim, while bare Claude Code against the same server fails on the template', async () => {
    const started = await la.start({ task: 'Say hello.' });
    const job = await la.finish(started.id);
    expect(job).toMatchObject({ status: 'succeeded', model: { served: server.modelId, endpoint: 'gpu' } });
    const requests = la.requests(job.id).filter((r) => r.path === '/v1/messages');
    expect(requests.length).toBeGreaterThan(0);
    for (const r of requests) expect(r).toMatchObject({ status: 200, folded_system_messages: 1 });

    // One retry instead of ten: the template error is the same every time, and ten take ~3 minutes of backoff.
    const bareEnv = { ...claudeEnv(server.url, la.dirs.root, `${la.dirs.claudeConfig}-bare`, server.modelId), CLAUDE_CODE_MAX_RETRIES: '1' };
    const bare = await runClaudeP('Say hello.', la.dirs.repo, bareEnv, 300_000);
    expect(bare.result?.is_error).toBe(true);
    expect(`${bare.stdout}${bare.stderr}`).toContain('System message must be at the beginning');
  });

  it("the job record's /metrics deltas are the server's own counters, and match the tokens in requests.jsonl", async () => {
    const before = await server.metrics();
    const job = await la.finish((await la.start({ task: 'Describe this repository in one line.' })).id);
    const after = await server.metrics();
    expect(job.status).toBe('succeeded');
    const counters = (la.record(job.id).metrics as { counters: Record<string, number> }).counters;
    for (const name of ['llamacpp:prompt_tokens_total', 'llamacpp:tokens_predicted_total', 'llamacpp:n_decode_total']) {
      expect(counters[name] ?? 0, name).toBe((after[name] ?? 0) - (before[name] ?? 0));
    }
    // The server counts only evaluated prompt tokens, which is what usage.input_tokens says per request.
    const requests = la.requests(job.id).filter((r) => r.path === '/v1/messages');
    const evaluated = requests.reduce((n, r) => n + (r.usage?.input_tokens ?? 0), 0);
    expect(counters['llamacpp:prompt_tokens_total']).toBe(evaluated);
    expect(evaluated).toBeGreaterThan(0);
  });

  it('the second job in the same directory takes ≥ 95% of its first request from the server cache', async () => {
    const first = await la.finish((await la.start({ task: 'List the files in pkg.' })).id);
    const second = await la.finish((await la.start({ task: 'Count the lines of README.md and report the number.' })).id);
    expect([first.status, second.status]).toEqual(['succeeded', 'succeeded']);
    const share = cacheShare(la.requests(second.id).find((r) => r.path === '/v1/messages'));
    expect(share).toBeGreaterThanOrEqual(0.95);
  });

  // All but the note that states the values after the task comes from the cache. The note names the session id and two
  // folders `<name>.<pid>@<start>.<uuid>.d`, which part after their shared `<pid>@<start>`: ~190 of ~14,300 tokens in
  // this model's vocabulary (98.7%, measured). With the values not named, the next job's request parted before the task: ~70%.
  it('sandboxed, the second job with the same task takes all but its values note from the cache (> 98%)', async () => {
    const first = await la.finish((await la.start({ task: 'Say done.' })).id);
    const second = await la.finish((await la.start({ task: 'Say done.' })).id);
    expect([first.status, second.status]).toEqual(['succeeded', 'succeeded']);
    expect(la.record(second.id).sandbox).toMatchObject({ enabled: true });
    const line = la.requests(second.id).find((r) => r.path === '/v1/messages');
    expect(line?.rewrites).toContain('named 3 per-job value(s) in the environment block');
    expect(cacheShare(line)).toBeGreaterThan(0.98);
  });

  // Sandboxed, the first worktree job of a fresh repository leaves files in its .git: git's packed-refs (written when
  // the job's empty branch is deleted) and the empty mount points of Claude Code's sandbox (config.worktree, remotes,
  // …). The sandbox lists of the next job name one more path, before its task: 80% from the cache, once (measured;
  // open in issue 25: denying packed-refs before it exists breaks git's reads of it). From then on the lists hold.
  it('worktree jobs after the first of the repository (the path is reused) take ≥ 95% from the cache', async () => {
    const first = await la.finish((await la.start({ task: 'List the files in pkg.', isolation: 'worktree' })).id);
    const second = await la.finish((await la.start({ task: 'Count the lines of README.md.', isolation: 'worktree' })).id);
    const third = await la.finish((await la.start({ task: 'Say which files are in the repository root.', isolation: 'worktree' })).id);
    expect([first.status, second.status, third.status]).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(la.record(third.id).work_dir).toBe(la.record(first.id).work_dir);
    expect(cacheShare(la.requests(third.id).find((r) => r.path === '/v1/messages'))).toBeGreaterThanOrEqual(0.95);
  });

  it('with 2 slots, a third job queues until a slot frees, and all three succeed', async () => {
    const jobs = [];
    for (const task of ['First: say one.', 'Second: say two.', 'Third: say three.']) jobs.push(await la.start({ task }));
    expect(jobs.map((j) => j.status)).toEqual(['running', 'running', 'queued']);
    const done = await Promise.all(jobs.map((j) => la.finish(j.id)));
    expect(done.map((j) => j.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });
});
