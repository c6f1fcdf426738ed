// The job page: its facts in a person's words, per-request charts, diffstat and transcript tail.
// Refetched whenever the live feed says this job's row changed, so a running
// job's page follows it without a reload and a finished one costs nothing.
import { createCharts } from './charts.mjs';
import { byId, el, elapsedOf, FINISHED, fmtDuration, fmtInt, fmtWhen, statusBadge } from './dom.mjs';

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** One line that says at a glance whether the KV cache worked and how full the context got. */
export function summariseRequests(points, context) {
  if (points.length === 0) return ''; // the line in place of the charts says it
  const parts = [`${points.length} request${points.length === 1 ? '' : 's'}`];
  const answered = points.filter((p) => p.fresh !== null);
  const last = answered.at(-1);
  if (last) {
    const size = (last.cached ?? 0) + last.fresh;
    parts.push(`last prompt ${fmtInt(size)} tokens${context ? ` (${Math.round((size / context) * 100)}% of the ${fmtInt(context)} context)` : ''}`);
  }
  const reuse = (p) => {
    const total = (p.cached ?? 0) + p.fresh;
    return total > 0 ? (p.cached ?? 0) / total : 0;
  };
  const later = answered.slice(1); // the first request of a session has nothing to reuse
  if (later.length > 0) parts.push(`median KV-cache reuse ${Math.round(median(later.map(reuse)) * 100)}%`);
  const misses = later.filter((p) => reuse(p) < 0.5).map((p) => `#${p.n}`);
  if (misses.length > 0) parts.push(`cache mostly missed at ${misses.slice(0, 6).join(', ')}${misses.length > 6 ? '…' : ''}`);
  const failed = points.filter((p) => p.error).length;
  if (failed > 0) parts.push(`${failed} failed`);
  const open = points.filter((p) => p.open).length;
  if (open > 0) parts.push(`${open} open now`);
  return parts.join(' · ');
}

function fact(label, value) {
  return [el('dt', {}, label), el('dd', {}, value ?? '—')];
}

/** How each fact stands out: what went wrong in red, what to watch in orange, a passed check in green. */
const FACT_CLASS = { error: 'error', backend_error: 'warn', outage_wait: 'warn', warnings: 'warn small', queue: 'muted', endpoint_reason: 'muted', logs: 'muted small', sandbox: 'muted small' };
/** Facts whose lines are text to read as written (an answer, a stack of flags, a diffstat). */
const PREFORMATTED = new Set(['result', 'error', 'worktree', 'in_flight']);

function factBlock({ fact: key, lines }, record) {
  const classes = ['fact', FACT_CLASS[key] ?? '', key === 'verification' && record.verification?.passed ? 'verify passed' : ''].filter(Boolean).join(' ');
  return el(PREFORMATTED.has(key) ? 'pre' : 'p', { class: classes, 'data-fact': key }, lines.join('\n'));
}

export function createJobPage({ fetchJson }) {
  const root = byId('job-view');
  const charts = createCharts({ latency: byId('chart-latency'), prompt: byId('chart-prompt'), output: byId('chart-output') });
  let current = null;
  let seen = null; // the row as last loaded, to tell when to reload
  let loading = false;
  let again = false;

  function renderRecord(detail) {
    const r = detail.record;
    byId('job-title').textContent = `Job ${r.id}`;
    byId('job-status').replaceChildren(statusBadge(r.status));
    root.dataset.status = r.status;
    // Details around the facts, as the table under `localagents show`'s report.
    byId('job-facts').replaceChildren(
      ...fact('Elapsed', el('span', { id: 'job-elapsed', 'data-from': FINISHED.has(r.status) ? undefined : r.started_at ?? r.created_at }, fmtDuration(elapsedOf(r)))),
      ...fact('Context', r.model.context ? `${fmtInt(r.model.context)} tokens` : undefined),
      ...fact('Created', fmtWhen(r.created_at)),
      ...fact('Finished', r.finished_at ? fmtWhen(r.finished_at) : undefined),
      ...fact('Isolation', `${r.isolation} · ${r.work_dir ?? r.cwd}`),
    );
    byId('job-task').textContent = r.task_preview;
    // The job's facts in the words `localagents show` prints them, one block per fact.
    byId('job-outcome').replaceChildren(...detail.facts.map((f) => factBlock(f, r)));
    byId('job-diffstat').textContent = detail.diffstat?.text || (r.isolation === 'worktree' ? 'no changes' : 'not in a worktree (isolation "none")');
    byId('diff-note').textContent = detail.diffstat ? (detail.diffstat.live ? 'live' : 'as the job left it') : '';
    const tail = byId('job-tail');
    const atBottom = tail.scrollTop + tail.clientHeight >= tail.scrollHeight - 8;
    tail.textContent = detail.tail || '(empty)';
    if (atBottom) tail.scrollTop = tail.scrollHeight;
  }

  /** No requests yet: one line that says so, rather than three empty chart frames. */
  function renderRequests(series, status) {
    const none = series.points.length === 0;
    const waiting = byId('req-waiting');
    waiting.hidden = !none;
    waiting.textContent = FINISHED.has(status) ? 'This job sent no requests to the model.' : 'Waiting for the first request to the model…';
    byId('charts').hidden = none;
    if (none) charts.destroy();
    else charts.update(series.points, series.context);
    let note = summariseRequests(series.points, series.context);
    if (series.unreadable > 0) note += ` · ${series.unreadable} unreadable log lines`;
    byId('req-summary').textContent = note;
    // What each open request is doing, in the words of the command line and job_status.
    byId('req-open').replaceChildren(...series.points.filter((p) => p.open && p.line).map((p) => el('li', {}, p.line)));
    byId('req-errors').replaceChildren(
      ...series.points.filter((p) => p.error).slice(-20).map((p) => el('li', {}, `request #${p.n} (${fmtWhen(p.t)}): HTTP ${p.status} ${p.error}`)),
    );
  }

  async function load() {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    try {
      do {
        again = false;
        const id = current;
        const [detail, series] = await Promise.all([fetchJson(`/api/jobs/${id}`), fetchJson(`/api/jobs/${id}/requests`)]);
        if (id !== current) continue; // the user moved on meanwhile
        renderRecord(detail);
        renderRequests(series, detail.record.status);
        root.dataset.loaded = id;
      } while (again && current);
    } catch (err) {
      byId('job-outcome').replaceChildren(el('p', { class: 'warn' }, `Cannot load this job: ${err.message}`));
    } finally {
      loading = false;
    }
  }

  return {
    show(id, row) {
      if (id !== current) {
        current = id;
        seen = row ? JSON.stringify(row) : null;
        delete root.dataset.loaded;
        charts.destroy();
        byId('job-title').textContent = `Job ${id}`;
        for (const part of ['job-facts', 'job-outcome', 'req-open', 'req-errors']) byId(part).replaceChildren();
        for (const part of ['job-task', 'job-diffstat', 'job-tail', 'req-summary', 'diff-note']) byId(part).textContent = '';
      }
      root.hidden = false;
      void load();
    },
    hide() {
      root.hidden = true;
      current = null;
    },
    /** Called with every feed update; reloads only when this job's row changed. */
    rowsChanged(rows) {
      if (!current) return;
      const row = rows.get(current);
      const next = row ? JSON.stringify(row) : null;
      if (next !== seen) {
        seen = next;
        void load();
      }
    },
    tick() {
      const node = byId('job-elapsed');
      if (node?.dataset.from) node.textContent = fmtDuration((Date.now() - Date.parse(node.dataset.from)) / 1000);
    },
  };
}
