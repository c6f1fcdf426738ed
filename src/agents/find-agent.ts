/**
 * Which agent definitions a job can run, and which one a name means. Claude
 * Code's own precedence holds: a definition passed with the session (here:
 * models.yaml's `agents:`, like --agents) ranks above the project's
 * `.claude/agents`, which ranks above the user's `~/.claude/agents`.
 */
import { join } from 'node:path';
import { BadArgumentError, ConfigError } from '../errors.js';
import type { AgentEntry, Config } from '../config/schema.js';
import { scanAgentFolder, stemOf, type AgentFolder } from './agent-files.js';
import { sha256, type FoundAgent } from './definition.js';

export interface AgentSearch {
  readonly config: Config;
  /** The job's working directory: its `.claude/agents` is the project's. */
  readonly cwd: string;
  /** CLAUDE_CONFIG_DIR or HOME: where the user's agents are. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

export interface AgentProblem {
  readonly file: string;
  readonly message: string;
}

export interface AgentCatalogue {
  /** One per name, the one that wins, in precedence order then by name. */
  readonly agents: readonly FoundAgent[];
  /** Files that could not be used (too big, bad front matter, a link out of the project). */
  readonly problems: readonly AgentProblem[];
  /** Names whose highest-ranking file is broken: asking for one is refused with that file's error. */
  readonly broken: ReadonlyMap<string, ConfigError>;
}

/** The project's folder (links kept inside `cwd`) and the user's (their own files: followed). */
export function agentFolders(cwd: string, env: AgentSearch['env']): AgentFolder[] {
  const userDir = env.CLAUDE_CONFIG_DIR || (env.HOME ? join(env.HOME, '.claude') : undefined);
  const project: AgentFolder = { dir: join(cwd, '.claude', 'agents'), source: 'project', tree: cwd };
  return userDir === undefined ? [project] : [project, { dir: join(userDir, 'agents'), source: 'user' }];
}

/** A models.yaml entry with a `prompt` is a definition of its own. */
function inlineAgent(entry: AgentEntry, file: string): FoundAgent | undefined {
  if (entry.prompt === undefined) return undefined;
  return {
    name: entry.name,
    description: entry.description ?? entry.prompt.split('\n')[0] ?? '',
    prompt: entry.prompt,
    tools: entry.tools,
    disallowedTools: entry.disallowed_tools,
    notApplied: [],
    source: 'models.yaml',
    file,
    sha256: sha256(JSON.stringify(entry)),
  };
}

export async function agentCatalogue(search: AgentSearch): Promise<AgentCatalogue> {
  const file = search.config.path ?? 'models.yaml';
  const byName = new Map<string, FoundAgent>();
  const broken = new Map<string, ConfigError>();
  const problems: AgentProblem[] = [];
  for (const entry of search.config.agents ?? []) {
    const agent = inlineAgent(entry, file);
    if (agent !== undefined) byName.set(agent.name, agent);
  }
  // The first folder that has the name decides it, with a working file or a broken one (never a lower folder's).
  const decided = new Set(byName.keys());
  for (const folder of agentFolders(search.cwd, search.env)) {
    const valid = new Map<string, FoundAgent>();
    const bad = new Map<string, ConfigError>();
    for (const entry of await scanAgentFolder(folder)) {
      if ('agent' in entry) {
        if (!valid.has(entry.agent.name)) valid.set(entry.agent.name, entry.agent);
        continue;
      }
      problems.push({ file: entry.path, message: entry.problem.message });
      if (!bad.has(stemOf(entry.path))) bad.set(stemOf(entry.path), entry.problem);
    }
    for (const [name, agent] of valid) if (!decided.has(name)) byName.set(name, agent);
    for (const [name, problem] of bad) if (!decided.has(name) && !valid.has(name)) broken.set(name, problem);
    for (const name of [...valid.keys(), ...bad.keys()]) decided.add(name);
  }
  return { agents: [...byName.values()], problems, broken };
}

/** The agent `name` means, or a refusal naming the agents that exist. */
export async function findAgent(search: AgentSearch, name: string): Promise<{ readonly agent: FoundAgent; readonly entry: AgentEntry | undefined }> {
  const catalogue = await agentCatalogue(search);
  const entry = search.config.agents?.find((a) => a.name === name);
  const agent = catalogue.agents.find((a) => a.name === name);
  if (agent !== undefined) return { agent, entry };
  const problem = catalogue.broken.get(name);
  if (problem !== undefined) throw problem;
  const names = catalogue.agents.map((a) => a.name);
  const where = agentFolders(search.cwd, search.env).map((f) => f.dir).join(', ');
  const mapped = entry === undefined ? '' : ` (${search.config.path ?? 'models.yaml'} maps agents.${name} to a model, but no file defines it)`;
  throw new BadArgumentError('agent', `no agent named "${name}"${mapped}; ${names.length === 0 ? 'none are defined' : `agents: ${names.join(', ')}`}`, {
    hint: names.length === 0 ? `Agent definitions live in ${where} or under agents: in models.yaml.` : 'Name one of these agents, or run without one and put the role in the task.',
    details: { available: names },
  });
}
