/**
 * A job that runs as an agent definition: the definition can only narrow what
 * the job was going to get. Its tools are cut to what models.yaml (or the
 * caller, within it) allows, sub-agents are never offered, and a permission
 * mode wider than the job's is not applied. What was not applied is said in
 * the record's warnings.
 */
import type { AgentDefinition } from '@anthropic-ai/claude-agent-sdk';
import type { PermissionMode } from '../../config/schema.js';
import type { AgentSource, FoundAgent } from '../../agents/definition.js';

/** An agent is the bottom of the tree: it never starts sub-agents of its own, whatever models.yaml allows a plain job. */
export const AGENT_JOB_DISALLOWED: readonly string[] = ['Agent', 'Task'];

/** How far each mode lets a headless session go without asking (nobody answers): higher is wider. */
const PERMISSION_REACH: Record<PermissionMode, number> = { plan: 0, default: 1, dontAsk: 1, acceptEdits: 2, bypassPermissions: 3 };

/** What the session is told about the agent, and what the record keeps of it. */
export interface JobAgent {
  readonly name: string;
  readonly source: AgentSource;
  readonly file: string;
  readonly sha256: string;
  /** Where its model came from (models.yaml's agents: entry, the definition, defaults.model). */
  readonly modelFrom: string;
  readonly description: string;
  readonly prompt: string;
  /** The tools the session is offered; absent: every tool, as for a plain job. */
  readonly tools: readonly string[] | undefined;
  readonly skills: readonly string[] | undefined;
}

export interface AgentLimits {
  readonly allowedTools: readonly string[];
  readonly disallowedTools: readonly string[];
  readonly permissionMode: PermissionMode;
  readonly maxTurns: number;
  readonly agent: JobAgent;
  readonly warnings: readonly string[];
}

const toolName = (rule: string): string => rule.split('(')[0] ?? rule;

/** The job's limits with the agent's narrowing applied. */
export function agentLimits(agent: FoundAgent, modelFrom: string, job: Omit<AgentLimits, 'agent' | 'warnings'>): AgentLimits {
  const disallowed = [...new Set([...job.disallowedTools, ...AGENT_JOB_DISALLOWED, ...(agent.disallowedTools ?? [])])];
  const refused = (rule: string): boolean => disallowed.includes(rule) || disallowed.includes(toolName(rule));
  const granted = (rule: string): boolean => !refused(rule) && (job.allowedTools.includes(rule) || job.allowedTools.includes(toolName(rule)));
  const warnings: string[] = [];
  let allowedTools = job.allowedTools.filter((t) => !refused(t));
  let tools: string[] | undefined;
  if (agent.tools !== undefined) {
    const dropped = agent.tools.filter((t) => !granted(t));
    allowedTools = agent.tools.filter(granted);
    tools = [...new Set(allowedTools.map(toolName))];
    if (dropped.length > 0) warnings.push(`${agent.file}: tools ${dropped.join(', ')} not granted: the job allows only ${job.allowedTools.filter((t) => !refused(t)).join(', ') || 'no tools'}, and never sub-agents`);
  }
  let permissionMode = job.permissionMode;
  if (agent.permissionMode !== undefined && agent.permissionMode !== job.permissionMode) {
    if (PERMISSION_REACH[agent.permissionMode] <= PERMISSION_REACH[job.permissionMode]) permissionMode = agent.permissionMode;
    else warnings.push(`${agent.file}: permissionMode ${agent.permissionMode} not applied: wider than the job's ${job.permissionMode}`);
  }
  if (agent.notApplied.length > 0) warnings.push(`${agent.file}: ${agent.notApplied.join(', ')} not applied to a local job (the job's own sandbox, permission mode and tools hold)`);
  return {
    allowedTools,
    disallowedTools: disallowed,
    permissionMode,
    maxTurns: Math.min(job.maxTurns, agent.maxTurns ?? job.maxTurns),
    warnings,
    agent: { name: agent.name, source: agent.source, file: agent.file, sha256: agent.sha256, modelFrom, description: agent.description, prompt: agent.prompt, tools, skills: agent.skills },
  };
}

/** The definition as the session gets it: its prompt and narrowed tools, never its own model, hooks or MCP servers. */
export function sessionAgent(agent: JobAgent | undefined, disallowedTools: readonly string[]): { name: string; definition: AgentDefinition } | undefined {
  if (agent === undefined) return undefined;
  return {
    name: agent.name,
    definition: {
      description: agent.description,
      prompt: agent.prompt,
      disallowedTools: [...disallowedTools],
      ...(agent.tools === undefined ? {} : { tools: [...agent.tools] }),
      ...(agent.skills === undefined ? {} : { skills: [...agent.skills] }),
    },
  };
}
