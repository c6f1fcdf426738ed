/** run_agent: run delegated Claude Code sessions on a local model; by default the answer is the finished job. */
import { isAbsolute } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { App } from '../../app.js';
import { PERMISSION_MODES } from '../../config/schema.js';
import { AGENT_NAME } from '../../agents/definition.js';
import { BadArgumentError, isLocalAgentsError, LocalAgentsError } from '../../errors.js';
import { ISOLATIONS, type JobRecord } from '../../jobs/record/job-record.js';
import type { RunRequest } from '../../jobs/session/run-request.js';
import { SANDBOX_REQUEST_WORDS, SANDBOX_REQUESTS } from '../../jobs/sandbox/policy.js';
import { jobRefField, resolveJobArg } from '../job-ref-arg.js';
import { jobsAnswer } from '../jobs-answer.js';
import { waitForJobs } from '../job-wait.js';
import { jobsOutput } from '../output-schemas.js';
import { guarded } from '../tool-result.js';
import { MAX_WAIT_S, softCap, toolInput, WAIT_CAP_WHY, waitSeconds, wholeNumber } from './args.js';

/** Longest model or endpoint name a call may pass: served ids are short, and a longer one only floods messages. */
export const MAX_NAME_CHARS = 512;
/**
 * Claude Code gets the allowed tools as one command-line argument, joined by
 * commas. Linux refuses a single argument over 128 KiB (E2BIG, after the job
 * exists); this bound keeps well under it, with room for the rest of the line.
 */
export const MAX_ALLOWED_TOOLS_BYTES = 32 * 1024;
const MAX_TURNS_CAP = 10_000;
const JOB_TIMEOUT_CAP_S = 86_400;

export const modelName = (): z.ZodString => z.string().min(1).max(MAX_NAME_CHARS);

const allowedTools = z
  .array(z.string().min(1).max(1000))
  .max(200)
  .refine((tools) => Buffer.byteLength(tools.join(','), 'utf8') <= MAX_ALLOWED_TOOLS_BYTES, {
    message: `together longer than the ${MAX_ALLOWED_TOOLS_BYTES} bytes Claude Code's command line can carry; name fewer tools or shorter rules`,
  });

const brief = z
  .string()
  .min(1)
  .max(1_000_000)
  .refine((task) => task.trim() !== '', { message: 'is only whitespace; write the brief the local model should work from' });

/** Most jobs one call starts: one per slot a user is likely to have, with room. */
export const MAX_TASKS = 16;

export const runAgentInput = {
  task: z
    .union([brief, z.array(brief).min(1).max(MAX_TASKS)])
    .describe('Self-contained brief: goal, files, interface, check, report. A list runs one job per brief, in parallel.'),
  agent: z
    .string()
    .regex(AGENT_NAME, 'is not an agent name (letters, digits, "-", "_", ".", ":"; at most 64)')
    .optional()
    .describe('Run as this agent definition (list_models names them); task is its input.'),
  model: modelName().optional().describe('See list_models.'),
  endpoint: modelName().optional(),
  cwd: z
    .string()
    .min(1)
    .max(4096)
    .refine(isAbsolute, { message: "must be an absolute path (a relative one would resolve against the server's own working directory)" })
    .optional()
    .describe('Absolute; default: your project.'),
  isolation: z.enum(ISOLATIONS).optional().describe('"worktree": own worktree and branch; use for parallel jobs.'),
  wait_s: waitSeconds('Only if your tool calls time out: answer after this many s, done or not.').optional(),
  permission_mode: z.enum(PERMISSION_MODES).optional(),
  max_turns: wholeNumber(1).optional(),
  allowed_tools: allowedTools.optional(),
  system_prompt_append: z.string().max(100_000).optional(),
  resume_job: jobRefField('Continue its session with task.').optional(),
  timeout_s: z.number().min(1).optional(),
  verify: z
    .string()
    .min(1)
    .max(10_000)
    .refine((c) => c.trim() !== '', { message: 'is only whitespace; give the shell command that checks the work, e.g. "npm test"' })
    .optional()
    .describe('Must exit 0 before the job ends, e.g. "npm test".'),
  verify_attempts: wholeNumber(1).optional(),
  // The only value makes the sandbox stricter; anything else is refused in words, so a loosening cannot even be asked for.
  sandbox: z
    .enum(SANDBOX_REQUESTS, { error: (issue) => `${JSON.stringify(issue.input)} is not accepted: a tool call may only make the sandbox stricter. ${SANDBOX_REQUEST_WORDS}` })
    .optional(),
};

/** Starts one job per brief; a brief that cannot start says which jobs already did. */
async function startAll(app: App, briefs: readonly string[], request: Omit<RunRequest, 'task'>): Promise<JobRecord[]> {
  const started: JobRecord[] = [];
  for (const task of briefs) {
    try {
      started.push(await app.jobs.start({ ...request, task }));
    } catch (err) {
      if (started.length === 0 || !isLocalAgentsError(err)) throw err;
      const ids = started.map((r) => r.id);
      throw new LocalAgentsError(err.code, `${err.message} (brief ${started.length + 1} of ${briefs.length}; jobs ${ids.join(', ')} started and run on)`, {
        hint: err.hint,
        details: { ...err.details, started: ids },
      });
    }
  }
  return started;
}

export function registerRunAgent(server: McpServer, app: App): void {
  server.registerTool(
    'run_agent',
    {
      title: 'Run a delegated Claude Code job on a local model',
      description:
        'Run a headless Claude Code session (same tools, CLAUDE.md and tree) on a local model, for well-specified, verifiable work. ' +
        'Returns when the job has finished, with its record: no need to poll. Review the result as a draft.',
      inputSchema: toolInput('run_agent', runAgentInput),
      outputSchema: jobsOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    (args, extra) => guarded(async () => {
      const briefs = typeof args.task === 'string' ? [args.task] : args.task;
      if (briefs.length > 1 && args.resume_job !== undefined) throw new BadArgumentError('task', 'resume_job continues one session: give one brief, not a list');
      const wait = args.wait_s === undefined ? undefined : softCap('wait_s', args.wait_s, 0, MAX_WAIT_S, WAIT_CAP_WHY);
      const maxTurns = args.max_turns === undefined ? undefined : softCap('max_turns', args.max_turns, 0, MAX_TURNS_CAP, 'the most turns a job may take');
      const timeout = args.timeout_s === undefined ? undefined : softCap('timeout_s', args.timeout_s, 0, JOB_TIMEOUT_CAP_S, 'a job runs at most one day');
      const started = await startAll(app, briefs, {
        agent: args.agent,
        model: args.model,
        endpoint: args.endpoint,
        cwd: args.cwd,
        isolation: args.isolation,
        permissionMode: args.permission_mode,
        maxTurns: maxTurns?.value,
        allowedTools: args.allowed_tools,
        systemPromptAppend: args.system_prompt_append,
        resumeJob: args.resume_job === undefined ? undefined : await resolveJobArg(app, args.resume_job, 'resume_job'),
        timeoutS: timeout?.value,
        sandbox: args.sandbox,
        verify: args.verify,
        verifyAttempts: args.verify_attempts,
      });
      const records = wait?.value === 0 ? started : await waitForJobs(app, started.map((r) => r.id), wait?.value, extra);
      return jobsAnswer(records, [wait?.applied, maxTurns?.applied, timeout?.applied]);
    }),
  );
}
