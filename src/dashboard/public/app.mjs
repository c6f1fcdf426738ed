/* global document, location, window, fetch, EventSource, URLSearchParams */
// The dashboard page: one EventSource carries job rows and endpoint listings;
// the job page fetches its details when its row changes. The token stays in
// the query string (reloads keep working); the view lives in the hash.
import { byId } from './dom.mjs';
import { renderEndpoints } from './endpoints-view.mjs';
import { createJobPage } from './job-page.mjs';
import { createJobsTable } from './jobs-table.mjs';
import { renderMenu } from './menu-view.mjs';
import { renderUsage } from './usage-view.mjs';

const token = new URLSearchParams(location.search).get('token') ?? '';
const withToken = (path) => `${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;

async function fetchJson(path) {
  const res = await fetch(withToken(path), { cache: 'no-store' });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.message ?? `HTTP ${res.status}`);
  return body;
}

const rows = new Map();
const table = createJobsTable();
const jobPage = createJobPage({ fetchJson });
const live = byId('live');

function setLive(state, text) {
  live.dataset.state = state;
  live.textContent = text;
  document.body.dataset.live = state;
}

function showProblem(text) {
  const node = byId('problem');
  node.textContent = text ?? '';
  node.hidden = !text;
}

// Re-read when the jobs change, at most every 10 s: the report reads every job of the last 30 days.
let usageAt = 0;
let usageTimer;
function refreshUsage() {
  if (usageTimer !== undefined) return;
  usageTimer = window.setTimeout(async () => {
    usageTimer = undefined;
    usageAt = Date.now();
    try {
      renderUsage(await fetchJson('/api/usage'));
    } catch (err) {
      byId('usage-total').textContent = `usage could not be read: ${err.message}`;
    }
  }, Math.max(0, usageAt + 10_000 - Date.now()));
}

function route() {
  const match = /^#job\/([\w-]+)$/.exec(location.hash);
  if (match) {
    byId('jobs-view').hidden = true;
    byId('menu-section').hidden = true;
    byId('usage-section').hidden = true;
    jobPage.show(match[1], rows.get(match[1]));
    window.scrollTo(0, 0);
  } else {
    jobPage.hide();
    byId('jobs-view').hidden = false;
    byId('menu-section').hidden = false;
    byId('usage-section').hidden = false;
    table.update(rows);
    refreshUsage();
  }
}

// The jobs on record and the menu came inside the page: drawn before the feed connects.
const first = JSON.parse(byId('first-paint')?.textContent || 'null');
if (first) {
  for (const row of first.jobs) rows.set(row.id, row);
  renderMenu(byId('menu'), first.menu, first.defaultModel);
}

const events = new EventSource(withToken('/api/events'));
events.addEventListener('open', () => {
  setLive('open', 'live');
  showProblem(null);
});
events.addEventListener('error', () => {
  // CLOSED: the server refused us (a wrong token answers 403); CONNECTING: it went away and we retry.
  if (events.readyState === EventSource.CLOSED) {
    setLive('closed', 'disconnected');
    showProblem('The dashboard refused this page. Open the exact URL that `localagents dashboard` printed (the token changes on every start).');
  } else setLive('reconnecting', 'reconnecting…');
});
events.addEventListener('jobs', (event) => {
  const change = JSON.parse(event.data);
  if (change.reset) rows.clear();
  for (const row of change.upsert) rows.set(row.id, row);
  for (const id of change.remove) rows.delete(id);
  if (!byId('jobs-view').hidden) {
    table.update(rows);
    refreshUsage();
  }
  jobPage.rowsChanged(rows);
});
events.addEventListener('endpoints', (event) => {
  const view = JSON.parse(event.data);
  renderEndpoints(byId('endpoints'), byId('endpoints-age'), view);
  // A broken config has no menu: keep the one the page came with rather than blank it.
  if (!view.error) renderMenu(byId('menu'), view.menu, view.defaultModel);
});
events.addEventListener('problem', (event) => showProblem(JSON.parse(event.data).message));

window.addEventListener('hashchange', route);
window.setInterval(() => {
  table.tick();
  jobPage.tick();
}, 1000);
route();
