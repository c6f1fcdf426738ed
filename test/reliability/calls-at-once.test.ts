/**
 * Many calls at once on a server that answers its status slowly: the calls
 * share one look at the server instead of each probing it. Each probing it
 * queued the probes behind one another in localagents' own connection pool,
 * past the probe timeout, and a busy server read as down.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../sim/index.js';
import { endpointYaml, ok, startInProcess, type InProcess } from './in-process.js';

const CALLS = 12;

describe(`${CALLS} list_models calls at once, the server slow to say its state`, () => {
  let sim: Simulator;
  let h: InProcess;

  beforeAll(async () => {
    // Each status answer takes 0.6 s: one look (its requests run side by side) takes about 1.2 s, within the 2.5-s probe bound.
    sim = await startSimulator({ flavor: 'llama.cpp', slots: 2, statusDelayMs: 600 });
    h = await startInProcess({ yaml: endpointYaml(sim.url) });
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
  });

  it('every call sees the server up, and the server is asked once, not once per call', async () => {
    const listings = await Promise.all(Array.from({ length: CALLS }, () => h.call('list_models').then(ok)));
    const states = listings.map((l) => (l as { endpoints: { state: string; reason: string }[] }).endpoints.map((e) => (e.state === 'up' ? 'up' : `${e.state}: ${e.reason}`)));
    expect(states).toEqual(Array(CALLS).fill(['up']));
    expect(sim.requests.filter((r) => r.path === '/props').length).toBeLessThan(CALLS / 2);
  });
});
