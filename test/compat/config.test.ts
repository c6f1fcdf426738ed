/**
 * Issue #14: a user of the original Python localagents keeps their models.yaml
 * and the models.local.yaml its register_* tools wrote. Both load unchanged in
 * the built server (over stdio), and every key means what it meant there:
 * menu entries' tags/env/max_turns/permission_mode, an entry's `endpoint` as a
 * preference, setting_sources keeping the user's ~/.claude out, log_dir and
 * server_cwd in the answers.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, makeDirs, ok, writeConfig, type Connected, type E2EDirs } from '../e2e/harness.js';
import { DEFAULT_LLAMA_MODEL, startSimulator, type Simulator } from '../sim/index.js';

/** A loopback port nothing listens on: the original's "endpoint is down". */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

/**
 * models.yaml as the original's README and ModelSpec/Defaults describe it: endpoints, a
 * menu entry with every key the original knew (the preferred endpoint `dgx` is down),
 * and its defaults (no setting_sources: the default is under test).
 */
function originalConfig(simUrl: string, downUrl: string): string {
  return `endpoints:
  dgx:
    base_url: ${downUrl}
    backend: vllm
    host: dgx
    notes: GB10, vllm serve
  gpu:
    base_url: ${simUrl}
    backend: llama.cpp
    host: gpu-box
    notes: 4090, llama-server --jinja
    env:
      COMPAT_ENDPOINT_MARK: from-endpoint
      COMPAT_MARK: from-endpoint
models:
  qwen3.8-27b:
    host: gpu-box
    notes: default mid-size coder
    served_name: ${DEFAULT_LLAMA_MODEL}
    endpoint: dgx
    context: 131072
    bring_up: llama-server -hf unsloth/Qwen3.8-27B-GGUF --jinja
    tags: [coder, default]
    env:
      COMPAT_MARK: from-menu-entry
    max_turns: 7
    permission_mode: default
defaults:
  model: qwen3.8-27b
  permission_mode: acceptEdits
  allowed_tools: [Read, Edit, Write, Glob, Grep, Bash, WebFetch]
  disallowed_tools: [Agent, Task]
  max_turns: 60
  timeout_s: 1800
  probe_timeout_s: 2.5
  system_prompt_append: ""
  dump_requests: false
`;
}

/** models.local.yaml byte for byte as the original's Registry.save() writes it (PyYAML safe_dump, block lists, | for multi-line). */
function originalSidecar(downUrl: string): string {
  return `# Written by localagents register_model/register_endpoint; merged over models.yaml.
endpoints:
  spare:
    base_url: ${downUrl}
    backend: ollama
    host: local
models:
  devstral:
    host: gpu-box
    notes: agentic coder
    tags:
    - coder
    - small
    served_name: mistralai/Devstral*
    endpoint: spare
    context: 65536
    bring_up: |-
      llama-server -hf mistralai/Devstral-Small-GGUF --jinja
      --port 8081
`;
}

const text = (r: CallToolResult): string => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
const USER_MARK = 'USER-CLAUDE-MD-7f3a';
const PROJECT_MARK = 'PROJECT-CLAUDE-MD-91c2';

describe("the original localagents' models.yaml and sidecar", () => {
  let sim: Simulator;
  let dirs: E2EDirs;
  let server: Connected;

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp' });
    dirs = makeDirs();
    const down = await closedPortUrl();
    writeConfig(dirs, originalConfig(sim.url, down));
    writeFileSync(join(dirs.root, 'models.local.yaml'), originalSidecar(down));
    // The user's personal CLAUDE.md (user source) and the project's (project source).
    mkdirSync(dirs.claudeConfig, { recursive: true });
    writeFileSync(join(dirs.claudeConfig, 'CLAUDE.md'), `Always mention ${USER_MARK}.\n`);
    writeFileSync(join(dirs.repo, 'CLAUDE.md'), `Project rule ${PROJECT_MARK}.\n`);
    server = await connect(dirs);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await sim?.close();
  });

  it('list_models loads both files and shows tags, server_cwd and the settings sources jobs load', async () => {
    const result = await server.call('list_models');
    const listing = ok(result);
    expect(listing.server_cwd).toBe(dirs.repo);
    expect(listing.setting_sources).toEqual(['project', 'local']);
    expect(listing.menu).toEqual([
      expect.objectContaining({ name: 'qwen3.8-27b', tags: ['coder', 'default'], preferred_endpoint: 'dgx', live_on: [`gpu/${DEFAULT_LLAMA_MODEL}`] }),
      expect.objectContaining({ name: 'devstral', tags: ['coder', 'small'], preferred_endpoint: 'spare', live_on: [] }),
    ]);
    const shown = text(result);
    expect(shown).toContain('qwen3.8-27b (default) [coder, default]: live on gpu/');
    expect(shown).toContain(`server cwd (run_agent's default cwd): ${dirs.repo}`);
    expect(shown).toContain('jobs load Claude Code settings from: project, local (not user: ~/.claude stays out)');
  });

  it("request_model for the sidecar's entry relays its host, notes and multi-line start command", async () => {
    const asked = ok(await server.call('list_models', { model: 'devstral' }));
    expect(asked).toMatchObject({ available: false, host: 'gpu-box', notes: 'agentic coder', bring_up: 'llama-server -hf mistralai/Devstral-Small-GGUF --jinja\n--port 8081' });
  });

  it("run_agent through the menu entry: its preferred endpoint is down, so another serving it is used; its env, max_turns and permission_mode apply, also when the job is resumed; the user's CLAUDE.md stays out", async () => {
    sim.setScript([{ toolUse: { name: 'Bash', input: { command: 'echo "mark=$COMPAT_MARK endpoint=$COMPAT_ENDPOINT_MARK"', description: 'Print the marks' } } }, { text: 'done' }]);
    const record = ok(await server.call('run_agent', { task: 'Print the marks, then say done.', model: 'qwen3.8-27b', wait_s: 100 }));
    // The menu entry's env wins over the endpoint's; the endpoint's other keys still apply.
    const bodies = sim.requests.filter((r) => r.path === '/v1/messages').map((r) => r.bodyText);
    expect(bodies.some((b) => b.includes('mark=from-menu-entry endpoint=from-endpoint'))).toBe(true);
    // Project CLAUDE.md reaches the model; the user's own does not.
    expect(bodies.some((b) => b.includes(PROJECT_MARK))).toBe(true);
    expect(bodies.some((b) => b.includes(USER_MARK))).toBe(false);

    expect(record).toMatchObject({
      status: 'succeeded',
      result: 'done',
      permission_mode: 'default',
      max_turns: 7,
      setting_sources: ['project', 'local'],
      model: { requested: 'qwen3.8-27b', menu_entry: 'qwen3.8-27b', served: DEFAULT_LLAMA_MODEL, endpoint: 'gpu' },
    });
    const model = record.model as { endpoint_reason: string };
    expect(model.endpoint_reason).toMatch(/^preferred endpoint dgx is down \(.+\); gpu is the only endpoint serving the model$/);

    const logDir = String(record.log_dir);
    expect(logDir).toBe(join(dirs.state, 'jobs', String(record.id)));
    for (const file of ['transcript.txt', 'events.jsonl', 'requests.jsonl']) expect(existsSync(join(logDir, file))).toBe(true);
    expect(text(await server.call('jobs', { job_id: record.id }))).toContain(`logs: ${logDir}`);

    // Resuming continues under the same menu entry: the record names the served id, but the entry's settings come back.
    const before = sim.requests.length;
    sim.setScript((req) =>
      req.lastUserText.includes('Print the mark once more')
        ? { toolUse: { name: 'Bash', input: { command: 'echo "again=$COMPAT_MARK"', description: 'Print the mark again' } } }
        : { text: 'done again' },
    );
    const resumed = ok(await server.call('run_agent', { task: 'Print the mark once more.', resume_job: record.id, wait_s: 100 }));
    expect(resumed).toMatchObject({
      status: 'succeeded',
      resumed_from: record.id,
      permission_mode: 'default',
      max_turns: 7,
      model: { menu_entry: 'qwen3.8-27b', served: DEFAULT_LLAMA_MODEL, endpoint: 'gpu' },
    });
    const resumedBodies = sim.requests.slice(before).filter((r) => r.path === '/v1/messages').map((r) => r.bodyText);
    expect(resumedBodies.some((b) => b.includes('again=from-menu-entry'))).toBe(true);
  }, 250_000);

  it("run_agent's endpoint argument stays a hard pin: the menu entry's live endpoint is not used instead", async () => {
    const refused = await server.call('run_agent', { wait_s: 0, task: 'Say done.', model: 'qwen3.8-27b', endpoint: 'dgx' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^model_unavailable: qwen3.8-27b is not running anywhere/);
  });
});
