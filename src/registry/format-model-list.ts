/**
 * The readable form of a model listing: one block per endpoint, then the menu.
 * Shared by `localagents models` and list_models' text, so both say the same;
 * only the advice at the ends is worded for its reader.
 */
import { printable } from '../printable.js';
import type { QueueEntry, SlotUse } from './slot-use.js';
import { PERSON_NEXT_STEPS, type ModelListing } from './model-list.js';
import type { Audience } from './resolve.js';

const NO_ENDPOINTS: Record<Audience, string> = {
  model: 'No endpoints configured. Add one to models.yaml (see models.example.yaml) or call register_endpoint.',
  person: 'No endpoints configured. Run localagents init to find local servers and write models.yaml, or add one by hand (see models.example.yaml).',
};

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

export function formatModelList(listing: ModelListing, audience: Audience = 'model'): string {
  const out: string[] = [
    `config: ${listing.config}`,
    `server cwd (${audience === 'model' ? "run_agent's default cwd" : 'default folder for jobs'}): ${listing.server_cwd}`,
    `jobs load Claude Code settings from: ${describeSources(listing.setting_sources)}`,
    ...listing.warnings.map((w) => `warning: ${w}`),
    '',
  ];
  if (listing.endpoints.length === 0) out.push(NO_ENDPOINTS[audience], '');
  for (const e of listing.endpoints) {
    out.push(`${e.endpoint} (${e.backend}, ${e.baseUrl}${e.host ? `, host ${e.host}` : ''}): ${e.state.toUpperCase()} — ${printable(e.reason)}`);
    for (const m of e.models) {
      out.push(`  ${printable(m.id)}  context ${k(m.context)} (${m.contextSource})${m.routerStatus ? `  [${printable(m.routerStatus)}]` : ''}`);
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
  out.push(audience === 'model' ? listing.next_steps : PERSON_NEXT_STEPS);
  return out.join('\n');
}
