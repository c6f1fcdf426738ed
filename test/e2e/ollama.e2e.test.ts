/**
 * A job on an Ollama server, through every real part: MCP Client over stdio →
 * the built localagents → run_agent → the real Claude Code binary → the shim →
 * the Ollama-flavour simulator with a strict renderer (it refuses a
 * mid-conversation system message with a 500, as Ollama's qwen3.8 renderer
 * does). The model is installed but not loaded when the server starts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { connect, makeDirs, ok, writeConfig, type Connected, type E2EDirs } from './harness.js';

const MODEL = 'qwen3-coder:30b';
const text = (r: CallToolResult): string => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** The one model of the one endpoint in a list_models answer. */
function onlyModel(listing: Record<string, unknown>): Record<string, unknown> {
  const endpoints = listing.endpoints as { models: Record<string, unknown>[] }[];
  expect(endpoints).toHaveLength(1);
  expect(endpoints[0]?.models).toHaveLength(1);
  return endpoints[0]?.models[0] ?? {};
}

describe('run_agent on an Ollama endpoint', { timeout: 150_000 }, () => {
  let dirs: E2EDirs;
  let sim: Simulator;
  let mcp: Connected;

  beforeAll(async () => {
    dirs = makeDirs();
    sim = await startSimulator({ flavor: 'ollama', modelId: MODEL, strictQwen: true, ollamaLoaded: false, context: 131072 });
    writeConfig(dirs, `endpoints:\n  box:\n    base_url: ${sim.url}\n    backend: ollama\n    host: ollama-box\n`);
    mcp = await connect(dirs);
  }, 60_000);

  afterAll(async () => {
    await mcp?.close();
    await sim?.close();
  });

  it('list_models names the installed model and says its window is unknown until a request loads it', async () => {
    const result = await mcp.call('list_models');
    expect(onlyModel(ok(result))).toMatchObject({ id: MODEL, contextSource: 'unknown', routerStatus: 'unloaded' });
    const shown = text(result);
    expect(shown).toContain(`${MODEL}  context ? (unknown)  [unloaded]`);
    expect(shown).toContain('Ollama silently drops the oldest messages of a longer prompt; start the server with OLLAMA_CONTEXT_LENGTH=131072 ollama serve');
  });

  it('a job loads the model and succeeds; list_models then reports the window from /api/ps', async () => {
    sim.setScript((req) =>
      req.assistantTurns === 0
        ? { text: 'Writing it.', toolUse: { name: 'Write', input: { file_path: join(dirs.repo, 'ollama.txt'), content: 'from ollama\n' } } }
        : { text: 'Wrote ollama.txt.' },
    );
    const record = ok(await mcp.call('run_agent', { task: 'Write ollama.txt containing "from ollama".', model: MODEL, wait_s: 100 }));
    expect(record).toMatchObject({ status: 'succeeded', result: 'Wrote ollama.txt.', model: { served: MODEL, endpoint: 'box' } });
    expect(readFileSync(join(dirs.repo, 'ollama.txt'), 'utf8')).toBe('from ollama\n');

    // Every model request reached Ollama with the system messages folded, and was answered.
    const messages = sim.requests.filter((r) => r.path === '/v1/messages');
    expect(messages.length).toBeGreaterThanOrEqual(2);
    expect(messages.every((r) => r.status === 200)).toBe(true);
    const logged = readFileSync(join(String(record.log_dir), 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.filter((r) => r.path === '/v1/messages').every((r) => r.status === 200)).toBe(true);

    const after = await mcp.call('list_models');
    expect(onlyModel(ok(after))).toMatchObject({ id: MODEL, context: 131072, contextSource: 'ollama /api/ps context_length', routerStatus: 'loaded', warnings: [] });
    expect(text(after)).not.toContain('not loaded');
  });
});
