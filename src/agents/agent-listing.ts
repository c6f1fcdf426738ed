/**
 * The agents a job can run, as list_models and `localagents models` show them:
 * each with its description's first line and the model it would use.
 */
import type { Config } from '../config/schema.js';
import { agentModelChoice } from './agent-model.js';
import { agentCatalogue, type AgentSearch } from './find-agent.js';
import type { AgentSource } from './definition.js';

export interface AgentListing {
  readonly name: string;
  readonly description: string;
  readonly source: AgentSource;
  /** The model a job for it asks for; undefined: the first live endpoint's. */
  readonly model: string | undefined;
  readonly endpoint: string | undefined;
}

export interface AgentsListing {
  readonly agents: readonly AgentListing[];
  /** Agent files that cannot be used, each `file: why`. */
  readonly agent_problems: readonly string[];
}

const firstLine = (text: string): string => (text.split('\n').find((l) => l.trim() !== '') ?? '').trim().slice(0, 200);

export async function listAgents(search: AgentSearch & { readonly config: Config }): Promise<AgentsListing> {
  const catalogue = await agentCatalogue(search);
  const agents = catalogue.agents.map((agent) => {
    const choice = agentModelChoice(agent, search.config.agents?.find((a) => a.name === agent.name), search.config.defaults);
    return { name: agent.name, description: firstLine(agent.description), source: agent.source, model: choice.model, endpoint: choice.endpoint };
  });
  return { agents, agent_problems: catalogue.problems.map((p) => p.message) };
}
