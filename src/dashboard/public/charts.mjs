/* global uPlot, ResizeObserver */
// The three per-request charts of a job (uPlot, served from node_modules).
// x is the request number, so a gap in KV-cache reuse or a prompt that hits
// the context window shows at the request where it happened.
import { fmtCompact, fmtInt } from './dom.mjs';

const COLORS = { ttfb: '#2563eb', total: '#f59e0b', cached: '#16a34a', fresh: '#f97316', output: '#7c3aed', open: '#c4b5fd', context: '#dc2626' };
const HEIGHT = 210;

function bars() {
  return uPlot.paths.bars({ size: [0.7, 48], align: 0 });
}

function baseOptions(width, yLabel, series) {
  return {
    width,
    height: HEIGHT,
    scales: { x: { time: false, range: (_u, min, max) => [min - 0.6, max + 0.6] } },
    axes: [
      { label: 'request #', incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000], values: (_u, ticks) => ticks.map((t) => String(t)) },
      { label: yLabel, size: 56, values: (_u, ticks) => ticks.map(fmtCompact) },
    ],
    series: [{ label: 'request', value: (_u, v) => (v === null || v === undefined ? '—' : `#${v}`) }, ...series],
    legend: { live: true },
    cursor: { points: { size: 7 } },
  };
}

const seconds = (ms) => (ms === null || ms === undefined ? null : ms / 1000);
const fmtSeconds = (_u, v) => (v === null || v === undefined ? '—' : `${v.toFixed(2)} s`);
const fmtTokens = (_u, v) => (v === null || v === undefined ? '—' : fmtInt(v));

function latency(points, width) {
  const data = [points.map((p) => p.n), points.map((p) => seconds(p.ttfb_ms)), points.map((p) => seconds(p.total_ms))];
  const opts = baseOptions(width, 'seconds', [
    { label: 'first byte', stroke: COLORS.ttfb, width: 2, value: fmtSeconds, points: { show: true, size: 5 } },
    { label: 'total', stroke: COLORS.total, width: 2, value: fmtSeconds, points: { show: true, size: 5 } },
  ]);
  return { data, opts };
}

function prompt(points, width, context) {
  const cached = points.map((p) => p.cached);
  // Stacked by drawing the whole prompt first and the cached part over it.
  const whole = points.map((p) => (p.fresh === null ? null : (p.cached ?? 0) + p.fresh));
  const data = [points.map((p) => p.n), whole, cached];
  const series = [
    {
      label: 'evaluated anew',
      fill: COLORS.fresh,
      stroke: COLORS.fresh,
      paths: bars(),
      points: { show: false },
      value: (_u, v, _s, i) => (v === null || v === undefined || i === null ? '—' : fmtInt(v - (cached[i] ?? 0))),
    },
    { label: 'reused from KV cache', fill: COLORS.cached, stroke: COLORS.cached, paths: bars(), points: { show: false }, value: fmtTokens },
  ];
  if (context) {
    data.push(points.map(() => context));
    series.push({ label: 'context window', stroke: COLORS.context, dash: [6, 4], width: 1.5, points: { show: false }, value: fmtTokens });
  }
  return { data, opts: baseOptions(width, 'tokens', series) };
}

// An open request (still generating) is its own series, drawn lighter: its bar grows with every refresh.
function output(points, width) {
  const data = [points.map((p) => p.n), points.map((p) => (p.open ? null : p.output)), points.map((p) => (p.open ? p.output : null))];
  return {
    data,
    opts: baseOptions(width, 'tokens', [
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
      draw(containers.latency, (w) => latency(points, w));
      draw(containers.prompt, (w) => prompt(points, w, context));
      draw(containers.output, (w) => output(points, w));
      // For tests and screen readers: the open request's output so far, or nothing.
      const open = points.filter((p) => p.open);
      if (open.length > 0) containers.output.dataset.open = open.map((p) => p.output).join(' ');
      else delete containers.output.dataset.open;
    },
    destroy() {
      observer.disconnect();
      for (const [container, entry] of plots) {
        entry.plot.destroy();
        delete container.dataset.points;
        delete container.dataset.open;
      }
      plots.clear();
    },
  };
}
