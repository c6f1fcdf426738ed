/**
 * The sandbox one job runs with: models.yaml's `defaults.sandbox`, made
 * stricter when the caller asks. A tool call is half-trusted (prompt
 * injection can steer it), so the only thing it can say is "strict": there is
 * no value that widens or turns off the sandbox.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SandboxConfig } from '../../config/sandbox-schema.js';

/** What run_agent's and `localagents run`'s `sandbox` argument accepts. */
export const SANDBOX_REQUESTS = ['strict'] as const;
export type SandboxRequest = (typeof SANDBOX_REQUESTS)[number];

export const SANDBOX_REQUEST_WORDS =
  '"strict": run this job sandboxed with none of models.yaml\'s escape hatches (extra writable or readable paths, allowed domains, unsandboxed commands), even where models.yaml turned the sandbox off. ' +
  'Nothing a tool call says can widen or turn off the sandbox: that is defaults.sandbox in the user\'s models.yaml.';

export interface SandboxPolicy {
  readonly enabled: boolean;
  /** True when the caller asked for "strict". */
  readonly strict: boolean;
  readonly allowWrite: readonly string[];
  readonly allowRead: readonly string[];
  readonly allowedDomains: readonly string[];
  readonly unsandboxedCommands: readonly string[];
}

/** `~/x` against the home directory the session gets; other paths as written (the schema refused relative ones). */
export function expandHome(path: string, home: string = homedir()): string {
  if (path === '~') return home;
  return path.startsWith('~/') ? join(home, path.slice(2)) : path;
}

export function sandboxPolicy(config: SandboxConfig, request: SandboxRequest | undefined, home: string): SandboxPolicy {
  if (request === 'strict') return { enabled: true, strict: true, allowWrite: [], allowRead: [], allowedDomains: [], unsandboxedCommands: [] };
  return {
    enabled: config.enabled,
    strict: false,
    allowWrite: config.allow_write.map((p) => expandHome(p, home)),
    allowRead: config.allow_read.map((p) => expandHome(p, home)),
    allowedDomains: [...config.allowed_domains],
    unsandboxedCommands: [...config.unsandboxed_commands],
  };
}

/** One line for doctor, the CLI and job summaries. */
export function describePolicy(p: SandboxPolicy): string {
  if (!p.enabled) return 'off (defaults.sandbox.enabled: false): Bash runs as you, with your files and network';
  const hatches = [
    p.allowWrite.length > 0 ? `also writes ${p.allowWrite.join(', ')}` : undefined,
    p.allowRead.length > 0 ? `also reads ${p.allowRead.join(', ')}` : undefined,
    p.allowedDomains.length > 0 ? `reaches ${p.allowedDomains.join(', ')}` : 'reaches no network host',
    p.unsandboxedCommands.length > 0 ? `runs unsandboxed: ${p.unsandboxedCommands.join(', ')}` : undefined,
  ].filter((h) => h !== undefined);
  return `on${p.strict ? ' (strict, asked by the caller)' : ''}: Bash writes only the job's tree, what git needs to commit there and a private temp folder; credentials hidden; ${hatches.join('; ')}`;
}
