/**
 * The readable form of a model listing: one block per endpoint, then the menu.
 * Shared by `localagents models` and list_models' text, so both say the same.
 */
import type { QueueEntry } from '../jobs/job-manager.js';
import type { SlotUse } from '../jobs/placement.js';
import type { ModelListing } from './model-list.js';

function k(n: number | undefined): string {
  if (n === undefined) return '?';
  return n >= 1024 && n % 1024 === 0 ? `${n / 1024}k` : String(n);
}

/** Who holds an endpoint's job places, in the words every edge uses. */
export function describeSlotUse(use: SlotUse): string {
  return `capacity ${use.capacity} jobs: ${use.this_process} this process, ${use.other_processes} other localagents processes, ${use.other_clients} other clients, ${use.free} free`;
}

export function describeQueueEntry(q: QueueEntry): string {
  return `#${q.position} ${q.model} (job ${q.job_id}, ${q.this_process ? 'this process' : `pid ${q.owner_pid}`})`;
}

export function formatModelList(listing: ModelListing): string {
  const out: string[] = [`config: ${listing.config}`, ...listing.warnings.map((w) => `warning: ${w}`), ''];
  if (listing.endpoints.length === 0) out.push('No endpoints configured. Add one to models.yaml (see models.example.yaml) or call register_endpoint.', '');
  for (const e of listing.endpoints) {
    out.push(`${e.endpoint} (${e.backend}, ${e.baseUrl}${e.host ? `, host ${e.host}` : ''}): ${e.state.toUpperCase()} — ${e.reason}`);
    for (const m of e.models) {
      out.push(`  ${m.id}  context ${k(m.context)} (${m.contextSource})${m.routerStatus ? `  [${m.routerStatus}]` : ''}`);
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
    for (const w of [...e.warnings, ...e.models.flatMap((m) => m.warnings)]) out.push(`  warning: ${w}`);
    if (e.notes) out.push(`  notes: ${e.notes}`);
    out.push('');
  }
  if (listing.menu.length > 0) {
    out.push('menu:');
    for (const m of listing.menu) {
      const where = m.live_on.length > 0 ? `live on ${m.live_on.join(', ')}` : `not running${m.host ? ` (start on ${m.host})` : ''}`;
      out.push(`  ${m.name}${m.name === listing.default_model ? ' (default)' : ''}: ${where}${m.notes ? ` — ${m.notes}` : ''}`);
      if (m.live_on.length === 0 && m.bring_up) out.push(`    start: ${m.bring_up}`);
    }
    out.push('');
  }
  out.push(listing.next_steps);
  return out.join('\n');
}
