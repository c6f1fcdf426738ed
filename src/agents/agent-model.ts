/**
 * Which local model runs an agent. A definition's `model:` is written for
 * Anthropic's API (sonnet, opus, haiku, claude-…), which a local server does
 * not serve: models.yaml's `agents:` entry decides then, else defaults.model.
 * A `model:` that is not an Anthropic name is taken as a local one (a served
 * id or a menu entry), resolved like any job's.
 */
import type { AgentEntry, Defaults } from '../config/schema.js';
import type { FoundAgent } from './definition.js';

const ANTHROPIC_MODEL = /^(?:(?:inherit|default|best|sonnet|opus|haiku|fable|opusplan)(?:\[1m\])?|claude-.*|anthropic[./].*)$/i;

export const isAnthropicModel = (model: string): boolean => ANTHROPIC_MODEL.test(model);

export interface AgentModelChoice {
  /** The model to ask for; undefined: the first live endpoint's, like a job without one. */
  readonly model: string | undefined;
  readonly endpoint: string | undefined;
  /** Where the choice came from, in words. */
  readonly from: string;
}

export function agentModelChoice(agent: Pick<FoundAgent, 'name' | 'model'>, entry: AgentEntry | undefined, defaults: Pick<Defaults, 'model'>): AgentModelChoice {
  const endpoint = entry?.endpoint;
  if (entry?.model !== undefined) return { model: entry.model, endpoint, from: `agents.${agent.name}.model in models.yaml` };
  if (agent.model !== undefined && !isAnthropicModel(agent.model)) return { model: agent.model, endpoint, from: "the definition's model:" };
  const why = agent.model === undefined ? '' : ` (the definition's model: ${agent.model} is an Anthropic name)`;
  return { model: defaults.model, endpoint, from: defaults.model === undefined ? `the first live endpoint's model${why}` : `defaults.model${why}` };
}
