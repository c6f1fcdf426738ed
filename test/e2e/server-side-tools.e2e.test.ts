/**
 * Claude Code's WebSearch runs on Anthropic's servers; a delegated session on a
 * local model server is never offered it, and is told so in words. Checked on
 * what the real Claude Code binary sends: the MCP Client → the built
 * localagents → run_agent → the shim → the simulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { connect, makeDirs, ok, writeConfig, type Connected } from './harness.js';

describe('server-side tools in a delegated session', { timeout: 120_000 }, () => {
  let sim: Simulator;
  let mcp: Connected;

  beforeAll(async () => {
    const dirs = makeDirs();
    sim = await startSimulator({ flavor: 'llama.cpp', strictQwen: true });
    writeConfig(dirs, `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
    mcp = await connect(dirs);
  }, 60_000);

  afterAll(async () => {
    await mcp?.close();
    await sim?.close();
  });

  it('the requests offer no WebSearch, not even as a deferred tool, and the system prompt says why', async () => {
    sim.setScript([{ text: 'Nothing to search.' }]);
    const record = ok(await mcp.call('run_agent', { task: 'Search the web for the latest release notes.', wait_s: 100 }));
    expect(record).toMatchObject({ status: 'succeeded', result: 'Nothing to search.' });
    expect(record.disallowed_tools).toContain('WebSearch');

    const bodies = sim.requests.filter((q) => q.path === '/v1/messages').map((q) => JSON.parse(q.bodyText) as { tools?: Array<{ name?: string }>; system?: unknown; messages?: unknown });
    expect(bodies.length).toBeGreaterThan(0);
    for (const body of bodies) {
      const names = (body.tools ?? []).map((t) => t.name);
      expect(names).toContain('Read');
      expect(names).not.toContain('WebSearch');
      // Claude Code lists its deferred tools one per line in a system message; WebFetch stays, WebSearch is gone.
      const conversation = JSON.stringify(body.messages);
      expect(conversation).toContain('\\nWebFetch\\n');
      expect(conversation).not.toMatch(/\\nWebSearch(\\n|")/);
      expect(JSON.stringify(body.system)).toContain('WebSearch is not available in this session');
    }
  });
});
