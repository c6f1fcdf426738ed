/**
 * Part 4: list_models over MCP (in-memory transport) with 8 endpoints, 3 of
 * which accept connections and never answer, against the same call with all
 * 8 live — alternating calls, probe_timeout_s 0.5. A hung server must cost
 * one timeout, not one per path or per endpoint. The simulators run in a
 * helper process, so their work is not timed as ours.
 */
import { resolve } from 'node:path';
import { startSilentServer, type SilentServer } from '../../test/helpers/silent-server.js';
import type { SimulatorOptions } from '../../test/sim/index.js';
import { forkHelper, type HelperProcess } from '../lib/child.js';
import type { SimInfo } from '../hosts/sim-host.js';
import { startInProcess, type InProcess } from '../lib/in-process.js';
import type { Table, Target } from '../lib/report.js';
import { formatSpread, spread } from '../lib/stats.js';

export const PROBE_TIMEOUT_S = 0.5;

function configYaml(urls: readonly { name: string; url: string; backend: string }[]): string {
  const endpoints = urls.map((u) => `  ${u.name}:\n    base_url: ${u.url}\n    backend: ${u.backend}\n`).join('');
  return `endpoints:\n${endpoints}defaults:\n  probe_timeout_s: ${PROBE_TIMEOUT_S}\n`;
}

async function timedCall(app: InProcess): Promise<number> {
  const t0 = performance.now();
  const result = await app.call('list_models');
  if (result.isError) throw new Error(`list_models failed: ${JSON.stringify(result.content)}`);
  return performance.now() - t0;
}

export async function measureProbing(scale: number): Promise<{ tables: Table[]; targets: Target[]; notes: string[] }> {
  const n = Math.max(5, Math.round(10 * scale));
  const simHost: HelperProcess = forkHelper(resolve(import.meta.dirname, '..', 'hosts', 'sim-host.ts'));
  const silent: SilentServer[] = [];
  const apps: InProcess[] = [];
  try {
    const specs: SimulatorOptions[] = Array.from({ length: 8 }, (_, i) => ({ flavor: i % 2 === 0 ? 'llama.cpp' : 'vllm', slots: 2, modelId: `model-${i}` }));
    const sims = await simHost.call<SimInfo[]>('start', specs);
    for (let i = 0; i < 3; i++) silent.push(await startSilentServer());
    const live = sims.map((s, i) => ({ name: `live${i}`, url: s.url, backend: s.flavor }));
    const hung = silent.map((s, i) => ({ name: `hung${i}`, url: `http://127.0.0.1:${s.port}`, backend: i % 2 === 0 ? 'llama.cpp' : 'vllm' }));
    const allLive = await startInProcess(configYaml(live));
    const someHung = await startInProcess(configYaml([...live.slice(0, 5), ...hung]));
    apps.push(allLive, someHung);
    // Warm-up (connections, JIT), not counted.
    for (let i = 0; i < 5; i++) await timedCall(allLive);
    await timedCall(someHung);
    const liveMs: number[] = [];
    const hungMs: number[] = [];
    for (let i = 0; i < n; i++) {
      if (i % 2 === 0) {
        liveMs.push(await timedCall(allLive));
        hungMs.push(await timedCall(someHung));
      } else {
        hungMs.push(await timedCall(someHung));
        liveMs.push(await timedCall(allLive));
      }
    }
    const backToBack: number[] = [];
    for (let i = 0; i < n; i++) backToBack.push(await timedCall(allLive));
    const live8 = spread(liveMs);
    const hung3 = spread(hungMs);
    const bound = PROBE_TIMEOUT_S * 1000 + 100;
    return {
      tables: [
        {
          title: `list_models wall time, ms, ${n} calls each, alternating, probe_timeout_s ${PROBE_TIMEOUT_S} (median (min–max))`,
          columns: ['endpoints', 'list_models ms'],
          rows: [
            ['8 live (4 llama.cpp, 4 vLLM simulators)', formatSpread(live8, 1)],
            ['8 live, calls back to back (warm caches)', formatSpread(spread(backToBack), 1)],
            ['5 live + 3 that accept and never answer', formatSpread(hung3, 1)],
          ],
        },
      ],
      targets: [
        { what: 'list_models with 3 silent endpoints', measured: formatSpread(hung3, 0, ' ms'), target: `≤ ${bound} ms (timeout + 100 ms)`, met: hung3.max <= bound },
        { what: 'list_models with 8 live endpoints', measured: formatSpread(live8, 1, ' ms'), target: '≤ 20 ms', met: live8.median <= 20 },
      ],
      notes: [
        'The silent-endpoint target is judged on the slowest call (max), the live one on the median of the alternating calls (each follows a 0.5 s wait, as real calls follow idle time); back-to-back calls show the warm-cache floor.',
      ],
    };
  } finally {
    for (const a of apps) await a.close();
    await simHost.close();
    for (const s of silent) await s.close();
  }
}
