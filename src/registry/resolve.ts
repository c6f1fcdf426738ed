/**
 * Model resolution: which live endpoint and served id a request means.
 * Works only on probe results and config; never talks to a server itself.
 */
import type { Config, Endpoint, ModelMenuEntry } from '../config/schema.js';
import { BadArgumentError, LocalAgentsError } from '../errors.js';
import type { EndpointProbe, ServedModel } from '../backends/types.js';
import { foldName, MATCH_RANK, matchName, type MatchKind } from './match.js';

export interface Candidate {
  readonly endpoint: Endpoint;
  readonly probe: EndpointProbe;
  readonly model: ServedModel;
  /** The window to give Claude Code: probed, else the menu entry's `context`. */
  readonly context: number | undefined;
  readonly contextSource: string;
  /** The model sees images: the server says so, or models.yaml's endpoint `vision` does where it does not. */
  readonly vision: boolean;
}

export interface Resolution {
  /** Every live endpoint serving a match, best match first, then config order. */
  readonly candidates: readonly Candidate[];
  readonly matchedBy: MatchKind | 'default' | 'first-live';
  readonly requested: string | undefined;
  readonly menuEntry: ModelMenuEntry | undefined;
  /** run_agent's `endpoint` argument: only that endpoint is considered. */
  readonly pinnedEndpoint: string | undefined;
  /** The menu entry's `endpoint`: tried first, others serving the model when it cannot take the job. */
  readonly preferredEndpoint: string | undefined;
  /** Why the preferred endpoint is not among the candidates (down, or not serving the model). */
  readonly preferredMissing: string | undefined;
}

export interface ResolveRequest {
  readonly model?: string | undefined;
  readonly endpoint?: string | undefined;
}

/** What every endpoint serves right now, for messages that must say so. */
export function servingNow(probes: readonly EndpointProbe[]): Array<{ endpoint: string; state: string; models: string[]; reason: string }> {
  return probes.map((p) => ({ endpoint: p.endpoint, state: p.state, models: p.models.map((m) => m.id), reason: p.reason }));
}

function describeServing(probes: readonly EndpointProbe[]): string {
  if (probes.length === 0) return 'No endpoints are configured in models.yaml.';
  return `Serving now: ${probes
    .map((p) => (p.state === 'up' ? `${p.endpoint} → ${p.models.map((m) => m.id).join(', ') || 'nothing'}` : `${p.endpoint} → ${p.state} (${p.reason})`))
    .join('; ')}.`;
}

export function findMenuEntry(config: Config, name: string): ModelMenuEntry | undefined {
  return config.models.find((m) => m.name === name) ?? config.models.find((m) => foldName(m.name) === foldName(name));
}

export function resolveModel(config: Config, probes: readonly EndpointProbe[], request: ResolveRequest): Resolution {
  if (request.endpoint !== undefined && !config.endpoints.some((e) => e.name === request.endpoint)) {
    const known = config.endpoints.map((e) => e.name);
    throw new BadArgumentError('endpoint', `unknown endpoint "${request.endpoint}"; configured endpoints: ${known.join(', ') || '(none)'}`, {
      details: { allowed: known },
    });
  }
  const requested = request.model ?? config.defaults.model;
  const menuEntry = requested === undefined ? undefined : findMenuEntry(config, requested);
  // Only the caller's endpoint argument pins; a menu entry's endpoint is a preference, as in the original.
  const pinnedEndpoint = request.endpoint;
  const preferredEndpoint = pinnedEndpoint === undefined ? menuEntry?.endpoint : undefined;
  const live = probes.filter((p) => p.state === 'up' && (pinnedEndpoint === undefined || p.endpoint === pinnedEndpoint));
  const settle = (candidates: Candidate[], matchedBy: Resolution['matchedBy']): Resolution => {
    const preferredProbe = probes.find((p) => p.endpoint === preferredEndpoint);
    const preferredMissing =
      preferredEndpoint === undefined || candidates.some((c) => c.endpoint.name === preferredEndpoint)
        ? undefined
        : preferredProbe === undefined
          ? `preferred endpoint ${preferredEndpoint} is not configured`
          : preferredProbe.state !== 'up'
            ? `preferred endpoint ${preferredEndpoint} is ${preferredProbe.state} (${preferredProbe.reason})`
            : `preferred endpoint ${preferredEndpoint} does not serve ${requested ?? 'a model'}`;
    return { candidates, matchedBy, requested, menuEntry, pinnedEndpoint, preferredEndpoint, preferredMissing };
  };
  const endpointOf = (p: EndpointProbe): Endpoint | undefined => config.endpoints.find((e) => e.name === p.endpoint);
  const candidate = (p: EndpointProbe, model: ServedModel): Candidate | undefined => {
    const endpoint = endpointOf(p);
    if (endpoint === undefined) return undefined;
    const fallback = menuEntry?.context;
    return {
      endpoint,
      probe: p,
      model,
      context: model.context ?? fallback,
      contextSource: model.context !== undefined ? model.contextSource : fallback !== undefined ? 'models.yaml context' : 'unknown',
      vision: endpoint.vision !== false && (model.vision ?? endpoint.vision ?? false),
    };
  };

  if (requested === undefined) {
    for (const p of live) {
      const first = p.models[0];
      const c = first && candidate(p, first);
      if (c) return settle([c], 'first-live');
    }
    throw unavailable(config, probes, undefined, undefined);
  }

  const term = menuEntry?.served_name ?? requested;
  const matches: Array<{ c: Candidate; kind: MatchKind }> = [];
  for (const p of live) {
    for (const model of p.models) {
      const kind = matchName(term, [model.id, ...model.aliases]) ?? (menuEntry && !menuEntry.served_name ? matchName(requested, [model.id, ...model.aliases]) : undefined);
      const c = kind && candidate(p, model);
      if (kind && c) matches.push({ c, kind });
    }
  }
  if (matches.length === 0) throw unavailable(config, probes, requested, menuEntry);
  // Stable sort keeps config order among equally good matches.
  matches.sort((a, b) => MATCH_RANK[a.kind] - MATCH_RANK[b.kind]);
  const best = matches[0]?.kind ?? 'fuzzy';
  return settle(
    matches.filter((m) => m.kind === best).map((m) => m.c),
    request.model === undefined ? 'default' : best,
  );
}

export type Audience = 'model' | 'person';

interface UnavailableFacts {
  readonly requested: string | undefined;
  readonly host: string | undefined;
  readonly notes: string | undefined;
  readonly bringUp: string | undefined;
  readonly loading: readonly string[];
  readonly serving: string;
}

/** What the calling model does with a model_unavailable, in its error and in a job record that failed with one. */
export const UNAVAILABLE_FOR_MODEL = 'Relay this to the user; localagents never starts models itself.';

/** Who should start the model: the calling model asks the user, a person does it; a job record only states the facts. */
function nextStep(f: UnavailableFacts, audience: Audience | 'record'): string {
  const it = f.requested === undefined ? 'one' : 'it';
  if (audience === 'record') return f.host && f.requested !== undefined ? `Its host: ${f.host}.` : '';
  return `${audience === 'model' ? 'Ask the user to start' : 'Start'} ${it}${f.host && f.requested !== undefined ? ` on ${f.host}` : ''}.`;
}

/** The facts of a model_unavailable error, worded for the calling model (who must tell the user), for the user, or for a job record. */
function unavailableWords(f: UnavailableFacts, audience: Audience | 'record'): { message: string; hint: string | undefined } {
  const parts = [f.requested === undefined ? 'No model is running on any configured endpoint.' : `${f.requested} is not running anywhere.`, nextStep(f, audience)];
  if (f.notes) parts.push(`Note: ${f.notes}`);
  if (f.bringUp) parts.push(`Start command: ${f.bringUp}`);
  if (f.loading.length > 0) parts.push(`Still loading: ${f.loading.join(', ')} — it may appear shortly.`);
  parts.push(f.serving);
  const hints = { model: UNAVAILABLE_FOR_MODEL, person: 'localagents never starts models itself; localagents models shows what each server serves now.', record: undefined };
  return { message: parts.filter(Boolean).join(' '), hint: hints[audience] };
}

/** The `model_unavailable` error: the calling Claude can relay its message as is; a terminal gets the person's wording. */
export function unavailable(
  config: Config,
  probes: readonly EndpointProbe[],
  requested: string | undefined,
  menuEntry: ModelMenuEntry | undefined,
): LocalAgentsError {
  const host = menuEntry?.host ?? (menuEntry?.endpoint ? config.endpoints.find((e) => e.name === menuEntry.endpoint)?.host : undefined);
  // A menu entry's endpoint is only a preference: any endpoint still loading may bring the model.
  const loading = probes.filter((p) => p.state === 'loading').map((p) => p.endpoint);
  const facts: UnavailableFacts = { requested, host, notes: menuEntry?.notes, bringUp: menuEntry?.bring_up, loading, serving: describeServing(probes) };
  const forModel = unavailableWords(facts, 'model');
  return new LocalAgentsError('model_unavailable', forModel.message, {
    hint: forModel.hint,
    forPerson: unavailableWords(facts, 'person'),
    forRecord: unavailableWords(facts, 'record').message,
    details: {
      requested,
      notes: menuEntry?.notes,
      host,
      bring_up: menuEntry?.bring_up,
      serving_now: servingNow(probes),
    },
  });
}
