/**
 * A job that fails while its session is being set up — here the repository's
 * `.claude/settings.json` is a directory, so reading it for pinned keys fails
 * with EISDIR after the job's shim route is open — still tears down everything
 * it opened: its route token stops answering, no file of the job stays open,
 * and the record ends failed with the reason.
 */
import { mkdirSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenRoute, RouteSpec } from '../../src/shim/routes.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { endpointYaml, makeDirs, ok, readRecord, startInProcess, type InProcess } from './in-process.js';

/** Files of this process that are open under `dir`. */
function openFilesUnder(dir: string): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(dir) ? [target] : [];
    } catch {
      return []; // closed while we looked
    }
  });
}

describe('a job whose setup fails after its route opened', () => {
  let sim: Simulator;
  let h: InProcess;
  const routes: OpenRoute[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ flavor: 'llama.cpp' });
    const dirs = makeDirs();
    mkdirSync(join(dirs.repo, '.claude', 'settings.json'), { recursive: true });
    h = await startInProcess({ yaml: endpointYaml(sim.url), dirs });
    // Watch the real shim hand out routes (each is the job's ANTHROPIC_BASE_URL); nothing is replaced.
    const open = h.app.shim.open.bind(h.app.shim);
    h.app.shim.open = async (spec: RouteSpec): Promise<OpenRoute> => {
      const route = await open(spec);
      routes.push(route);
      return route;
    };
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
  });

  it('fails with the reason, closes its route and leaves no file of the job open', async () => {
    const record = ok(await h.call('run_agent', { task: 'Say hi.', wait_s: 30 }));
    const id = String(record.id);
    expect(record.status).toBe('failed');
    expect(String(record.error)).toMatch(/^localagents failed to run the job: .*EISDIR/);
    expect(readRecord(h.dirs, id)).toMatchObject({ status: 'failed', error: record.error });

    expect(routes).toHaveLength(1);
    const reply = await fetch(`${routes[0]!.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(reply.status).toBe(404);
    expect(sim.requests.filter((r) => r.path === '/v1/messages')).toHaveLength(0);
    expect(openFilesUnder(join(h.dirs.state, 'jobs', id))).toEqual([]);
  });
});
