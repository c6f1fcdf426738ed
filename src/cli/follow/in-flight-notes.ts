/**
 * Lines about a job's open backend requests for a scrolling view (a pipe,
 * `localagents log -f`): one when a request changes phase or gains a flag, then
 * one every so often while it stays open, so a slow request still shows life.
 */
import type { JobRecord } from '../../jobs/record/job-record.js';
import { inFlightLine } from '../../jobs/view/in-flight-line.js';

/** A reminder while a request stays in one phase this long. */
const EVERY_MS = 15_000;

export interface InFlightNotes {
  lines(record: JobRecord, now?: Date): string[];
}

export function createInFlightNotes(): InFlightNotes {
  let last = new Map<number, { key: string; at: number }>();
  return {
    lines(record, now = new Date()) {
      const out: string[] = [];
      const next = new Map<number, { key: string; at: number }>();
      for (const request of record.in_flight ?? []) {
        const key = `${request.phase}|${request.flags.map((f) => f.kind).join(',')}`;
        const seen = last.get(request.request);
        if (seen === undefined || seen.key !== key || now.getTime() - seen.at >= EVERY_MS) {
          out.push(`${now.toISOString().slice(11, 19)} ${inFlightLine(request, now)}`);
          next.set(request.request, { key, at: now.getTime() });
        } else next.set(request.request, seen);
      }
      last = next;
      return out;
    },
  };
}
