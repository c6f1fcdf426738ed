// The endpoint cards: state and why, what each serves, slots and queue.
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

function card(e) {
  const models = e.models.length
    ? el('ul', { class: 'models' }, ...e.models.map((m) => el('li', {}, el('code', {}, m.id), m.context ? ` · ctx ${fmtInt(m.context)}` : '', m.status ? ` · ${m.status}` : '')))
    : el('p', { class: 'muted small' }, 'no models served');
  const queue = [`queue ${e.queued}`];
  if (e.kvCacheUsage !== undefined) queue.push(`KV cache ${Math.round(e.kvCacheUsage * 100)}%`);
  return el(
    'article',
    { class: `card ep-${e.state}`, 'data-endpoint': e.name, 'data-state': e.state },
    el('header', {}, el('strong', {}, e.name), el('span', { class: `state st-${e.state}` }, e.state)),
    el('p', { class: 'muted small' }, `${e.backend}${e.host ? ` on ${e.host}` : ''} · ${e.baseUrl}`),
    el('p', { class: 'reason' }, e.reason),
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
