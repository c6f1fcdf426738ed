/**
 * The sandbox a job ran with, as its record (job.json, job_status) shows it:
 * the policy, every escape hatch it had, and what the sandbox refused.
 */
import type { z } from 'zod';
import type { sandboxRecordSchema } from '../record/sandbox-schema.js';
import type { SandboxPolicy } from './policy.js';
import type { SandboxTally } from './refusals.js';

export type SandboxRecord = z.infer<typeof sandboxRecordSchema>;

export function sandboxRecord(policy: SandboxPolicy, tally?: SandboxTally): SandboxRecord {
  return {
    enabled: policy.enabled,
    strict: policy.strict,
    allow_write: [...policy.allowWrite],
    allow_read: [...policy.allowRead],
    allowed_domains: [...policy.allowedDomains],
    unsandboxed_commands: [...policy.unsandboxedCommands],
    ...(tally === undefined ? {} : { refusals: tally.refusals, violations: tally.violations }),
  };
}

/** One line for job summaries (MCP text and the CLI alike). */
export function describeSandboxRecord(s: SandboxRecord): string {
  if (!s.enabled) return 'off (defaults.sandbox.enabled: false in models.yaml): Bash ran as you';
  const parts = [s.strict ? 'on, strict (asked by the caller)' : 'on'];
  if (s.allow_write.length > 0) parts.push(`extra writable: ${s.allow_write.join(', ')}`);
  if (s.allow_read.length > 0) parts.push(`extra readable: ${s.allow_read.join(', ')}`);
  parts.push(s.allowed_domains.length > 0 ? `hosts: ${s.allowed_domains.join(', ')}` : 'no network hosts');
  if (s.unsandboxed_commands.length > 0) parts.push(`unsandboxed commands: ${s.unsandboxed_commands.join(', ')}`);
  if (s.refusals !== undefined) parts.push(`${s.refusals} refusal${s.refusals === 1 ? '' : 's'} (${s.violations ?? 0} reported by Claude Code; each is a "sandbox refused:" line in the transcript)`);
  return parts.join('; ');
}
