/* global uPlot */
// The usage view: the last 30 days as `localagents usage --by day` reports them.
// The server sends the report and the CLI's own table cells; the page draws three
// charts from the report's numbers and shows the cells as they are.
import { byId, el, fmtCompact } from './dom.mjs';

const COLORS = { evaluated: '#f97316', cached: '#16a34a', output: '#7c3aed', saved: '#2563eb', succeeded: '#16a34a', failed: '#dc2626', other: '#9ca3af' };
const HEIGHT = 190;
const plots = new Map();

function chart(container, labels, series, data, yLabel, yValues) {
  plots.get(container)?.destroy();
  const width = Math.max(280, container.clientWidth || 480);
  const opts = {
    width,
    height: HEIGHT,
    scales: { x: { time: false, range: (_u, min, max) => [min - 0.6, max + 0.6] }, y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.08 : 1] } },
    axes: [
      { label: 'day', values: (_u, ticks) => ticks.map((t) => labels[Math.round(t)]?.slice(5) ?? ''), incrs: [1, 2, 5, 10] },
      { label: yLabel, size: 64, values: yValues ?? ((_u, ticks) => ticks.map(fmtCompact)) },
    ],
    series: [{ label: 'day', value: (_u, v) => labels[v] ?? '—' }, ...series.map((s) => ({ paths: uPlot.paths.bars({ size: [0.7, 40], align: 0 }), points: { show: false }, ...s }))],
    legend: { live: true },
  };
  plots.set(container, new uPlot(opts, [labels.map((_, i) => i), ...data], container));
  container.dataset.points = String(labels.length);
}

/**
 * Stacked bars, `parts` bottom to top: each drawn from zero to its running total,
 * the top one first, so every part shows as its own band; the legend says each
 * part's own value.
 */
function stacked(container, labels, parts, yLabel) {
  const totals = [];
  let running = labels.map(() => 0);
  for (const part of parts) {
    running = running.map((v, i) => v + part.values[i]);
    totals.push(running);
  }
  const order = parts.map((_, i) => i).reverse();
  chart(
    container,
    labels,
    order.map((i) => ({ label: parts[i].label, fill: parts[i].color, stroke: parts[i].color, value: (_u, _v, _s, row) => (row === null ? '—' : fmtCompact(parts[i].values[row])) })),
    order.map((i) => totals[i]),
    yLabel,
  );
}

export function renderUsage(view) {
  const rows = view.report.rows;
  const labels = rows.map((r) => r.key);
  byId('usage-empty').hidden = rows.length > 0;
  byId('usage-charts').hidden = rows.length === 0;
  if (rows.length > 0) {
    stacked(byId('chart-usage-tokens'), labels, [
      { label: 'from cache', color: COLORS.cached, values: rows.map((r) => r.cached) },
      { label: 'prompt evaluated', color: COLORS.evaluated, values: rows.map((r) => r.evaluated + r.cacheWritten) },
      { label: 'output', color: COLORS.output, values: rows.map((r) => r.output) },
    ], 'tokens');
    chart(byId('chart-usage-saved'), labels, [{ label: 'net saved (computed at published prices)', fill: COLORS.saved, stroke: COLORS.saved, value: (_u, v) => (v === null || v === undefined ? '—' : `$${v.toPrecision(2)}`) }],
      [rows.map((r) => (r.caller.models.some((m) => !r.caller.unpriced.includes(m)) ? r.priced.netUsd : null))], 'USD (computed)', (_u, ticks) => ticks.map((t) => `$${Number(t.toPrecision(2))}`));
    stacked(byId('chart-usage-jobs'), labels, [
      { label: 'succeeded', color: COLORS.succeeded, values: rows.map((r) => r.jobs.succeeded) },
      { label: 'failed', color: COLORS.failed, values: rows.map((r) => r.jobs.failed) },
      { label: 'other', color: COLORS.other, values: rows.map((r) => r.jobs.other) },
    ], 'jobs');
  }
  const table = byId('usage-table');
  table.replaceChildren(
    el('thead', {}, el('tr', {}, ...view.table.header.map((h) => el('th', {}, h || 'day')))),
    el('tbody', {}, ...view.table.rows.map((cells) => el('tr', {}, ...cells.map((c) => el('td', {}, c))))),
  );
  byId('usage-total').replaceChildren(...(rows.length > 0 ? view.total : []).map((line) => el('p', {}, line)));
  byId('usage-problems').replaceChildren(...view.problems.map((p) => el('li', {}, p)));
}
