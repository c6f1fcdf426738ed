/**
 * Where a running job may move when its endpoint stops serving its model
 * (defaults.failover: same_model), and, when nowhere, why not in words. Pure:
 * the caller supplies the resolution, the slot counts and the board's FIFOs.
 *
 * An endpoint qualifies when it is not the one the job leaves, serves an id the
 * same-model rule accepts, has a window no smaller than the one the session was
 * told (Claude Code compacts by that number: a smaller one would overflow), and
 * has a free slot by the same placement rules as a new job.
 */
import type { Candidate, Resolution } from '../../registry/resolve.js';
import { slotUse, type EndpointLoad } from '../../registry/slot-use.js';
import { place, type Placement } from './placement.js';

/** Claude Code's window for a model id it does not know, when CLAUDE_CODE_MAX_CONTEXT_TOKENS is unset (docs/claude-code-wire.md §3). */
export const UNTOLD_WINDOW = 1_000_000;

export interface MoveInput {
  /** The job's model resolved as for a new job, on fresh probes; undefined when nothing serves it. */
  readonly resolution: Resolution | undefined;
  /** The endpoint the job leaves. */
  readonly from: string;
  readonly servedModel: string;
  readonly sameModel: (id: string) => boolean;
  /** CLAUDE_CODE_MAX_CONTEXT_TOKENS as the session got it; undefined: it was told none. */
  readonly toldWindow: number | undefined;
  readonly loadOf: (endpoint: string) => EndpointLoad;
  /** False when a job queued earlier must be placed on that endpoint first (the board's FIFOs). */
  readonly mayTake: (endpoint: string) => boolean;
  /** What the other endpoints are doing, for the words when none serves the model ("gpu-b is down (…)"). */
  readonly othersNow: readonly string[];
}

export type MoveDecision = { readonly placement: Placement } | { readonly why: string };

/** Why a window does not hold the session's, or undefined when it does. */
export function windowShortfall(c: Candidate, told: number | undefined): string | undefined {
  const name = c.endpoint.name;
  if (told === undefined) {
    if (c.context === undefined) return undefined; // unknown there as it was here: nothing changes for Claude Code
    return `${name} serves ${c.model.id} with a ${c.context}-token window, and the session was told none (Claude Code then assumes ${UNTOLD_WINDOW})`;
  }
  if (c.context === undefined) return `${name} serves ${c.model.id} with a window it does not report, and the session was told ${told} tokens`;
  if (c.context < told) return `${name} serves ${c.model.id} with a ${c.context}-token window, smaller than the ${told} tokens the session was told`;
  return undefined;
}

function fullWords(c: Candidate, load: EndpointLoad, queued: boolean): string {
  if (queued) return `${c.endpoint.name}'s free slot is owed to a job queued earlier`;
  const use = slotUse(c.endpoint, c.probe, load);
  const parts = [`${use.this_process} by this process`, `${use.other_processes} by other localagents processes`, `${use.other_clients} by other clients`].filter((p) => !p.startsWith('0 '));
  return `${c.endpoint.name} has no free slot (${use.capacity} in all${parts.length > 0 ? `: ${parts.join(', ')}` : ''})`;
}

export function chooseMove(input: MoveInput): MoveDecision {
  const serving = (input.resolution?.candidates ?? []).filter((c) => c.endpoint.name !== input.from && (input.sameModel(c.model.id) || c.model.aliases.some(input.sameModel)));
  if (serving.length === 0) {
    const others = input.othersNow.length > 0 ? ` (${input.othersNow.join('; ')})` : ' (it is the only endpoint configured)';
    return { why: `no other endpoint serves ${input.servedModel} now${others}` };
  }
  const reasons: string[] = [];
  const fitting = serving.filter((c) => {
    const short = windowShortfall(c, input.toldWindow);
    if (short !== undefined) reasons.push(short);
    return short === undefined;
  });
  const open = fitting.filter((c) => input.mayTake(c.endpoint.name));
  const placement = place({
    candidates: open,
    loadOf: input.loadOf,
    warmEndpoint: undefined,
    preferredEndpoint: input.resolution?.preferredEndpoint,
    preferredMissing: input.resolution?.preferredMissing,
  });
  if (placement !== undefined) return { placement };
  for (const c of fitting) reasons.push(fullWords(c, input.loadOf(c.endpoint.name), !open.includes(c)));
  return { why: reasons.join('; ') };
}
