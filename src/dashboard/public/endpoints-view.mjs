// The endpoint cards: state and why, what each serves (a router: each model's state, window, slots), slots and queue.
import { el, fmtInt } from './dom.mjs';

function slotsBar(e) {
  // llama.cpp reports slots; vLLM only how many requests run, against our capacity.
  const total = e.slots ? e.slots.total : e.running !== undefined && e.capacity > 0 ? e.capacity : undefined;
  if (total === undefined || total === 0) return el('p', { class: 'muted small' }, 'slots: not reported');
  const busy = e.slots ? e.slots.busy : e.running;
  const fill = el('div', { class: 'fill' });
  fill.style.width = `${Math.min(100, (busy / total) * 100)}%`;
  const label = e.slots ? `slots ${busy}/${total} busy (${e.slots.source})` : `${busy} running / capacity ${total}`;
  return el('div', { class: 'slots', 'data-busy': busy, 'data-total': total }, el('div', { class: 'meter', title: label }, fill), el('span', { class: 'small' }, label));
}

// A router's model: its state, window and where that came from, its slots, and what a new job on it costs.
function routerModel(m) {
  const r = m.router;
  const failed = r.failedExitCode !== undefined ? ` · last load failed (exit code ${r.failedExitCode})` : '';
  const slots = r.slots === undefined ? null : r.slots.planned ? `${r.slots.total} slots once loaded (router arguments)` : `slots ${r.slots.busy}/${r.slots.total} busy`;
  return el(
    'li',
    { 'data-model': m.id, 'data-status': m.status ?? 'unknown' },
    el('code', {}, m.id),
    ' · ',
    el('span', { class: `model-state ms-${m.status ?? 'unknown'}` }, m.status ?? 'state unknown'),
    failed,
    el('span', { class: 'window' }, m.context ? ` · ctx ${fmtInt(m.context)} ` : ' · ctx unknown '),
    el('span', { class: 'muted small' }, `(${r.contextSource})`),
    slots ? el('div', { class: 'small model-slots' }, slots) : null,
    r.newJob ? el('div', { class: 'small new-job' }, r.newJob) : null,
  );
}

function modelItem(m) {
  if (m.router) return routerModel(m);
  return el('li', { 'data-model': m.id }, el('code', {}, m.id), m.context ? ` · ctx ${fmtInt(m.context)}` : '', m.status ? ` · ${m.status}` : '');
}

function routerLine(e) {
  if (e.maxInstances === undefined) return null;
  const limit = e.maxInstances > 0 ? `up to ${e.maxInstances} model${e.maxInstances === 1 ? '' : 's'}` : 'any number of models';
  return el('p', { class: 'small router', 'data-max-instances': e.maxInstances }, `llama-server router: loads models on demand, keeps ${limit} loaded at once (max_instances ${e.maxInstances})`);
}

function card(e) {
  const models = e.models.length ? el('ul', { class: 'models' }, ...e.models.map(modelItem)) : el('p', { class: 'muted small' }, 'no models served');
  const queue = [`queue ${e.queued}`];
  if (e.kvCacheUsage !== undefined) queue.push(`KV cache ${Math.round(e.kvCacheUsage * 100)}%`);
  return el(
    'article',
    { class: `card ep-${e.state}`, 'data-endpoint': e.name, 'data-state': e.state },
    el('header', {}, el('strong', {}, e.name), el('span', { class: `state st-${e.state}` }, e.state)),
    el('p', { class: 'muted small' }, `${e.backend}${e.host ? ` on ${e.host}` : ''} · ${e.baseUrl}`),
    el('p', { class: 'reason' }, e.reason),
    routerLine(e),
    models,
    e.state === 'up' ? slotsBar(e) : null,
    e.slotUse ? el('p', { class: 'small slot-use' }, e.slotUse) : null,
    el('p', { class: 'small' }, queue.join(' · ')),
    e.queue.length ? el('ol', { class: 'queue small' }, ...e.queue.map((q) => el('li', {}, q))) : null,
    ...e.warnings.map((w) => el('p', { class: 'warn small' }, w)),
  );
}

export function renderEndpoints(root, ageNode, view) {
  const nodes = view.endpoints.map(card);
  if (view.error) nodes.unshift(el('p', { class: 'warn' }, `Cannot list endpoints: ${view.error}`));
  for (const w of view.warnings) nodes.push(el('p', { class: 'warn small' }, w));
  if (nodes.length === 0) nodes.push(el('p', { class: 'muted' }, 'No endpoints configured.'));
  root.replaceChildren(...nodes);
  ageNode.textContent = `probed ${new Date(view.at).toLocaleTimeString()}`;
}
