/* global document */
// DOM and formatting helpers for the dashboard page. Text goes in through
// textContent only: task text and transcripts come from models and users.

/** Creates an element; attrs are attributes (`dataset` entries via `data-…`), children strings or nodes. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null && value !== false) node.setAttribute(name, String(value));
  }
  for (const child of children) {
    if (child === undefined || child === null) continue;
    node.append(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
  return node;
}

export function byId(id) {
  return document.getElementById(id);
}

const INT = new Intl.NumberFormat('en-US');

export function fmtInt(n) {
  return n === null || n === undefined ? '—' : INT.format(Math.round(n));
}

/** 3,400 → "3.4k", 1,200,000 → "1.2M": axis labels. */
export function fmtCompact(n) {
  if (n === null || n === undefined) return '';
  const abs = Math.abs(n);
  if (abs >= 1e6) return `${+(n / 1e6).toFixed(1)}M`;
  if (abs >= 1e3) return `${+(n / 1e3).toFixed(1)}k`;
  return String(+n.toFixed(2));
}

/** 0.42 → "420 ms" (a sub-second job or request is not "0s"), 75 → "1m 15s". */
export function fmtDuration(seconds) {
  if (seconds === null || seconds === undefined || Number.isNaN(seconds)) return '—';
  if (seconds < 1) return `${Math.max(0, Math.round(seconds * 1000))} ms`;
  const s = Math.floor(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Local date and time, shorter for today. */
export function fmtWhen(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  const today = new Date().toDateString() === d.toDateString();
  return today ? d.toLocaleTimeString() : d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** Seconds a job has run: from start (or creation while queued) to its end or now. */
export function elapsedOf(row, now = Date.now()) {
  const start = Date.parse(row.started_at ?? row.created_at);
  const end = row.finished_at ? Date.parse(row.finished_at) : now;
  return Math.max(0, (end - start) / 1000);
}

export const FINISHED = new Set(['succeeded', 'failed', 'cancelled', 'timeout', 'interrupted']);

export function statusBadge(status) {
  return el('span', { class: `status s-${status}` }, status);
}
