// The model menu from models.yaml: each entry's notes and tags, where it runs
// now, and the command that starts it when it does not. Drawn from the page's
// first data (config only, `live_on` absent) and again with every probe.
import { el } from './dom.mjs';

function where(entry) {
  if (entry.live_on === undefined) return el('p', { class: 'muted small' }, 'checking where it runs…');
  if (entry.live_on.length > 0) return el('p', { class: 'small live-on' }, 'running on ', ...entry.live_on.flatMap((at, i) => [i ? ', ' : '', el('code', {}, at)]));
  return el('p', { class: 'small warn' }, 'not running on any endpoint');
}

function startCommand(entry) {
  if (entry.bring_up) return el('p', { class: 'small' }, 'Start it: ', el('code', { class: 'bring-up' }, entry.bring_up));
  return el('p', { class: 'muted small' }, 'No start command in models.yaml (add bring_up to show one here).');
}

function entryNode(entry, defaultModel) {
  const facts = [];
  if (entry.preferred_endpoint) facts.push(`prefers endpoint ${entry.preferred_endpoint}`);
  if (entry.host) facts.push(`on ${entry.host}`);
  return el(
    'article',
    { class: 'menu-entry', 'data-model': entry.name },
    el(
      'header',
      {},
      el('code', { class: 'name' }, entry.name),
      entry.name === defaultModel ? el('span', { class: 'tag default' }, 'default') : null,
      ...entry.tags.map((tag) => el('span', { class: 'tag' }, tag)),
    ),
    entry.notes ? el('p', { class: 'notes' }, entry.notes) : null,
    facts.length ? el('p', { class: 'muted small' }, facts.join(' · ')) : null,
    where(entry),
    startCommand(entry),
  );
}

export function renderMenu(root, menu, defaultModel) {
  const nodes = menu.map((entry) => entryNode(entry, defaultModel));
  if (nodes.length === 0) nodes.push(el('p', { class: 'muted' }, 'No models on the menu yet: add them under models: in models.yaml.'));
  root.replaceChildren(...nodes);
}
