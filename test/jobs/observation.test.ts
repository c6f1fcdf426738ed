/**
 * One look at the endpoints: a busy slot that one of our own requests held at
 * any moment of the probe is ours, not another client's, even when the request
 * began and ended while the probe ran (a slow probe on a busy machine).
 */
import { join } from 'node:path';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createProber, type Prober } from '../../src/backends/probe.js';
import { loadConfig } from '../../src/config/load.js';
import { observe } from '../../src/jobs/placement/observation.js';
import { createShimServer } from '../../src/shim/server.js';
import { createRequestLog } from '../../src/shim/request-log/request-log.js';
import { silentLogger } from '../../src/log.js';
import { slotUse } from '../../src/registry/slot-use.js';
import { startSimulator } from '../sim/index.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';

const cleanups = cleanupsAfterEach();

describe('observe', () => {
  it('counts a request of ours that began and ended during the probe as ours', async () => {
    const sim = await startSimulator({ flavor: 'llama.cpp', slots: 2 });
    cleanups.push(() => sim.close());
    sim.setScript([{ text: 'done' }]);
    const shim = createShimServer(silentLogger);
    cleanups.push(() => shim.close());
    const dir = mkdtempSync(join(tmpdir(), 'la-observe-'));
    const log = createRequestLog(join(dir, 'requests.jsonl'), undefined, () => undefined);
    cleanups.push(() => log.close());
    writeFileSync(join(dir, 'models.yaml'), `endpoints:\n  gpu:\n    base_url: ${sim.url}\n`);
    const config = await loadConfig({ configPath: join(dir, 'models.yaml'), cwd: dir, env: {} });
    const endpoint = config.endpoints[0]!;
    const route = await shim.open({ jobId: 'observe', endpoint, servedModel: sim.modelId, context: undefined, log });
    const real = createProber();
    cleanups.push(() => real.close());
    // The probe is slow: while it runs, one of our requests starts and ends, and its slot is what the probe saw busy.
    const slow: Prober = {
      ...real,
      async probeAll(c) {
        const answer = await fetch(`${route.baseUrl}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
          body: JSON.stringify({ model: sim.modelId, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
        });
        expect(answer.status).toBe(200);
        await answer.text();
        const [probe] = await real.probeAll(c);
        return [{ ...probe!, slots: { total: 2, busy: 1, free: 1, source: '/slots' } }];
      },
    };
    const seen = await observe(config, slow, shim);
    expect(sim.requests.filter((r) => r.path === '/v1/messages')).toHaveLength(1);
    expect(seen.ourInFlight.get('gpu')).toBe(1);
    // One job of ours leased, the other slot free: no other client is made up.
    expect(slotUse(endpoint, seen.probes[0]!, { thisProcess: 1, otherProcesses: 0, ourInFlight: seen.ourInFlight.get('gpu')! })).toMatchObject({ other_clients: 0, free: 1 });
  });
});
