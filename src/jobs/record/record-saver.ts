/**
 * Writes job records durably: a full or read-only disk must not stop a job,
 * so a refused record stays in memory, is written again every 2 s (its newest
 * state: a running job may have moved on), and gets a last try at shutdown.
 */
import { errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { JobRecord } from './job-record.js';

/** How often records the disk refused are written again. */
export const SAVE_RETRY_MS = 2000;

export interface RecordSaver {
  readonly save: (record: JobRecord) => Promise<void>;
  /** The record of `id` the disk refused, while it waits for its retry. */
  unsaved(id: string): JobRecord | undefined;
  unsavedRecords(): JobRecord[];
  /** At shutdown: one more try for every refused record; those still refused are named in the log. */
  flush(): Promise<void>;
}

export interface SaverDeps {
  readonly write: (record: JobRecord) => Promise<void>;
  readonly log: Logger;
  /** The newest state of a job this process still holds, if any. */
  readonly latest: (id: string) => JobRecord | undefined;
}

export function createRecordSaver(deps: SaverDeps): RecordSaver {
  const unsaved = new Map<string, JobRecord>();
  let retryTimer: NodeJS.Timeout | undefined;
  let closed = false;

  const scheduleRetry = (): void => {
    if (retryTimer !== undefined || unsaved.size === 0 || closed) return;
    retryTimer = setTimeout(() => void retryUnsaved(), SAVE_RETRY_MS).unref();
  };
  const retryUnsaved = async (): Promise<void> => {
    retryTimer = undefined;
    for (const [id, record] of [...unsaved]) {
      const latest = deps.latest(id) ?? record;
      try {
        await deps.write(latest);
        if (unsaved.get(id) === record) unsaved.delete(id);
        deps.log.info('job %s: its record is on disk again (%s)', id, latest.status);
      } catch {
        // Still refused: keep it, try again later.
      }
    }
    scheduleRetry();
  };

  return {
    async save(record) {
      try {
        await deps.write(record);
        unsaved.delete(record.id);
      } catch (err) {
        const known = unsaved.has(record.id);
        unsaved.set(record.id, record);
        if (!known) deps.log.error('%s; retrying every %d s', errorMessage(err), SAVE_RETRY_MS / 1000);
        scheduleRetry();
      }
    },
    unsaved: (id) => unsaved.get(id),
    unsavedRecords: () => [...unsaved.values()],
    async flush() {
      closed = true;
      clearTimeout(retryTimer);
      await retryUnsaved();
      for (const [id, record] of unsaved) {
        deps.log.error('job %s: its %s record could not be written before shutdown; the next server will not know how it ended', id, record.status);
      }
    },
  };
}
