/**
 * The proxy's CPU while four streams run at once, paced like a fast local
 * model (a short prefill, then one event every few ms per stream), and the
 * TTFB and throughput ratios under that pacing: with a real generation speed
 * the proxy's per-byte cost hides behind the backend's.
 */
import { allCapturedRequests } from '../lib/fixtures.js';
import { openTarget, postMessages, type Sample } from '../lib/http-client.js';
import type { Table, Target } from '../lib/report.js';
import { formatSpread, median, rotate, spread } from '../lib/stats.js';
import type { ShimRig } from './shim-rig.js';

const STREAMS = 4;
const EVENTS = 500;
const EVENT_DELAY_MS = 2;
/** A short prefill: a cached 12k-token Claude Code prompt with ~1k new tokens on a fast GPU. */
const FIRST_EVENT_DELAY_MS = 100;
/** Streams start this far apart, as independent jobs' requests do; all four still overlap for most of their run. */
const STAGGER_MS = 20;

interface LoadRound {
  readonly cpuPercent: number;
  readonly cpuPerEvent: number;
  readonly total: number;
  readonly ttfb: number;
}

export async function measureStreamsUnderLoad(rig: ShimRig, scale: number): Promise<{ table: Table; targets: Target[]; notes: string[] }> {
  const captured = allCapturedRequests();
  const headers = captured[0]?.headers ?? {};
  const body = Buffer.from(JSON.stringify({ ...captured[0]?.body, stream: true }));
  await rig.setMode({ kind: 'sse', events: EVENTS, eventDelayMs: EVENT_DELAY_MS, firstEventDelayMs: FIRST_EVENT_DELAY_MS });
  const rounds = Math.max(2, Math.round(3 * scale));
  const byVariant = new Map<string, LoadRound[]>(rig.variants.map((v) => [v.name, []]));
  for (let round = -1; round < rounds; round++) {
    for (const v of rotate(rig.variants, Math.max(0, round))) {
      const targets = Array.from({ length: STREAMS }, () => openTarget(v.name, v.baseUrl));
      const cpu0 = await v.cpu();
      const t0 = performance.now();
      const samples: Sample[] = await Promise.all(
        targets.map(async (t, i) => {
          await new Promise((r) => setTimeout(r, i * STAGGER_MS));
          return postMessages(t, headers, body);
        }),
      );
      const wall = performance.now() - t0;
      const cpu = (await v.cpu()) - cpu0;
      await Promise.all(targets.map((t) => t.client.close()));
      if (samples.some((s) => s.status !== 200)) throw new Error(`${v.name}: HTTP ${samples.map((s) => s.status).join(',')}`);
      if (round >= 0) {
        byVariant.get(v.name)?.push({
          cpuPercent: (cpu / 1000 / wall) * 100,
          cpuPerEvent: cpu / (STREAMS * EVENTS),
          total: median(samples.map((s) => s.total)),
          ttfb: median(samples.map((s) => s.ttfb)),
        });
      }
    }
  }
  const direct = byVariant.get('direct') ?? [];
  const ratio = (rows: LoadRound[], f: (r: LoadRound) => number): ReturnType<typeof spread> =>
    spread(rows.map((r, i) => {
      const d = direct[i];
      return d ? f(d) / f(r) : Number.NaN;
    }));
  const rows = rig.variants.map((v) => {
    const r = byVariant.get(v.name) ?? [];
    const isDirect = v.name === 'direct';
    return [
      v.name,
      isDirect ? '—' : formatSpread(spread(r.map((x) => x.cpuPercent)), 1, '%'),
      isDirect ? '—' : formatSpread(spread(r.map((x) => x.cpuPerEvent)), 1),
      formatSpread(spread(r.map((x) => x.total)), 0),
      formatSpread(spread(r.map((x) => x.ttfb)), 2),
      isDirect ? '—' : formatSpread(ratio(r, (x) => x.total), 3),
      isDirect ? '—' : formatSpread(ratio(r, (x) => 1 / x.ttfb), 2),
    ];
  });
  const shim = byVariant.get('shim') ?? [];
  const throughput = ratio(shim, (x) => x.total);
  const ttfbRatio = spread(shim.map((r, i) => r.ttfb / (direct[i]?.ttfb ?? Number.NaN)));
  return {
    table: {
      title: `(c) ${STREAMS} concurrent streams started ${STAGGER_MS} ms apart, ${EVENTS} events each: first after ${FIRST_EVENT_DELAY_MS} ms, then one per ${EVENT_DELAY_MS} ms per stream (≈${Math.round(1000 / EVENT_DELAY_MS)} tokens/s, faster than local models), ${rounds} rounds`,
      columns: ['variant', 'proxy CPU (% of a core)', 'CPU µs/event', 'stream ms', 'TTFB ms', 'bytes/s ratio', 'TTFB ratio'],
      rows,
    },
    targets: [
      { what: 'shim throughput ratio, paced streams', measured: formatSpread(throughput, 3), target: '≥ 0.95', met: throughput.median >= 0.95 },
      { what: `shim TTFB ratio, paced streams (first event after ${FIRST_EVENT_DELAY_MS} ms)`, measured: formatSpread(ttfbRatio, 2), target: '≤ 1.05', met: ttfbRatio.median <= 1.05 },
    ],
    notes: [],
  };
}
