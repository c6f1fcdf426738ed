/**
 * The job rows a page already has, and what changed since: the live feed sends a page the
 * full set once, then only the rows that changed or went away.
 */
import type { JobListRow } from '../jobs/view/job-facts.js';

/** Job id → the row's JSON as last sent. */
export type SentRows = ReadonlyMap<string, string>;

/** The `jobs` event that hands a page every row, replacing what it had. */
export function fullRowsEvent(rows: SentRows): string {
  return `{"reset":true,"upsert":[${[...rows.values()].join(',')}],"remove":[]}`;
}

/** The rows as they are now, and the `jobs` event that brings a page from `sent` to them (undefined when nothing changed). */
export function rowDelta(sent: SentRows, now: readonly JobListRow[]): { rows: SentRows; event: string | undefined } {
  const next = new Map(now.map((row) => [row.id, JSON.stringify(row)]));
  const upsert = [...next].filter(([id, json]) => sent.get(id) !== json).map(([, json]) => json);
  const remove = [...sent.keys()].filter((id) => !next.has(id));
  const event = upsert.length + remove.length > 0 ? `{"reset":false,"upsert":[${upsert.join(',')}],"remove":${JSON.stringify(remove)}}` : undefined;
  return { rows: next, event };
}
