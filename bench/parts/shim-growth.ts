/**
 * Part 6a: how the shim's added latency and its body work grow with the
 * request: bodies of 10 kB to 500 kB synthesised from one capture, small JSON
 * replies, every proxy side by side with direct.
 */
import { ladderBase, sizedBody } from '../lib/fixtures.js';
import type { Table, Target } from '../lib/report.js';
import { formatSpread } from '../lib/stats.js';
import { measurePipeline } from './normalise-cost.js';
import { runInterleaved } from './interleave.js';
import { summarise } from './shim-overhead.js';
import type { ShimRig } from './shim-rig.js';

export const SIZE_LADDER = [10_000, 50_000, 100_000, 250_000, 500_000] as const;

export async function measureGrowthBySize(rig: ShimRig, scale: number): Promise<{ tables: Table[]; targets: Target[] }> {
  const base = ladderBase();
  await rig.setMode({ kind: 'json' });
  const proxies = rig.variants.filter((v) => v.name !== 'direct').map((v) => v.name);
  const latencyRows: string[][] = [];
  const pipelineRows: string[][] = [];
  const rounds = Math.max(3, Math.round(5 * scale));
  let at500: number | undefined;
  for (const size of SIZE_LADDER) {
    const body = Buffer.from(JSON.stringify(sizedBody(base.body, size)));
    // claude-code-router takes ~0.4 s a request at 500 kB: fewer samples keep the part short.
    const perBatchFor = (name: string): number | undefined => (name === 'claude-code-router' && size > 50_000 ? 1 : undefined);
    const result = await runInterleaved(rig.variants, [body], base.headers, { rounds, cycles: 4, perBatch: 5, perBatchFor });
    const row = [`${Math.round(body.length / 1000)} kB`];
    for (const name of proxies) row.push(formatSpread(summarise(result, name).addedP50, 2));
    row.push(formatSpread(summarise(result, 'shim').cpuPerRequest, 0));
    latencyRows.push(row);
    const cost = measurePipeline([body], rounds);
    pipelineRows.push([
      `${Math.round(body.length / 1000)} kB`,
      formatSpread(cost.parse, 0),
      formatSpread(cost.normalise, 0),
      formatSpread(cost.serialise, 0),
      formatSpread(cost.total, 0),
      (cost.total.median / (body.length / 1000)).toFixed(1),
      `${formatSpread(cost.splice, 0)}${cost.spliceIdentical ? '' : ' (OUTPUT DIFFERS)'}`,
    ]);
    if (size === 500_000) at500 = summarise(result, 'shim').addedP50.median;
  }
  return {
    tables: [
      {
        title: `(d) added latency p50 (ms, over direct) by request size, small JSON reply, 20 requests per variant per round (claude-code-router: 4 above 50 kB), ${rounds} rounds`,
        columns: ['body', ...proxies.map((p) => `${p} ms`), 'shim CPU µs/req'],
        rows: latencyRows,
      },
      {
        title: `(e) parse + normaliseRequest + stringify alone, CPU µs per body (in process), ${rounds} rounds`,
        columns: ['body', 'JSON.parse', 'normaliseRequest', 'stringify+encode', 'full parse pipeline', 'µs per kB', 'shim pipeline (spans)'],
        rows: pipelineRows,
      },
    ],
    targets: at500 === undefined ? [] : [{ what: 'shim added latency p50 at 500 kB (no target; for scale)', measured: `${at500.toFixed(2)} ms`, target: '—', met: undefined }],
  };
}
