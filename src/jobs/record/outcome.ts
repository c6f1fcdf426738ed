/**
 * What became of a job's work, recorded in its own record as it becomes known
 * (merged, discarded, followed up, in the tree at the next commit or reverted),
 * and whether that counts as kept. A record without an outcome is unknown: never
 * counted as kept or as lost.
 */
import type { z } from 'zod';
import type { JobRecord } from './job-record.js';
import type { JobStore } from './job-store.js';
import type { outcomeSchema } from './outcome-schema.js';
import { FINISHED } from './job-status.js';
import { noteSettledJobChanged } from './settled-change.js';

export type JobOutcome = z.infer<typeof outcomeSchema>;
export type Fate = NonNullable<JobOutcome['fate']>;

/** kept: merged, or in the tree at the next commit. lost: discarded, reverted, or followed up (its session continued by a new task). */
export type Kept = 'kept' | 'lost' | 'unknown';

export function keptOf(record: Pick<JobRecord, 'outcome'>): Kept {
  const o = record.outcome;
  if (o?.followed_up_by !== undefined) return 'lost';
  switch (o?.fate?.kind) {
    case 'merged':
    case 'kept_in_tree':
      return 'kept';
    case 'discarded':
    case 'reverted':
      return 'lost';
    default:
      return 'unknown';
  }
}

const FATE_WORDS: Readonly<Record<Fate['kind'], string>> = {
  merged: 'merged',
  discarded: 'discarded',
  kept_in_tree: 'kept: its changes were committed',
  reverted: 'reverted: its changes were neither committed nor left in the tree',
  changed_further: 'unknown: its files were changed further before they were committed',
};

/** The outcome in one line, every audience's words: "outcome: merged (localagents merge, 2026-12-05 03:10): …; verify passed". */
export function outcomeLine(record: JobRecord): string | undefined {
  if (!FINISHED.has(record.status)) return undefined;
  const o = record.outcome;
  const parts: string[] = [];
  if (o?.fate !== undefined) parts.push(`${FATE_WORDS[o.fate.kind]} (${o.fate.by}, ${o.fate.at.slice(0, 16).replace('T', ' ')}): ${o.fate.detail}`);
  if (o?.followed_up_by !== undefined) parts.push(`followed up by job ${o.followed_up_by.job} (resume_job with a new task), so not counted as kept`);
  if (parts.length === 0) parts.push('unknown (not merged, discarded or committed yet, as far as localagents can tell)');
  const verify = record.verification === undefined ? '' : `; verify ${record.verification.passed ? 'passed' : 'failed'}`;
  return `outcome: ${parts.join('; ')}${verify}`;
}

/**
 * Adds what became known to the job's record (a fate already on file stays: the first found wins) and tells the
 * usage index, whose row of a settled job is otherwise read once. Returns the record as saved.
 */
export async function recordOutcome(store: Pick<JobStore, 'root' | 'read' | 'save'>, id: string, known: JobOutcome): Promise<JobRecord> {
  const record = await store.read(id);
  const outcome: JobOutcome = { fate: record.outcome?.fate ?? known.fate, followed_up_by: record.outcome?.followed_up_by ?? known.followed_up_by };
  if (outcome.fate === record.outcome?.fate && outcome.followed_up_by === record.outcome?.followed_up_by) return record;
  const updated: JobRecord = { ...record, outcome };
  await store.save(updated);
  if (FINISHED.has(updated.status)) await noteSettledJobChanged(store.root, id);
  return updated;
}

/** One model's jobs by outcome. */
export interface ModelKept {
  readonly model: string;
  readonly kept: number;
  readonly lost: number;
  readonly unknown: number;
}

/** Finished jobs by model (served, else asked for), most jobs first. */
export function keptByModel(records: readonly JobRecord[]): ModelKept[] {
  const counts = new Map<string, { kept: number; lost: number; unknown: number }>();
  for (const r of records) {
    if (!FINISHED.has(r.status)) continue;
    const model = r.model.served ?? r.model.requested ?? '(none)';
    let c = counts.get(model);
    if (c === undefined) counts.set(model, (c = { kept: 0, lost: 0, unknown: 0 }));
    c[keptOf(r)]++;
  }
  const total = (c: ModelKept): number => c.kept + c.lost + c.unknown;
  return [...counts].map(([model, c]) => ({ model, ...c })).sort((a, b) => total(b) - total(a) || a.model.localeCompare(b.model));
}

/** "qwen3.8-27b: 9 of 11 jobs kept (1 lost, 1 unknown)": exact counts, unknown never counted either way. */
export function keptWords(c: ModelKept): string {
  const jobs = c.kept + c.lost + c.unknown;
  return `${c.model}: ${c.kept} of ${jobs} job${jobs === 1 ? '' : 's'} kept (${c.lost} lost, ${c.unknown} unknown)`;
}
