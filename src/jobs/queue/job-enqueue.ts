/**
 * From a run_agent request to a queued job: which session a resume continues,
 * the job's settings, a fail-fast check that the model is served somewhere (or
 * about to be), the first record and the brief on disk, and the job's ticket on
 * the slot board, which fixes its place in its FIFO across processes.
 */
import type { Config } from '../../config/schema.js';
import type { SlotBoard } from '../../coord/slot-board.js';
import { isLocalAgentsError } from '../../errors.js';
import { findMenuEntry, resolveModel } from '../../registry/resolve.js';
import { newJobId } from '../record/job-id.js';
import { FINISHED, type JobRecord } from '../record/job-record.js';
import type { JobStore } from '../record/job-store.js';
import { fifoOf } from './job-queue.js';
import type { QueuedJob } from './local-jobs.js';
import { newQueuedRecord, resumeTarget, sessionBusy } from './new-job.js';
import { recordOutcome } from '../record/outcome.js';
import type { Observation } from '../placement/observation.js';
import { resolveCwd, settleSettings, type RequestedAgent, type RunRequest } from '../session/run-request.js';
import { findAgent } from '../../agents/find-agent.js';
import { agentModelChoice } from '../../agents/agent-model.js';

export interface EnqueueDeps {
  readonly loadConfig: () => Promise<Config>;
  readonly observe: (config: Config) => Promise<Observation>;
  readonly store: JobStore;
  readonly board: SlotBoard;
  readonly defaultCwd: string;
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  /** Whether this process still runs the job (its record has not ended). */
  readonly busy: (id: string) => boolean;
  /** The job's record as it stands, wherever it runs. */
  readonly get: (id: string) => Promise<JobRecord>;
}

/** Refuses a request whose model is nowhere, unless a server (the pinned one, if any) is still loading: that one will likely serve it soon. */
function checkServed(seen: Observation, request: RunRequest): void {
  try {
    resolveModel(seen.config, seen.probes, { model: request.model, endpoint: request.endpoint });
  } catch (err) {
    const loading = seen.probes.some((p) => p.state === 'loading' && (request.endpoint === undefined || p.endpoint === request.endpoint));
    if (!(isLocalAgentsError(err) && err.code === 'model_unavailable' && loading)) throw err;
  }
}

/** The agent the request names, and the request with the agent's model and endpoint filled in where the caller left them out. */
async function withAgent(request: RunRequest, config: Config, deps: EnqueueDeps): Promise<{ effective: RunRequest; agent: RequestedAgent | undefined }> {
  if (request.agent === undefined) return { effective: request, agent: undefined };
  const cwd = await resolveCwd(request.cwd ?? deps.defaultCwd);
  const { agent, entry } = await findAgent({ config, cwd, env: deps.parentEnv }, request.agent);
  const choice = agentModelChoice(agent, entry, config.defaults);
  const fromCaller = request.model === undefined ? choice.from : 'the model argument';
  return { effective: { ...request, model: request.model ?? choice.model, endpoint: request.endpoint ?? choice.endpoint }, agent: { found: agent, modelFrom: fromCaller, endpointFrom: request.endpoint === undefined && choice.endpoint !== undefined ? `agents.${agent.name}.endpoint in models.yaml` : undefined } };
}

/** The queued job, and the probe that checked it (the placement pass right after reuses it). */
export async function enqueueJob(deps: EnqueueDeps, request: RunRequest): Promise<{ queued: QueuedJob; seen: Observation }> {
  const config = await deps.loadConfig();
  const resumed = await resumeTarget(deps.store, request, deps.busy);
  const { resumeSession, menuEntry: resumedEntry } = resumed;
  const { effective, agent } = await withAgent(resumed.effective, config, deps);
  const requested = effective.model ?? config.defaults.model;
  const entryName = resumedEntry ?? requested;
  const menuEntry = entryName === undefined ? undefined : findMenuEntry(config, entryName);
  const settings = await settleSettings(effective, config, deps.defaultCwd, deps.parentEnv, menuEntry, agent);
  // Fail fast on arguments and on a model that is nowhere, before a record exists.
  const seen = await deps.observe(config);
  checkServed(seen, effective);

  const id = newJobId();
  const record = newQueuedRecord({
    id,
    task: request.task,
    requestedModel: requested,
    menuEntry: menuEntry?.name,
    logDir: deps.store.paths(id).dir,
    settings,
    resumedFrom: request.resumeJob,
    sessionId: resumeSession,
  });
  // The ticket claims a resumed session for this job; a holder whose record has ended gives its claim up.
  const holder = resumeSession === undefined ? undefined : (await deps.board.read()).sessionHolder(resumeSession);
  const endedHolder = holder !== undefined && FINISHED.has((await deps.get(holder).catch(() => undefined))?.status ?? 'running') ? holder : undefined;
  const { sessionHeldBy } = await deps.board.enqueue({ job: id, model: fifoOf(effective, record), session: resumeSession, endedHolder });
  if (sessionHeldBy !== undefined) throw sessionBusy(request.resumeJob ?? id, sessionHeldBy);
  const paths = await deps.store.create(record, request.task);
  // The earlier job's outcome: its session went on with a new task (best effort: the new job runs either way).
  if (request.resumeJob !== undefined) await recordOutcome(deps.store, request.resumeJob, { followed_up_by: { job: id, at: record.created_at } }).catch(() => undefined);
  let finish!: (r: JobRecord) => void;
  const done = new Promise<JobRecord>((resolve) => {
    finish = resolve;
  });
  return { queued: { record, paths, task: request.task, settings, request: effective, resumeSession, lastServedAt: performance.now(), done, finish }, seen };
}
