/**
 * The queue and placement pump. Each pass resolves every queued job's model,
 * then, under the slot board's lock, leases a free slot to each job whose turn
 * it is (one FIFO per model across the processes sharing the board) and hands
 * it to `launch`; the jobs left waiting get their position. A pass runs when
 * asked (a job was added or ended, an endpoint was registered), when the board
 * file changes (another process's job ended or left), and every 2 s while jobs
 * wait: a server that finished loading or a slot another client freed shows
 * only in a probe.
 */
import type { Config } from '../../config/schema.js';
import type { BoardDraft, SlotBoard } from '../../coord/slot-board.js';
import { errorMessage, isLocalAgentsError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { resolveModel, type Resolution } from '../../registry/resolve.js';
import type { JobRecord } from '../record/job-record.js';
import type { LocalJobs, QueuedJob } from './local-jobs.js';
import { loadOf, type Observation } from '../placement/observation.js';
import { place, routerWait, type Placement, type PlacementInput } from '../placement/placement.js';
import type { RunRequest } from '../session/run-request.js';
import { needsRouterLoad } from './router-model-load.js';

/** How often a non-empty queue probes again for free slots when nothing has woken it. */
export const QUEUE_POLL_MS = 2000;
/** A probe this young (run_agent's own, made to check the request) is good enough for the pass right after. */
const RECENT_PROBE_MS = 1000;

export interface QueueDeps {
  readonly jobs: LocalJobs;
  readonly board: SlotBoard;
  readonly loadConfig: () => Promise<Config>;
  readonly observe: (config: Config) => Promise<Observation>;
  readonly save: (record: JobRecord) => Promise<void>;
  /** Frees the job's ticket and lease on the board. */
  readonly release: (id: string) => Promise<void>;
  readonly log: Logger;
  /** Starts a job whose slot is leased; resolves true once it runs, false when it ended first (its worktree could not be made). */
  readonly launch: (q: QueuedJob, placement: Placement) => Promise<boolean>;
}

export interface JobQueue {
  /** Runs one pass now (single-flight: a call during a pass gets exactly one more pass, and resolves after it). */
  readonly pump: () => Promise<void>;
  /** The probe run_agent has just made: the next pass uses it instead of probing again. */
  reuseProbe(seen: Observation): void;
  /** Ends a job that leaves the queue without running: its record gets `patch`, its ticket goes. */
  readonly settle: (q: QueuedJob, patch: Partial<JobRecord>) => Promise<void>;
  /** Stops the poll and the board watch; passes asked for later do nothing. */
  close(): void;
}

const modelOf = (request: RunRequest, record: JobRecord): string => request.model ?? record.model.requested ?? '(default)';

/** The FIFO a job waits in: its model, and the endpoint it is pinned to. */
export const fifoOf = (request: RunRequest, record: JobRecord): string => `${modelOf(request, record)}${request.endpoint ? `@${request.endpoint}` : ''}`;

/** What the record of a waiting job says it waits for. */
export const waitingFor = (q: QueuedJob): string => `a free slot for ${modelOf(q.request, q.record)}${q.request.endpoint ? ` on ${q.request.endpoint}` : ''}`;

interface Pass {
  readonly seen: Observation;
  readonly queue: readonly QueuedJob[];
  readonly resolved: ReadonlyMap<QueuedJob, Resolution>;
  readonly warmEndpoint: (cwd: string) => string | undefined;
}

/**
 * Under the board's lock, with every process's leases and FIFOs in `draft`: leases a slot to each job
 * whose turn it is on an endpoint with room, so placements never overbook and never overtake.
 */
export function placeQueued(draft: BoardDraft, pass: Pass): { placed: [QueuedJob, Placement][]; positions: Map<QueuedJob, number | undefined>; routerWaits: Map<QueuedJob, { reason: string; waited: string }> } {
  const placed: [QueuedJob, Placement][] = [];
  const routerWaits = new Map<QueuedJob, { reason: string; waited: string }>();
  for (const q of pass.queue) {
    const id = q.record.id;
    if (draft.ticket(id) === undefined) draft.enqueue({ job: id, model: fifoOf(q.request, q.record) }); // the board was lost: queue again
    const resolution = pass.resolved.get(q);
    if (resolution === undefined) continue;
    draft.setCandidates(id, resolution.candidates.map((c) => c.endpoint.name));
    const input: PlacementInput = {
      candidates: resolution.candidates.filter((c) => draft.aheadOf(id, c.endpoint.name) === undefined),
      loadOf: loadOf(pass.seen, draft),
      warmEndpoint: pass.warmEndpoint(q.settings.cwd),
      pinnedEndpoint: resolution.pinnedEndpoint,
      pinnedBy: q.settings.pinnedBy,
      preferredEndpoint: resolution.preferredEndpoint,
      preferredMissing: resolution.preferredMissing,
    };
    const placement = place(input);
    if (placement === undefined) {
      const wait = routerWait(input);
      if (wait !== undefined) routerWaits.set(q, wait);
      continue;
    }
    draft.lease(id, placement.candidate.endpoint.name, placement.candidate.model.id);
    // A job that waited for a router says so in its record: what it waited for.
    const waited = q.routerWaited;
    placed.push([q, waited !== undefined ? { ...placement, reason: `${placement.reason}; it waited in the queue while ${waited}` } : placement]);
  }
  return { placed, positions: new Map(pass.queue.map((q) => [q, draft.position(q.record.id)])), routerWaits };
}

/** Resolves every queued job now; those whose model is gone past the grace period (or that cannot resolve at all) are settled as failed. */
async function resolveQueued(seen: Observation, queue: readonly QueuedJob[], settle: JobQueue['settle']): Promise<Map<QueuedJob, Resolution>> {
  const resolved = new Map<QueuedJob, Resolution>();
  for (const q of queue) {
    try {
      resolved.set(q, resolveModel(seen.config, seen.probes, { model: q.request.model ?? q.record.model.requested, endpoint: q.request.endpoint }));
      q.lastServedAt = performance.now();
    } catch (err) {
      // A queued job waits for its model at least as long as a running job waits out its server
      // (outage_wait_s): through an outage the running jobs survive, the queue keeps its places.
      const { queue_grace_s, outage_wait_s } = seen.config.defaults;
      const graceMs = Math.max(queue_grace_s, outage_wait_s) * 1000;
      if (isLocalAgentsError(err) && (err.code !== 'model_unavailable' || performance.now() - q.lastServedAt >= graceMs)) {
        await settle(q, { status: 'failed', error: err.forRecord, error_code: err.code });
      }
    }
  }
  return resolved;
}

export function createJobQueue(deps: QueueDeps): JobQueue {
  const warmEndpointByTree = new Map<string, string>();
  let pumping: Promise<void> | undefined;
  let pumpAgain: Promise<void> | undefined;
  let pollTimer: NodeJS.Timeout | undefined;
  let stopBoardWatch: (() => void) | undefined;
  let recentProbe: Observation | undefined;
  let closed = false;

  const settle = async (q: QueuedJob, patch: Partial<JobRecord>): Promise<void> => {
    deps.jobs.move(q.record.id, { name: 'ended' });
    q.record = { ...q.record, ...patch, queue: undefined, finished_at: new Date().toISOString() };
    await deps.save(q.record);
    await deps.release(q.record.id);
    q.finish(q.record);
  };

  /** Moves the job to `starting` for as long as `launch` takes; a job that runs warms its tree's endpoint. */
  const start = async (q: QueuedJob, placement: Placement): Promise<void> => {
    let markStarted!: () => void;
    deps.jobs.move(q.record.id, { name: 'starting', started: new Promise<void>((resolve) => (markStarted = resolve)) });
    try {
      if (await deps.launch(q, placement)) warmEndpointByTree.set(q.settings.cwd, placement.candidate.endpoint.name);
    } finally {
      markStarted();
    }
  };

  const pumpOnce = async (): Promise<void> => {
    if (deps.jobs.queue().length === 0) return;
    const fresh = recentProbe !== undefined && performance.now() - recentProbe.at < RECENT_PROBE_MS ? recentProbe : undefined;
    recentProbe = undefined;
    const seen = fresh ?? (await deps.observe(await deps.loadConfig()));
    const resolved = await resolveQueued(seen, deps.jobs.queue(), settle);
    const queue = deps.jobs.queue();
    const { placed, positions, routerWaits } = await deps.board.change((draft) => placeQueued(draft, { seen, queue, resolved, warmEndpoint: (cwd) => warmEndpointByTree.get(cwd) }));
    // A start that waits for a router to load the model goes on by itself: the pass (and run_agent's answer) does not wait for it.
    for (const [q, placement] of placed) if (needsRouterLoad(placement)) void start(q, placement);
    await Promise.all(placed.filter(([, placement]) => !needsRouterLoad(placement)).map(([q, placement]) => start(q, placement)));
    // Positions across processes and what each waits for, for job_status.
    for (const q of deps.jobs.queue()) {
      const position = positions.get(q) ?? 0;
      const router = routerWaits.get(q);
      if (router !== undefined) q.routerWaited = router.waited;
      const waiting_for = router?.reason ?? waitingFor(q);
      if (q.record.queue?.position === position && q.record.queue.waiting_for === waiting_for) continue;
      q.record = { ...q.record, queue: { position, waiting_for } };
      await deps.save(q.record);
    }
  };

  /** While jobs wait, a change on the board re-runs placement at once, not at the next poll. */
  const syncWakeUps = (): void => {
    const waiting = deps.jobs.queue().length > 0 && !closed;
    if (waiting) stopBoardWatch ??= deps.board.watch(() => void pump());
    else {
      stopBoardWatch?.();
      stopBoardWatch = undefined;
    }
    if (waiting && pumpAgain === undefined) pollTimer = setTimeout(() => void pump(), QUEUE_POLL_MS);
  };

  function pump(): Promise<void> {
    if (closed) return Promise.resolve();
    if (pumping) {
      pumpAgain ??= pumping.then(() => {
        pumpAgain = undefined;
        return pump();
      });
      return pumpAgain;
    }
    clearTimeout(pollTimer);
    pumping = (async () => {
      try {
        await pumpOnce();
      } catch (err) {
        deps.log.error('queue: %s', errorMessage(err));
      } finally {
        pumping = undefined;
        syncWakeUps();
      }
    })();
    return pumping;
  }

  return {
    pump,
    reuseProbe(seen) {
      recentProbe = seen;
    },
    settle,
    close() {
      closed = true;
      clearTimeout(pollTimer);
      syncWakeUps();
    },
  };
}
