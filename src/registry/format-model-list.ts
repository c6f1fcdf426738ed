/**
 * The readable form of a model listing: one block per endpoint, then the menu.
 * Shared by `localagents models` and the MCP listing's text, so both say the same;
 * only the advice at the ends is worded for its reader, by the edge that asks.
 */
import { printable } from '../printable.js';
import type { ServedModel } from '../backends/types.js';
import type { RouterFit } from './router-fit.js';
import type { RouterRoom } from './router-room.js';
import type { QueueEntry, SlotUse } from './slot-use.js';
import type { EndpointListing, ModelListing } from './model-list.js';

/** What each reader is told in its own terms (tools for the calling model, commands for a person): the edges own these words. */
export interface ListingWords {
  /** What the server's folder is to this reader. */
  readonly serverCwd: string;
  readonly noEndpoints: string;
  readonly nextSteps: string;
  /** The heading of the agents a job can run as: how this reader names one. */
  readonly agents: string;
}

function k(n: number | undefined): string {
  if (n === undefined) return '?';
  return n >= 1024 && n % 1024 === 0 ? `${n / 1024}k` : String(n);
}

/** Which settings files a job reads, in words: `user` is the one that brings ~/.claude (CLAUDE.md, hooks) along. */
export function describeSources(sources: readonly string[]): string {
  if (sources.length === 0) return 'none (no CLAUDE.md, settings or hooks)';
  const userNote = sources.includes('user') ? " (user includes the user's own ~/.claude settings, hooks and CLAUDE.md)" : ' (not user: ~/.claude stays out)';
  return `${sources.join(', ')}${userNote}`;
}

/** Who holds an endpoint's job places, in the words every edge uses. */
export function describeSlotUse(use: SlotUse): string {
  return `capacity ${use.capacity} jobs: ${use.this_process} this process, ${use.other_processes} other localagents processes, ${use.other_clients} other clients, ${use.free} free`;
}

export function describeQueueEntry(q: QueueEntry): string {
  return `#${q.position} ${q.model} (job ${q.job_id}, ${q.this_process ? 'this process' : `pid ${q.owner_pid}`})`;
}

/** What a new job on a router's model costs or waits for, in the words every edge uses. */
export function describeRouterRoom(model: string, room: RouterRoom): string {
  switch (room.kind) {
    case 'loaded':
      return 'loaded: a job starts on it at once';
    case 'room':
      return `a job loads ${model} first (nothing is evicted)`;
    case 'evicts':
      return `a job loads ${model} first, evicting the least recently used idle model of ${room.idle.join(', ')}`;
    case 'blocked':
      return `a job waits: ${room.reason}`;
  }
}

/** A router's model line: state, window, slots when loaded, what a job on it costs (`localagents models`, doctor, init). */
export function routerModelLines(e: EndpointListing, m: ServedModel): string[] {
  const state = m.routerStatus ?? '?';
  const failed = m.router?.failedExitCode !== undefined ? `, its last load failed (exit code ${m.router.failedExitCode})` : '';
  const out = [`  ${printable(m.id)}  [${printable(state)}${failed}]  context ${k(m.context)} (${m.contextSource})`];
  const slots = m.router?.slots;
  if (slots !== undefined) out.push(slots.source === 'router arguments' ? `    slots ${slots.total} once loaded (router arguments)` : `    slots ${slots.busy} busy / ${slots.free} free of ${slots.total}`);
  const room = e.model_rooms?.[m.id];
  if (room !== undefined) out.push(`    ${describeRouterRoom(printable(m.id), room)}`);
  return out;
}

const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

/** A router's own line: how many models it keeps loaded at once. */
export function routerLine(e: EndpointListing): string {
  const max = e.server.maxInstances;
  const limit = max === undefined || max <= 0 ? 'any number of models' : `up to ${plural(max, 'model')}`;
  return `  router: loads models on demand and holds ${limit} at once (max_instances); a probe never loads one`;
}

/** The warning when a router keeps fewer models loaded than the menu expects at once; undefined when it keeps enough. */
export function describeRouterFit(f: RouterFit): string | undefined {
  if (f.expected <= f.maxInstances) return undefined;
  const jobs = f.maxJobs ? `max_jobs ${f.capacity}` : `room for ${plural(f.capacity, 'job')} at once (its models' slots)`;
  return (
    `${f.endpoint} keeps at most ${plural(f.maxInstances, 'model')} loaded (--models-max ${f.maxInstances}), but your menu has ${plural(f.menuModels.length, 'model')} on it (${f.menuModels.join(', ')}) and ${jobs}: ` +
    `jobs on different models will wait for each other; start llama-server with --models-max ${f.expected} or more`
  );
}

/** One line per agent a job can run: name, where it is defined, the model it would use, what it is for. */
function agentLines(listing: ModelListing, words: ListingWords): string[] {
  const agents = listing.agents ?? [];
  const problems = listing.agent_problems ?? [];
  if (agents.length === 0 && problems.length === 0) return [];
  const out = [words.agents];
  for (const a of agents) {
    const model = `${a.model ?? 'first live model'}${a.endpoint === undefined ? '' : ` on ${a.endpoint}`}`;
    out.push(`  ${printable(a.name)} (${a.source}, ${printable(model)}): ${printable(a.description)}`);
  }
  for (const p of problems.slice(0, 5)) out.push(`  unusable: ${printable(p)}`);
  if (problems.length > 5) out.push(`  and ${problems.length - 5} more unusable agent files`);
  out.push('');
  return out;
}

export function formatModelList(listing: ModelListing, words: ListingWords): string {
  const out: string[] = [
    `config: ${listing.config}`,
    `server cwd (${words.serverCwd}): ${listing.server_cwd}`,
    `jobs load Claude Code settings from: ${describeSources(listing.setting_sources)}`,
    ...listing.warnings.map((w) => `warning: ${w}`),
    '',
  ];
  if (listing.endpoints.length === 0) out.push(words.noEndpoints, '');
  for (const e of listing.endpoints) {
    out.push(`${e.endpoint} (${e.backend}, ${e.baseUrl}${e.host ? `, host ${e.host}` : ''}): ${e.state.toUpperCase()} — ${printable(e.reason)}`);
    if (e.server.maxInstances !== undefined) out.push(routerLine(e));
    for (const m of e.models) {
      if (m.router !== undefined) out.push(...routerModelLines(e, m));
      else out.push(`  ${printable(m.id)}  context ${k(m.context)} (${m.contextSource})${m.routerStatus ? `  [${printable(m.routerStatus)}]` : ''}`);
    }
    if (e.state === 'up') {
      const slots = e.slots ? `slots ${e.slots.busy} busy / ${e.slots.free} free of ${e.slots.total}` : 'slots unknown';
      const load = e.metrics.enabled
        ? `metrics on${e.metrics.requestsRunning !== undefined ? `, running ${e.metrics.requestsRunning}` : ''}${e.metrics.requestsWaiting !== undefined ? `, waiting ${e.metrics.requestsWaiting}` : ''}${e.metrics.kvCacheUsage !== undefined ? `, KV ${Math.round(e.metrics.kvCacheUsage * 100)}%` : ''}`
        : 'metrics off';
      out.push(`  ${slots}; ${load}`);
      if (e.slot_use) out.push(`  ${describeSlotUse(e.slot_use)}`);
      if (e.queue.length > 0) out.push(`  queue: ${e.queue.map(describeQueueEntry).join(', ')}`);
    }
    for (const w of [...e.warnings, ...e.models.flatMap((m) => m.warnings)]) out.push(`  warning: ${printable(w)}`);
    if (e.notes) out.push(`  notes: ${e.notes}`);
    out.push('');
  }
  if (listing.menu.length > 0) {
    out.push('menu:');
    for (const m of listing.menu) {
      const where = m.live_on.length > 0 ? `live on ${m.live_on.join(', ')}` : `not running${m.host ? ` (start on ${m.host})` : ''}`;
      const tags = m.tags.length > 0 ? ` [${m.tags.join(', ')}]` : '';
      out.push(`  ${m.name}${m.name === listing.default_model ? ' (default)' : ''}${tags}: ${where}${m.notes ? ` — ${m.notes}` : ''}`);
      if (m.live_on.length === 0 && m.bring_up) out.push(`    start: ${m.bring_up}`);
    }
    out.push('');
  }
  out.push(...agentLines(listing, words));
  out.push(words.nextSteps);
  return out.join('\n');
}
