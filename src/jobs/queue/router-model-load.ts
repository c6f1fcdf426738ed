/**
 * A job placed on a router-mode server whose model is not loaded waits for the load before its session starts:
 * its record says so as it goes ("loading devstral on gpu-box, 40 s so far"), the session is then told the
 * loaded model's real window, and a load that fails ends the job with the router's words.
 */
import { loadRouterModel } from '../../backends/router-load.js';
import type { JobRecord } from '../record/job-record.js';
import type { QueuedJob } from './local-jobs.js';
import type { Placement } from '../placement/placement.js';

/** Saves the record every this many seconds of a load (a record per tick would be a write per second). */
const SAVE_EVERY_S = 5;

/** The job's model is not loaded on its router yet: its start waits for a load. */
export function needsRouterLoad({ candidate }: Placement): boolean {
  return candidate.probe.server.router === true && candidate.model.router !== undefined && candidate.model.routerStatus !== 'loaded';
}

/** The placement to run with (its window the loaded model's), or the error that ends the job. */
export async function awaitRouterModel(q: QueuedJob, placement: Placement, save: (record: JobRecord) => Promise<void>): Promise<Placement | { error: string }> {
  const { candidate } = placement;
  if (!needsRouterLoad(placement)) return placement;
  const what = `loading ${candidate.model.id} on ${candidate.endpoint.name}`;
  const note = (seconds: number): Promise<void> => {
    q.record = { ...q.record, queue: { position: 0, waiting_for: `${what}, ${seconds} s so far` } };
    return save(q.record);
  };
  await note(0);
  const waitS = q.settings.outageWaitS > 0 ? q.settings.outageWaitS : q.settings.timeoutS;
  const loaded = await loadRouterModel(candidate.endpoint, candidate.model.id, {
    waitS,
    onTick: (s) => {
      if (s % SAVE_EVERY_S === 0) void note(s);
    },
  });
  if (!loaded.ok) return { error: `the router could not load ${candidate.model.id}: ${loaded.message}` };
  if (loaded.context === undefined) return placement;
  return {
    candidate: { ...candidate, context: loaded.context, contextSource: 'llama.cpp /props n_ctx (per slot)' },
    reason: placement.reason,
  };
}
