/**
 * Simulators in a process of their own, so that the backend's work (prompt
 * rendering, metrics) does not share an event loop or a CPU budget with the
 * localagents code being timed — as on a real setup, where the backend is
 * another machine. Scripts must be plain Turn lists (they cross IPC).
 */
import { startSimulator, type SimStats, type Simulator, type SimulatorOptions } from '../../test/sim/index.js';
import { serveCalls } from '../lib/child.js';

export interface SimInfo {
  readonly url: string;
  readonly flavor: string;
  readonly modelId: string;
}

export interface SimRequestSummary {
  readonly method: string;
  readonly path: string;
  readonly time: number;
  readonly endTime: number | undefined;
  readonly status: number | undefined;
}

function main(): void {
  const sims: Simulator[] = [];
  serveCalls(
    {
      start: async (params) => {
        const specs = params as SimulatorOptions[]; // the parent sends SimulatorOptions with list scripts (plain data)
        for (const spec of specs) sims.push(await startSimulator(spec));
        return sims.map((s): SimInfo => ({ url: s.url, flavor: s.flavor, modelId: s.modelId }));
      },
      stats: (): SimStats[] => sims.map((s) => ({ ...s.stats })),
      /** Live sums across all simulators: requests holding a slot, requests waiting for one. */
      load: (): { inFlight: number; queued: number } => ({
        inFlight: sims.reduce((n, s) => n + s.stats.inFlight, 0),
        queued: sims.reduce((n, s) => n + s.stats.queued, 0),
      }),
      requests: (): SimRequestSummary[][] =>
        sims.map((s) => s.requests.map((r) => ({ method: r.method, path: r.path, time: r.time, endTime: r.endTime, status: r.status }))),
    },
    async () => {
      for (const s of sims) await s.close();
    },
  );
}

main();
