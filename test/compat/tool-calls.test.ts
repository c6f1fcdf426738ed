/**
 * Issue #14: the calls a user of the original Python localagents makes, with
 * its argument names and values (its defaults, its `tail_lines`, null for an
 * optional argument, register_model with only a name), against the built
 * server over stdio. Each must succeed with the meaning the original gave it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, makeDirs, ok, writeConfig, type Connected, type E2EDirs } from '../e2e/harness.js';
import { DEFAULT_LLAMA_MODEL, startSimulator, type Simulator } from '../sim/index.js';

/** A models.yaml as the original's README writes one: endpoints, a menu with notes/host/served_name/endpoint/context/bring_up/tags. */
function originalConfig(simUrl: string): string {
  return `endpoints:
  gpu:
    base_url: ${simUrl}
    backend: llama.cpp
    host: gpu-box
    notes: 4090, llama-server --jinja
models:
  qwen3.8-27b:
    host: gpu-box
    notes: default mid-size coder
    tags: [coder, default]
    context: 131072
  glm-4.6:
    host: rack-07
    notes: strongest here; slow
    served_name: zai-org/GLM-4.6-FP8
    tags: [big]
    bring_up: ssh rack-07 'systemctl --user start vllm-glm'
defaults:
  model: qwen3.8-27b
`;
}

const text = (r: CallToolResult): string => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe("the original localagents' tool calls", () => {
  let sim: Simulator;
  let dirs: E2EDirs;
  let server: Connected;
  let jobId = '';
  const jobDirs = (): string[] => (existsSync(join(dirs.state, 'jobs')) ? readdirSync(join(dirs.state, 'jobs')) : []);

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp' });
    dirs = makeDirs();
    writeConfig(dirs, originalConfig(sim.url));
    server = await connect(dirs);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await sim?.close();
  });

  it('request_model(model), now list_models(model), says where a running model is live', async () => {
    expect(ok(await server.call('list_models', { model: 'qwen3.8-27b' }))).toMatchObject({
      model: 'qwen3.8-27b',
      available: true,
      live_on: [{ endpoint: 'gpu', served_model: DEFAULT_LLAMA_MODEL }],
    });
  });

  it("request_model(model), now list_models(model), for a model that is down gives model_unavailable's message (host, notes, start command) and starts no job", async () => {
    const asked = ok(await server.call('list_models', { model: 'glm-4.6' }));
    expect(asked).toMatchObject({ model: 'glm-4.6', available: false, host: 'rack-07', notes: 'strongest here; slow', bring_up: "ssh rack-07 'systemctl --user start vllm-glm'" });
    expect(jobDirs()).toEqual([]);
    const refused = await server.call('run_agent', { wait_s: 0, task: 'Say done.', model: 'glm-4.6' });
    expect(refused.isError).toBe(true);
    expect(text(refused).split('\n')[0]).toBe(`model_unavailable: ${String(asked.message)}`);
    expect(String(asked.message)).toContain('Ask the user to start it on rack-07.');
  });

  it('run_agent(task, wait_s=300) runs and answers the finished job; nothing to lower, a job has no 2-minute limit', async () => {
    sim.setScript([{ toolUse: { name: 'Bash', input: { command: 'echo compat-check', description: 'Print a marker' } } }, { text: 'done' }]);
    const record = ok(await server.call('run_agent', { task: 'Run echo compat-check, then say done.', wait_s: 300, model: null, endpoint: null, cwd: null, isolation: 'none' }));
    jobId = String(record.id);
    expect(record).toMatchObject({ status: 'succeeded', result: 'done' });
    expect(record.limits_applied).toBeUndefined();
  }, 150_000);

  it("wait_job(job_id, timeout_s=120) — the original's default — is accepted as it is", async () => {
    const result = await server.call('wait_job', { job_id: jobId, timeout_s: 120 });
    expect(ok(result)).toMatchObject({ id: jobId, status: 'succeeded' });
    expect(ok(result).limits_applied).toBeUndefined();
    expect(text(result)).not.toContain('lowered');
  });

  it("job_log(job_id, tail_lines=N)'s transcript is jobs(job_id, tail_lines=N): the last N lines", async () => {
    const whole = String(ok(await server.call('jobs', { job_id: jobId, tail_lines: 80 })).transcript).split('\n');
    expect(whole.length).toBeGreaterThan(2);
    const tail = String(ok(await server.call('jobs', { job_id: jobId, tail_lines: 2 })).transcript).split('\n');
    expect(tail).toEqual(whole.slice(-2));
  });

  it('job_status and list_jobs(include_finished=True), now jobs(job_id) and jobs(include_finished), and cancel_job on a finished job answer as before', async () => {
    expect(ok(await server.call('jobs', { job_id: jobId }))).toMatchObject({ id: jobId, status: 'succeeded' });
    const listed = ok(await server.call('jobs', { include_finished: true }));
    expect(listed.jobs).toEqual([expect.objectContaining({ id: jobId, status: 'succeeded' })]);
    expect(ok(await server.call('cancel_job', { job_id: jobId }))).toMatchObject({ id: jobId, status: 'succeeded' });
  });

  it("local_complete(prompt) asks for the original's 4096 output tokens", async () => {
    sim.setScript([{ text: 'hello' }]);
    const done = ok(await server.call('local_complete', { prompt: 'Say hello.', model: null, endpoint: null, system: null, temperature: null }));
    expect(done).toMatchObject({ text: 'hello', max_tokens: 4096 });
    const sent = sim.requests.filter((r) => r.path === '/v1/messages').at(-1)?.json as { max_tokens?: number } | undefined;
    expect(sent?.max_tokens).toBe(4096);
  });

  it('register_model with only a name, and with the original\'s empty values and tags, is accepted; tags are kept', async () => {
    ok(await server.call('register_model', { name: 'mistral-small' }));
    ok(
      await server.call('register_model', {
        name: 'devstral',
        host: 'gpu-box',
        notes: 'agentic coder',
        tags: ['coder', 'small'],
        served_name: '',
        endpoint: null,
        context: null,
        bring_up: '',
      }),
    );
    const sidecar = parse(readFileSync(join(dirs.root, 'models.local.yaml'), 'utf8')) as { models: Record<string, unknown> };
    expect(sidecar.models).toEqual({ 'mistral-small': {}, devstral: { host: 'gpu-box', notes: 'agentic coder', tags: ['coder', 'small'] } });
  });

  it("register_endpoint with the original's arguments and defaults (backend other, host local, empty notes)", async () => {
    const registered = ok(await server.call('register_endpoint', { name: 'spare', base_url: sim.url, backend: 'other', host: 'local', notes: '' }));
    expect(registered).toMatchObject({ entry: { base_url: sim.url, backend: 'other', host: 'local' }, probe: { state: 'up' } });
  });
});
