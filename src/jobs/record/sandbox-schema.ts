/** The zod schema of a job record's `sandbox` part (see record.ts beside it, and src/jobs/record/job-record-schema.ts). */
import { z } from 'zod';

export const sandboxRecordSchema = z.object({
  enabled: z.boolean(),
  /** The caller asked for "strict": models.yaml's escape hatches were dropped. */
  strict: z.boolean(),
  allow_write: z.array(z.string()),
  allow_read: z.array(z.string()),
  allowed_domains: z.array(z.string()),
  unsandboxed_commands: z.array(z.string()),
  /** Tool results that show a refusal (a write to a read-only place, a hidden file, a blocked host). */
  refusals: z.number().optional(),
  /** Of those, the ones Claude Code reported itself (its `<sandbox_violations>` lines: blocked hosts). */
  violations: z.number().optional(),
});
