/* global uPlot, ResizeObserver */
// The three per-request charts of a job (uPlot, served from node_modules).
// x is the request number, so a gap in KV-cache reuse or a prompt that hits
// the context window shows at the request where it happened.
import { fmtCompact, fmtInt } from './dom.mjs';

// `failed` is not the context line's red: a failed request must not read as "hit the context window".
const COLORS = { ttfb: '#2563eb', total: '#f59e0b', cached: '#16a34a', fresh: '#f97316', reading: '#fdba74', output: '#7c3aed', open: '#c4b5fd', context: '#dc2626', failed: '#9f1239' };
const HEIGHT = 210;

function bars() {
  return uPlot.paths.bars({ size: [0.7, 48], align: 0 });
}

/** `y` overrides the value axis (label, scale, tick labels); by default token counts on a linear scale. */
function baseOptions(width, y, series) {
  return {
    width,
    height: HEIGHT,
    scales: { x: { time: false, range: (_u, min, max) => [min - 0.6, max + 0.6] }, ...(y.scale ? { y: y.scale } : {}) },
    axes: [
      { label: 'request #', incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000], values: (_u, ticks) => ticks.map((t) => String(t)) },
      { label: y.label, size: 64, values: y.values ?? ((_u, ticks) => ticks.map(fmtCompact)), ...(y.splits ? { splits: y.splits } : {}) },
    ],
    series: [{ label: 'request', value: (_u, v) => (v === null || v === undefined ? '—' : `#${v}`) }, ...series],
    legend: { live: true },
    cursor: { points: { size: 7 } },
  };
}

/** A linear axis from zero to a little over the largest value: bar heights and gaps read true. */
const FROM_ZERO = { range: (_u, _min, max) => [0, max > 0 ? max * 1.08 : 1] };

const seconds = (ms) => (ms === null || ms === undefined ? null : ms / 1000);
const fmtLatency = (_u, v) => (v === null || v === undefined ? '—' : v < 1 ? `${Math.round(v * 1000)} ms` : `${v.toFixed(2)} s`);
const fmtTokens = (_u, v) => (v === null || v === undefined ? '—' : fmtInt(v));

/** Decimals that tell ticks `incr` apart (0.25 → 2), so no two labels read the same. */
function decimalsFor(incr) {
  for (let d = 0; d < 4; d++) if (Math.abs(incr * 10 ** d - Math.round(incr * 10 ** d)) < 1e-6) return d;
  return 4;
}

/** Latency ticks in one unit for the whole axis: milliseconds while it stays under a second. */
export function latencyTicks(ticks, incr) {
  const ms = ticks.length > 0 && ticks.at(-1) < 1;
  const d = decimalsFor(ms ? incr * 1000 : incr);
  return ticks.map((t) => (ms ? `${(t * 1000).toFixed(d)} ms` : `${t.toFixed(d)} s`));
}

function latency(points, width, container) {
  const data = [points.map((p) => p.n), points.map((p) => seconds(p.ttfb_ms)), points.map((p) => seconds(p.total_ms))];
  const y = {
    label: 'latency',
    // From zero: a narrow band of similar latencies is not stretched into a steep-looking chart.
    scale: FROM_ZERO,
    values: (_u, ticks, _axis, _space, incr) => {
      const labels = latencyTicks(ticks, incr);
      container.dataset.yTicks = labels.join('|'); // what the axis reads, for tests and screen readers
      return labels;
    },
  };
  const opts = baseOptions(width, y, [
    { label: 'first byte', stroke: COLORS.ttfb, width: 2, value: fmtLatency, points: { show: true, size: 5 } },
    { label: 'total', stroke: COLORS.total, width: 2, value: fmtLatency, points: { show: true, size: 5 } },
  ]);
  return { data, opts };
}

/** Grid lines at 100, 1k, 10k…: the log axis without a line at every 2×, 3×, … between them. */
function powersOfTen(_u, _axis, min, max) {
  const splits = [];
  for (let p = 10 ** Math.ceil(Math.log10(min)); p <= max; p *= 10) splits.push(p);
  return splits;
}

const positive = (v) => (v === null || v === undefined || v <= 0 ? null : v);

/**
 * Prompt sizes on a log scale, so a 2k-token prompt still shows as a bar next
 * to a 128k context line. A failed request has no usage: its bar (own colour)
 * stands at the size the conversation had reached, the previous request's
 * prompt plus its output, which its own prompt was at least. An open request
 * whose prompt the server is reading (llama.cpp /slots) stands, lighter, at
 * what has been read so far, and grows with every refresh.
 */
function prompt(points, width, context) {
  const cached = points.map((p) => positive(p.cached));
  // Stacked by drawing the whole prompt first and the cached part over it.
  const whole = points.map((p) => (p.fresh === null ? null : positive((p.cached ?? 0) + p.fresh)));
  const reading = points.map((p) => positive(p.prompt_read));
  let reached = null;
  const failed = points.map((p, i) => {
    const size = p.error && whole[i] === null ? reached ?? context ?? null : null;
    if (whole[i] !== null) reached = whole[i] + (p.output ?? 0);
    return size;
  });
  const data = [points.map((p) => p.n), whole];
  const series = [
    {
      label: 'evaluated anew',
      fill: COLORS.fresh,
      stroke: COLORS.fresh,
      paths: bars(),
      points: { show: false },
      value: (_u, v, _s, i) => (v === null || v === undefined || i === null ? '—' : fmtInt(v - (cached[i] ?? 0))),
    },
  ];
  // Before the cached series, so the cached part of a prompt being read is drawn over it too.
  if (reading.some((v) => v !== null)) {
    data.push(reading);
    series.push({ label: 'read so far (open request)', fill: COLORS.reading, stroke: COLORS.fresh, paths: bars(), points: { show: false }, value: fmtTokens });
  }
  data.push(cached);
  series.push({ label: 'reused from KV cache', fill: COLORS.cached, stroke: COLORS.cached, paths: bars(), points: { show: false }, value: fmtTokens });
  if (failed.some((v) => v !== null)) {
    data.push(failed);
    series.push({ label: 'failed request', fill: COLORS.failed, stroke: COLORS.failed, paths: bars(), points: { show: false }, value: fmtTokens });
  }
  if (context) {
    data.push(points.map(() => context));
    series.push({ label: 'context window', stroke: COLORS.context, dash: [6, 4], width: 1.5, points: { show: false }, value: fmtTokens });
  }
  // A magnitude below the smallest bar: the smallest prompt still stands clear of the axis.
  const scale = { distr: 3, log: 10, range: (_u, min, max) => [10 ** (Math.floor(Math.log10(Math.max(1, min))) - 1), max * 1.5] };
  return { data, opts: baseOptions(width, { label: 'tokens (log scale)', scale, splits: powersOfTen }, series) };
}

// An open request (still generating) is its own series, drawn lighter: its bar grows with every refresh.
function output(points, width) {
  const data = [points.map((p) => p.n), points.map((p) => (p.open ? null : p.output)), points.map((p) => (p.open ? p.output : null))];
  return {
    data,
    opts: baseOptions(width, { label: 'tokens', scale: FROM_ZERO }, [
      { label: 'generated', fill: COLORS.output, stroke: COLORS.output, paths: bars(), points: { show: false }, value: fmtTokens },
      { label: 'generating now', fill: COLORS.open, stroke: COLORS.output, paths: bars(), points: { show: false }, value: fmtTokens },
    ]),
  };
}

/** Keeps one uPlot per container; update() replaces the data (and rebuilds when the series change). */
export function createCharts(containers) {
  const plots = new Map();
  const observer = new ResizeObserver(() => {
    for (const [container, entry] of plots) entry.plot.setSize({ width: container.clientWidth, height: HEIGHT });
  });

  function draw(container, build) {
    const width = Math.max(280, container.clientWidth);
    const { data, opts } = build(width);
    const shape = opts.series.map((s) => s.label).join('|');
    const existing = plots.get(container);
    if (existing && existing.shape === shape) existing.plot.setData(data);
    else {
      existing?.plot.destroy();
      plots.set(container, { plot: new uPlot(opts, data, container), shape });
      observer.observe(container);
    }
    container.dataset.points = String(data[0].length);
    return data;
  }

  return {
    update(points, context) {
      draw(containers.latency, (w) => latency(points, w, containers.latency));
      draw(containers.prompt, (w) => prompt(points, w, context));
      draw(containers.output, (w) => output(points, w));
      // For tests and screen readers: the open request's output so far and prompt read so far, or nothing.
      const open = points.filter((p) => p.open);
      if (open.length > 0) containers.output.dataset.open = open.map((p) => p.output).join(' ');
      else delete containers.output.dataset.open;
      const reading = open.filter((p) => p.prompt_read !== undefined);
      if (reading.length > 0) containers.prompt.dataset.reading = reading.map((p) => p.prompt_read).join(' ');
      else delete containers.prompt.dataset.reading;
    },
    destroy() {
      observer.disconnect();
      for (const [container, entry] of plots) {
        entry.plot.destroy();
        delete container.dataset.points;
        delete container.dataset.open;
        delete container.dataset.reading;
        delete container.dataset.yTicks;
      }
      plots.clear();
    },
  };
}
