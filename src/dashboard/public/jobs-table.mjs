// The jobs table: sortable by any column, filtered, one page of rows in the
// DOM at a time, so hundreds of jobs cost no more to draw than fifty.
import { byId, el, elapsedOf, FINISHED, fmtDuration, fmtWhen, statusBadge } from './dom.mjs';

export const PAGE_SIZE = 50;

const COLUMNS = [
  { key: 'status', label: 'Status' },
  { key: 'id', label: 'Job' },
  { key: 'task', label: 'Task' },
  { key: 'model', label: 'Model' },
  { key: 'endpoint', label: 'Endpoint' },
  { key: 'elapsed', label: 'Elapsed', numeric: true },
  { key: 'turns', label: 'Turns', numeric: true },
  { key: 'files_touched', label: 'Files', numeric: true },
  { key: 'requests', label: 'Requests', numeric: true },
  { key: 'tokens_per_s', label: 'Speed', numeric: true },
  { key: 'created_at', label: 'Created' },
];

const valueOf = (row, key, now) => (key === 'elapsed' ? elapsedOf(row, now) : row[key] ?? '');

export function createJobsTable() {
  const table = byId('jobs');
  const headRow = table.querySelector('thead tr');
  const body = table.querySelector('tbody');
  const state = { key: 'created_at', dir: -1, page: 0, filter: '' };
  let rows = new Map();

  for (const column of COLUMNS) {
    const button = el('button', { type: 'button', 'data-key': column.key }, column.label);
    button.addEventListener('click', () => {
      state.dir = state.key === column.key ? -state.dir : column.numeric || column.key === 'created_at' ? -1 : 1;
      state.key = column.key;
      render();
    });
    headRow.append(el('th', { scope: 'col', class: column.numeric ? 'num' : undefined, 'data-key': column.key }, button));
  }
  byId('filter').addEventListener('input', (event) => {
    state.filter = event.target.value.trim().toLowerCase();
    state.page = 0;
    render();
  });
  byId('prev').addEventListener('click', () => {
    state.page = Math.max(0, state.page - 1);
    render();
  });
  byId('next').addEventListener('click', () => {
    state.page += 1;
    render();
  });

  function visible() {
    const now = Date.now();
    const match = (r) => !state.filter || [r.id, r.status, r.model, r.endpoint, r.task].some((v) => v && v.toLowerCase().includes(state.filter));
    return [...rows.values()].filter(match).sort((a, b) => {
      const x = valueOf(a, state.key, now);
      const y = valueOf(b, state.key, now);
      return (x < y ? -1 : x > y ? 1 : 0) * state.dir || (a.id < b.id ? 1 : -1);
    });
  }

  function rowNode(r) {
    const live = !FINISHED.has(r.status);
    const elapsed = el('td', { class: 'num', 'data-col': 'elapsed', 'data-from': live ? r.started_at ?? r.created_at : undefined }, fmtDuration(elapsedOf(r)));
    const task = el('td', { class: 'task-cell', title: r.task }, r.task);
    const status = el('td', { 'data-col': 'status' }, statusBadge(r.status));
    if (r.status === 'queued' && r.queue_position) status.append(` #${r.queue_position}`);
    return el(
      'tr',
      { 'data-id': r.id, 'data-status': r.status },
      status,
      el('td', {}, el('a', { href: `#job/${r.id}` }, r.id)),
      task,
      el('td', { class: 'model-cell', title: r.model }, r.model ?? '—'),
      el('td', {}, r.endpoint ?? '—'),
      elapsed,
      el('td', { class: 'num' }, r.turns),
      el('td', { class: 'num' }, r.files_touched),
      el('td', { class: 'num' }, r.requests),
      el('td', { class: 'num', 'data-col': 'speed', title: 'output tokens per second of the open requests' }, live && r.tokens_per_s !== undefined ? `${r.tokens_per_s} tok/s` : '—'),
      el('td', { title: r.created_at }, fmtWhen(r.created_at)),
    );
  }

  function render() {
    const list = visible();
    const pages = Math.max(1, Math.ceil(list.length / PAGE_SIZE));
    state.page = Math.min(state.page, pages - 1);
    const slice = list.slice(state.page * PAGE_SIZE, (state.page + 1) * PAGE_SIZE);
    body.replaceChildren(...slice.map(rowNode));
    for (const th of headRow.children) {
      th.setAttribute('aria-sort', th.dataset.key === state.key ? (state.dir > 0 ? 'ascending' : 'descending') : 'none');
    }
    byId('page-info').textContent = `page ${state.page + 1} of ${pages}`;
    byId('prev').disabled = state.page === 0;
    byId('next').disabled = state.page >= pages - 1;
    byId('jobs-empty').hidden = rows.size > 0;
    const running = [...rows.values()].filter((r) => r.status === 'running').length;
    byId('jobs-count').textContent = `${rows.size} total · ${running} running${list.length !== rows.size ? ` · ${list.length} shown` : ''}`;
  }

  return {
    /** New rows from the live feed. */
    update(next) {
      rows = next;
      render();
    },
    /** Once a second: running jobs' elapsed time, without redrawing the table. */
    tick() {
      const now = Date.now();
      for (const cell of body.querySelectorAll('td[data-from]')) {
        cell.textContent = fmtDuration((now - Date.parse(cell.dataset.from)) / 1000);
      }
    },
  };
}
