/**
 * defaults.failover: same_model — a running job whose endpoint has not served
 * its model for defaults.failover_after_s moves to another endpoint serving the
 * same model, as its shim route asks during the outage. The move is decided
 * like a new job's placement, on fresh probes, under the slot board's lock: the
 * job's lease moves to the new endpoint in the same write that frees the old
 * slot, so no backend is oversubscribed, by this process or any other sharing
 * the state directory. The record keeps every move, and why a try found nowhere.
 */
import { formatDuration } from '../../amounts.js';
import type { EndpointProbe } from '../../backends/types.js';
import type { Config, Endpoint } from '../../config/schema.js';
import type { SlotBoard } from '../../coord/slot-board.js';
import { isLocalAgentsError } from '../../errors.js';
import { resolveModel, type Resolution } from '../../registry/resolve.js';
import type { MoveChoice, MoveRequest, RouteFailover } from '../../shim/routes.js';
import { chooseMove, type MoveDecision } from '../placement/failover-choice.js';
import type { JobRecord, MoveRecord } from '../record/job-record.js';
import { loadOf, type Observation } from '../placement/observation.js';
import type { JobSettings } from './run-request.js';
import { sameModelRule } from '../placement/same-model.js';

/** What a move needs from the job manager: the config, probes with our requests in flight, the board. */
export interface FailoverDeps {
  readonly loadConfig: () => Promise<Config>;
  readonly observe: (config: Config) => Promise<Observation>;
  readonly board: SlotBoard;
}

/** The running job as a move changes it: where it runs now, and its record. */
export interface MovableJob {
  record: JobRecord;
  endpoint: Endpoint;
  servedModel: string;
  context: number | undefined;
  vision: boolean;
  readonly settings: Pick<JobSettings, 'failover' | 'failoverAfterS' | 'pinnedEndpoint' | 'servedName'>;
}

/** Where a move is written down (the job's run tracker). */
export interface MoveNotes {
  update(patch: Partial<JobRecord>): void;
  line(text: string): void;
  scheduleSave(): void;
}

/** The window the session was told: its CLAUDE_CODE_MAX_CONTEXT_TOKENS (the endpoint's or menu entry's env may have set it). */
export function toldWindow(sessionEnv: Readonly<Record<string, string>>): number | undefined {
  const told = Number(sessionEnv.CLAUDE_CODE_MAX_CONTEXT_TOKENS);
  return Number.isFinite(told) && told > 0 ? told : undefined;
}

const clock = (iso: string): string => iso.slice(11, 19);

/** What each endpoint but `from` is doing, for words saying none serves the model. */
function othersNow(probes: readonly EndpointProbe[], from: string): string[] {
  return probes
    .filter((p) => p.endpoint !== from)
    .map((p) => (p.state === 'up' ? `${p.endpoint} serves ${p.models.map((m) => m.id).join(', ') || 'no model'}` : `${p.endpoint} is ${p.state} (${p.reason})`));
}

/**
 * The route's failover for `job`, or undefined when it may not move (failover off, or pinned by the
 * endpoint argument). `told` is read at each try: the session's environment is made after the route opens.
 */
export function routeFailover(job: MovableJob, deps: FailoverDeps, notes: MoveNotes, told: () => number | undefined): RouteFailover | undefined {
  if (job.settings.failover !== 'same_model' || job.settings.pinnedEndpoint !== undefined) return undefined;
  // The model the job started on, whichever endpoint serves it now.
  const sameModel = sameModelRule(job.servedModel, job.settings.servedName);
  const servedModel = job.servedModel;

  const stay = (why: string): MoveChoice => {
    if (job.record.failover_blocked !== why) {
      notes.update({ failover_blocked: why });
      notes.line(`${clock(new Date().toISOString())} not moved to another endpoint: ${why}`);
      notes.scheduleSave();
    }
    return { kind: 'stay', why };
  };

  const decide = async (from: string): Promise<MoveDecision> => {
    const config = await deps.loadConfig();
    const seen = await deps.observe(config);
    let resolution: Resolution | undefined;
    try {
      resolution = resolveModel(config, seen.probes, { model: job.record.model.menu_entry ?? job.record.model.requested ?? servedModel });
    } catch (err) {
      if (!isLocalAgentsError(err)) throw err; // nothing serves it now: the words below say what each endpoint does
    }
    const id = job.record.id;
    return deps.board.change((draft) => {
      const ticket = draft.ticket(id);
      if (ticket === undefined || !draft.mine(ticket)) return { why: `its slot lease is not on the slot board (${deps.board.file}), so a slot elsewhere cannot be taken safely` };
      const decision = chooseMove({
        resolution,
        from,
        servedModel,
        sameModel,
        toldWindow: told(),
        loadOf: loadOf(seen, draft),
        mayTake: (endpoint) => draft.aheadOf(id, endpoint) === undefined,
        othersNow: othersNow(seen.probes, from),
      });
      // The lease moves in this write: the new slot is taken and the old one freed at once, for every process.
      if ('placement' in decision) draft.lease(id, decision.placement.candidate.endpoint.name);
      return decision;
    });
  };

  return {
    afterS: job.settings.failoverAfterS,
    async move(request: MoveRequest): Promise<MoveChoice> {
      const decision = await decide(request.from);
      if ('why' in decision) return stay(decision.why);
      const { candidate, reason } = decision.placement;
      const at = new Date().toISOString();
      const move: MoveRecord = {
        from: request.from,
        to: candidate.endpoint.name,
        at,
        reason: `${request.from} had not served the job's model for ${formatDuration((Date.parse(at) - Date.parse(request.since)) / 1000)} (it ${request.saw})`,
        served: candidate.model.id,
        ...(candidate.context === undefined ? {} : { context: candidate.context }),
      };
      job.endpoint = candidate.endpoint;
      job.servedModel = candidate.model.id;
      job.context = candidate.context;
      job.vision = candidate.vision;
      notes.update({
        model: { ...job.record.model, served: candidate.model.id, served_file: candidate.model.file, served_fingerprint: candidate.model.fingerprint, endpoint: candidate.endpoint.name, context: candidate.context, context_source: candidate.contextSource, endpoint_reason: `moved from ${request.from} (defaults.failover): ${reason}` },
        moves: [...(job.record.moves ?? []), move],
        failover_blocked: undefined,
      });
      notes.line(`${clock(at)} moved from ${move.from} to ${move.to} after ${move.reason}; ${move.to} serves ${move.served}, and reads the conversation afresh (its cache starts cold)`);
      notes.scheduleSave();
      const servedWeights = { file: candidate.model.file, fingerprint: candidate.model.fingerprint };
      return { kind: 'moved', upstream: { endpoint: candidate.endpoint, servedModel: candidate.model.id, servedWeights, context: candidate.context, vision: candidate.vision } };
    },
  };
}
