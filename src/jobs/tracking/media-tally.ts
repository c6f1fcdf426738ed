/**
 * How many distinct images and documents the shim turned into text over a job.
 * Every request re-sends the whole history, so a request's own list repeats
 * earlier ones: the tally counts each content key once.
 */
import type { RequestLogEntry } from '../../shim/request-log/request-log.js';

export interface MediaCount {
  /** Images replaced by a note (the endpoint has no vision). */
  images: number;
  /** Documents replaced by their extracted text. */
  documents_extracted: number;
  /** Documents replaced by a note saying why there is no text. */
  documents_failed: number;
}

export interface MediaTally {
  /** Counts what the entry replaced that no earlier entry did; undefined while nothing was ever replaced. */
  add(entry: RequestLogEntry): MediaCount | undefined;
}

export function createMediaTally(): MediaTally {
  const seen = new Set<string>();
  const count: MediaCount = { images: 0, documents_extracted: 0, documents_failed: 0 };
  return {
    add(entry) {
      for (const r of entry.media_replaced ?? []) {
        const id = `${r.kind}:${r.key}`;
        if (seen.has(id)) continue;
        seen.add(id);
        if (r.kind === 'image') count.images += 1;
        else if (r.outcome === 'failed') count.documents_failed += 1;
        else count.documents_extracted += 1;
      }
      return seen.size === 0 ? undefined : { ...count };
    },
  };
}
