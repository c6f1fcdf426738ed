/**
 * `defaults.sandbox` in models.yaml: Claude Code's own sandbox around every
 * delegated session's Bash, on unless the user turns it off. Only the user's
 * file configures it; a tool call may make one job stricter, never looser
 * (src/jobs/sandbox/policy.ts).
 */
import { z } from 'zod';

/** Absolute, or under the home directory (~/…): a relative path would mean a different place for every job. */
const hostPath = z
  .string()
  .min(1)
  .refine((p) => p.startsWith('/') || p === '~' || p.startsWith('~/'), 'must be an absolute path or start with ~/')
  .refine((p) => !p.split('/').includes('..'), 'must not contain a ".." segment');

/** A host name, a *.wildcard, or an address, each with an optional :port — what Claude Code's network.allowedDomains takes. */
const domain = z.string().regex(/^(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:]+\](:\d{1,5})?$/, 'must be a host name (registry.npmjs.org), a wildcard (*.pythonhosted.org) or an address, with an optional :port');

export const sandboxSchema = z.strictObject({
  /** false runs delegated Bash unsandboxed, as you: only for a machine that is itself the boundary (a throwaway VM or container). */
  enabled: z.boolean().default(true),
  /** Hosts the session's Bash may reach (through Claude Code's proxy); nothing else is reachable. */
  allowed_domains: z.array(domain).default([]),
  /** Extra places Bash may write, beside the job's tree and its private temp folder (a build cache such as ~/.cache/pip). */
  allow_write: z.array(hostPath).default([]),
  /** Places to read again inside the credential folders the sandbox hides (one file of ~/.config/gh, say). */
  allow_read: z.array(hostPath).default([]),
  /** Commands that run outside the sandbox (Claude Code's sandbox.excludedCommands, its permission-rule syntax: "docker *"). */
  unsandboxed_commands: z.array(z.string().min(1).max(500)).default([]),
});

export type SandboxConfig = z.infer<typeof sandboxSchema>;
