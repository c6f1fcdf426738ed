/**
 * The jobs queued or running now, of every process sharing the state directory,
 * found through the slot board rather than by reading every record on file: a
 * job's ticket goes on the board before its record is written and comes off after
 * its last save (job-manager.ts), and the board leaves out dead owners' tickets, so
 * `localagents jobs` and the status line read a handful of records, not a year's.
 */
import { createSlotBoard } from '../../coord/slot-board.js';
import { isLocalAgentsError } from '../../errors.js';
import { FINISHED, type JobRecord } from '../record/job-record.js';
import { damagedRecord, type DamagedRecord, type JobStore } from '../record/job-store.js';

export interface LiveJob {
  readonly record: JobRecord;
  /** Holding a slot (running), not waiting for one. */
  readonly leased: boolean;
}

export async function liveJobs(stateDir: string, store: Pick<JobStore, 'load' | 'paths'>): Promise<{ jobs: LiveJob[]; damaged: DamagedRecord[] }> {
  const board = await createSlotBoard(stateDir).read();
  const jobs: LiveJob[] = [];
  const damaged: DamagedRecord[] = [];
  for (const ticket of board.tickets) {
    try {
      const record = await store.load(ticket.job);
      // Ended, its ticket not yet released: not live any more.
      if (!FINISHED.has(record.status)) jobs.push({ record, leased: ticket.endpoint !== undefined });
    } catch (err) {
      // No record yet: the ticket comes first, the record a moment later.
      if (isLocalAgentsError(err) && err.code === 'unknown_job') continue;
      damaged.push(damagedRecord(ticket.job, store.paths(ticket.job).record, err));
    }
  }
  jobs.sort((a, b) => a.record.id.localeCompare(b.record.id));
  return { jobs, damaged };
}
