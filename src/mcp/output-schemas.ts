/**
 * Output schemas the calling Claude sees. Loose on purpose (the client checks
 * structuredContent against them): they promise the fields a caller relies on
 * and let the record grow without breaking older clients.
 */
import { z } from 'zod';
import { JOB_STATUSES } from '../jobs/record/job-record.js';

export const jobOutput = z.looseObject({
  id: z.string().describe('Job id, for wait_job / job_status / job_log / cancel_job / resume_job'),
  status: z.enum(JOB_STATUSES),
  elapsed_s: z.number(),
  model: z.looseObject({ requested: z.string().optional(), served: z.string().optional(), endpoint: z.string().optional() }),
  files_touched: z.array(z.string()),
  result: z.string().optional(),
  error: z.string().optional(),
  worktree: z.looseObject({ path: z.string(), branch: z.string(), kept: z.boolean(), diffstat: z.string() }).optional(),
  sandbox: z
    .looseObject({ enabled: z.boolean(), strict: z.boolean(), refusals: z.number().optional() })
    .optional()
    .describe("Claude Code's sandbox around the job's Bash: on or off, escape hatches from models.yaml, and how many refusals its tools met"),
  in_flight: z
    .array(
      z.looseObject({
        request: z.number(),
        phase: z.string(),
        output_tokens: z.number(),
        silent_s: z.number(),
        flags: z.array(z.looseObject({ kind: z.string(), message: z.string() })),
      }),
    )
    .optional()
    .describe('Backend requests open now: phase (waiting for a slot / reading the prompt / generating), prompt tokens read so far (llama.cpp), output tokens so far, speed, silence, flags (silent, runaway, repetitive)'),
  backend_errors: z
    .array(z.looseObject({ status: z.number(), message: z.string(), explanation: z.looseObject({ kind: z.string(), what: z.string() }) }))
    .optional()
    .describe('Recent backend errors, each with what it means and what to try'),
});

export const jobListOutput = z.looseObject({
  jobs: z.array(z.looseObject({ id: z.string(), status: z.enum(JOB_STATUSES) })),
  damaged: z
    .array(z.object({ id: z.string(), file: z.string(), problem: z.string() }))
    .describe('Job folders whose record cannot be read or parsed: the job is on record, but what it did is not known'),
});

export const modelListOutput = z.looseObject({
  config: z.string(),
  endpoints: z.array(
    z.looseObject({
      endpoint: z.string(),
      state: z.string(),
      hostState: z.string(),
      reason: z.string(),
      models: z.array(z.looseObject({ id: z.string(), context: z.number().optional() })),
    }),
  ),
  menu: z.array(z.looseObject({ name: z.string(), notes: z.string(), live_on: z.array(z.string()) })),
  next_steps: z.string(),
});
