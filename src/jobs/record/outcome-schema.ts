/**
 * The zod schema of a job record's `outcome` (what became of the job's work, as
 * it became known: src/jobs/record/outcome.ts) and `left_tree` (what an in-place
 * job left in the tree, to compare at the next commit: src/jobs/git/outcome-check.ts).
 * Both optional: a record without `outcome` reads as "outcome unknown".
 */
import { z } from 'zod';

export const FATES = ['merged', 'discarded', 'kept_in_tree', 'reverted', 'changed_further'] as const;

export const outcomeSchema = z.object({
  /** What became of the work, once known: never changed after (the first fact found wins). */
  fate: z
    .object({
      kind: z.enum(FATES),
      at: z.string(),
      /** What found it: `localagents merge`, `git (checked by localagents show)`, … */
      by: z.string(),
      /** The facts behind it, in words ("local-agent/… is in main at 1a2b3c4d5e6f"). */
      detail: z.string(),
    })
    .optional(),
  /** resume_job with a new task: the job that continued this one's session. */
  followed_up_by: z.object({ job: z.string(), at: z.string() }).optional(),
});

/** One file an in-place job changed: its blob at the commit the job ended on, and as the job left it ('' for no file). */
export const leftFileSchema = z.object({ path: z.string(), before: z.string(), after: z.string() });

export const leftTreeSchema = z.object({
  /** The top folder of the repository the job ran in, and its HEAD commit when the job ended. */
  repo: z.string(),
  head: z.string(),
  files: z.array(leftFileSchema),
  /** Files the job touched beyond those listed (not compared: the list is bounded). */
  more: z.number(),
});
