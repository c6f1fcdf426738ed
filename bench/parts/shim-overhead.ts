/**
 * Part 1: what the shim adds to a request, next to the same request sent
 * straight to the backend, through a bare TCP relay, and through
 * claude-code-router. Backend: the lean stub (canned JSON, or a canned
 * 2,000-event SSE stream written at once). Bodies: every captured Claude Code
 * request (30–60 kB), sent one at a time on a keep-alive connection.
 */
import { allCapturedRequests } from '../lib/fixtures.js';
import { ms, type Table, type Target } from '../lib/report.js';
import { formatSpread, percentile, spread, sum, type Spread } from '../lib/stats.js';
import { runInterleaved, type RoundPlan, type Rounds, type VariantRound } from './interleave.js';
import type { ShimRig } from './shim-rig.js';

export interface OverheadResult {
  readonly tables: Table[];
  readonly targets: Target[];
  readonly notes: string[];
}

interface RoundStats {
  readonly p50: number;
  readonly p99: number;
  readonly ttfb50: number;
  readonly bytesPerMs: number;
  readonly cpuPerRequest: number;
  readonly bytesPerResponse: number;
}

function roundStats(r: VariantRound): RoundStats {
  const totals = r.samples.map((s) => s.total);
  return {
    p50: percentile(totals, 50),
    p99: percentile(totals, 99),
    ttfb50: percentile(r.samples.map((s) => s.ttfb), 50),
    bytesPerMs: sum(r.samples.map((s) => s.bytes)) / sum(totals),
    cpuPerRequest: r.cpuMicros / r.samples.length,
    bytesPerResponse: sum(r.samples.map((s) => s.bytes)) / r.samples.length,
  };
}

/** One number per round, computed from a variant's and direct's stats of that round. */
function perRound(rounds: Rounds, variant: string, f: (v: RoundStats, direct: RoundStats) => number): Spread {
  return spread(
    rounds.map((round) => {
      const v = round.get(variant);
      const d = round.get('direct');
      return v && d ? f(roundStats(v), roundStats(d)) : Number.NaN;
    }),
  );
}

export interface KindSummary {
  readonly addedP50: Spread;
  readonly addedP99: Spread;
  readonly ttfbRatio: Spread;
  readonly throughputRatio: Spread;
  readonly cpuPerRequest: Spread;
  readonly ttfbAdded: Spread;
}

export function summarise(rounds: Rounds, variant: string): KindSummary {
  return {
    addedP50: perRound(rounds, variant, (v, d) => v.p50 - d.p50),
    addedP99: perRound(rounds, variant, (v, d) => v.p99 - d.p99),
    ttfbRatio: perRound(rounds, variant, (v, d) => v.ttfb50 / d.ttfb50),
    ttfbAdded: perRound(rounds, variant, (v, d) => v.ttfb50 - d.ttfb50),
    throughputRatio: perRound(rounds, variant, (v, d) => v.bytesPerMs / d.bytesPerMs),
    cpuPerRequest: perRound(rounds, variant, (v) => v.cpuPerRequest),
  };
}

function kindTable(title: string, rounds: Rounds, names: readonly string[], streamed: boolean): Table {
  const rows = names.map((name) => {
    const s = summarise(rounds, name);
    const abs = (f: (r: RoundStats) => number): Spread => perRound(rounds, name, (v) => f(v));
    return [
      name,
      formatSpread(abs((r) => r.p50), 3),
      formatSpread(abs((r) => r.p99), 3),
      name === 'direct' ? '—' : formatSpread(s.addedP50, 3),
      name === 'direct' ? '—' : formatSpread(s.addedP99, 3),
      formatSpread(abs((r) => r.ttfb50), 3),
      name === 'direct' ? '—' : formatSpread(s.ttfbRatio, 2),
      name === 'direct' || !streamed ? '—' : formatSpread(s.throughputRatio, 2),
      name === 'direct' ? '—' : formatSpread(s.cpuPerRequest, 0),
      abs((r) => r.bytesPerResponse).median.toFixed(0),
    ];
  });
  return {
    title,
    columns: ['variant', 'p50 ms', 'p99 ms', 'added p50 ms', 'added p99 ms', 'TTFB p50 ms', 'TTFB ratio', 'bytes/s ratio', 'proxy CPU µs/req', 'resp bytes'],
    rows,
  };
}

export async function measureOverhead(rig: ShimRig, scale: number): Promise<OverheadResult> {
  const captured = allCapturedRequests();
  const headers = captured[0]?.headers ?? {};
  const bodiesFor = (stream: boolean): Buffer[] => captured.map((r) => Buffer.from(JSON.stringify({ ...r.body, stream })));
  const rounds = Math.max(3, Math.round(6 * scale));
  const names = rig.variants.map((v) => v.name);

  await rig.setMode({ kind: 'json' });
  const jsonPlan: RoundPlan = { rounds, cycles: 10, perBatch: 20 };
  const json = await runInterleaved(rig.variants, bodiesFor(false), headers, jsonPlan);

  await rig.setMode({ kind: 'sse', events: 2000 });
  const ssePlan: RoundPlan = { rounds, cycles: 10, perBatch: 6 };
  const sse = await runInterleaved(rig.variants, bodiesFor(true), headers, ssePlan);

  const tables = [
    kindTable(`(a) small non-streamed reply — ${captured.length} captured bodies, ${jsonPlan.cycles * jsonPlan.perBatch} requests per variant per round, ${rounds} rounds`, json, names, false),
    kindTable(`(b) 2,000-event streamed reply — ${ssePlan.cycles * ssePlan.perBatch} requests per variant per round, ${rounds} rounds`, sse, names, true),
  ];
  const a = summarise(json, 'shim');
  const b = summarise(sse, 'shim');
  const targets: Target[] = [
    { what: 'shim added latency p50, (a) JSON', measured: formatSpread(a.addedP50, 3, ' ms'), target: '≤ 0.5 ms', met: a.addedP50.median <= 0.5 },
    { what: 'shim added latency p99, (a) JSON', measured: formatSpread(a.addedP99, 3, ' ms'), target: '≤ 1.5 ms', met: a.addedP99.median <= 1.5 },
    { what: 'shim added latency p50, (b) SSE', measured: formatSpread(b.addedP50, 3, ' ms'), target: '≤ 0.5 ms', met: b.addedP50.median <= 0.5 },
    { what: 'shim added latency p99, (b) SSE', measured: formatSpread(b.addedP99, 3, ' ms'), target: '≤ 1.5 ms', met: b.addedP99.median <= 1.5 },
    { what: 'shim TTFB ratio, (b) SSE, no-delay stub', measured: formatSpread(b.ttfbRatio, 2), target: '≤ 1.05', met: b.ttfbRatio.median <= 1.05 },
    { what: 'shim throughput ratio, (b) SSE', measured: formatSpread(b.throughputRatio, 2), target: '≥ 0.95', met: b.throughputRatio.median >= 0.95 },
  ];
  const notes = [
    `TTFB against the no-delay stub is sub-millisecond, so its ratio mostly shows the shim's fixed cost per request (${ms(b.ttfbAdded.median, 3)} added at p50). ` +
      `Against a backend whose first token takes T ms, the ratio is (T + ${b.ttfbAdded.median.toFixed(2)}) / T: ≤ 1.05 once T ≥ ${(b.ttfbAdded.median / 0.05).toFixed(0)} ms.`,
  ];
  return { tables, targets, notes };
}
