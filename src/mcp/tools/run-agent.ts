/** run_agent: start a delegated Claude Code session on a local model. */
import { isAbsolute } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { App } from '../../app.js';
import { PERMISSION_MODES } from '../../config/schema.js';
import { AGENT_NAME } from '../../agents/definition.js';
import { FINISHED, ISOLATIONS } from '../../jobs/record/job-record.js';
import { SANDBOX_REQUEST_WORDS, SANDBOX_REQUESTS } from '../../jobs/sandbox/policy.js';
import { jobRefField, resolveJobArg } from '../job-ref-arg.js';
import { jobSummary, jobView } from '../job-view.js';
import { jobOutput } from '../output-schemas.js';
import { guarded, okResult } from '../tool-result.js';
import { WORKFLOW_GUIDANCE } from '../guidance.js';
import { limitLines, limitsField, MAX_WAIT_S, softCap, toolInput, WAIT_CAP_WHY, waitSeconds } from './args.js';

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

export const runAgentInput = {
  task: z
    .string()
    .min(1)
    .max(1_000_000)
    .refine((task) => task.trim() !== '', { message: 'is only whitespace; write the brief the local model should work from' })
    .describe('The brief, self-contained: goal, files, interfaces to keep, how to verify (commands), what to report. The local model sees nothing else of this conversation.'),
  agent: z
    .string()
    .regex(AGENT_NAME, 'is not an agent name (letters, digits, "-", "_", ".", ":"; at most 64)')
    .optional()
    .describe("Run as this agent definition (list_models names them): its prompt and tools; the task is its input. Default model: the agent's mapping in models.yaml."),
  model: modelName().optional().describe('Served id, glob, fuzzy name or models.yaml menu name (see list_models). Default: defaults.model, else the first live endpoint.'),
  endpoint: modelName().optional().describe('Pin the job to this endpoint; otherwise the scheduler picks one with a free slot.'),
  cwd: z
    .string()
    .min(1)
    .max(4096)
    .refine(isAbsolute, { message: "must be an absolute path (a relative one would resolve against the server's own working directory)" })
    .optional()
    .describe("Working directory, absolute. Default: this server's working directory (the caller's project)."),
  isolation: z.enum(ISOLATIONS).optional().describe('"none" (default): work in cwd, like your own subagents. "worktree": a fresh git worktree on branch local-agent/<job>, kept only if something changed.'),
  wait_s: waitSeconds('Wait up to this many seconds for the job to finish before answering (default 0).').optional(),
  permission_mode: z.enum(PERMISSION_MODES).optional().describe('Claude Code permission mode for the session. Default from models.yaml (acceptEdits). bypassPermissions only if models.yaml allows it.'),
  max_turns: z.number().int().min(1).optional().describe(`Stop after this many model turns (at most ${MAX_TURNS_CAP}).`),
  allowed_tools: allowedTools.optional().describe('Tools the session may use without asking (default from models.yaml). Tools the config disallows stay disallowed.'),
  system_prompt_append: z.string().max(100_000).optional().describe('Extra instructions appended after the delegate suffix from models.yaml.'),
  resume_job: jobRefField('Continue this earlier job\'s Claude Code session (same model, same cwd) with `task` as the next message.').optional(),
  timeout_s: z.number().min(1).optional().describe(`Stop the job after this many seconds (default from models.yaml, 1800; at most ${JOB_TIMEOUT_CAP_S}).`),
  verify: z
    .string()
    .min(1)
    .max(10_000)
    .refine((c) => c.trim() !== '', { message: 'is only whitespace; give the shell command that checks the work, e.g. "npm test"' })
    .optional()
    .describe(
      'A shell command that must exit 0 before the job may end, e.g. "npm test". It runs in the job\'s tree (the worktree for isolation "worktree"), sandboxed like the session\'s Bash, whenever the model tries to finish; ' +
        'a failure\'s output goes back to the model, which goes on fixing. The job ends failed if it never passes. The record\'s `verification` says what each check did.',
    ),
  verify_attempts: z.number().int().min(1).optional().describe('How many times the verify command may run (default 3; at most defaults.max_verify_attempts in models.yaml, 5 unless the user changed it).'),
  // The only value makes the sandbox stricter; anything else is refused in words, so a loosening cannot even be asked for.
  sandbox: z
    .enum(SANDBOX_REQUESTS, { error: (issue) => `${JSON.stringify(issue.input)} is not accepted: a tool call may only make the sandbox stricter. ${SANDBOX_REQUEST_WORDS}` })
    .optional()
    .describe(`Default: the sandbox models.yaml configures (on unless the user turned it off). ${SANDBOX_REQUEST_WORDS}`),
};

export function registerRunAgent(server: McpServer, app: App): void {
  server.registerTool(
    'run_agent',
    {
      title: 'Run a delegated Claude Code job on a local model',
      description:
        'Start a full headless Claude Code session (same tools, same CLAUDE.md, same working tree) whose model is a local llama.cpp/vLLM server, and return its job record. ' +
        'Use it for well-specified, verifiable chores: tests, CLI flags, refactors with a pinned interface, two halves of a package in parallel worktrees. ' +
        'If every slot is busy the job queues and starts when one frees. Returns at once (or after wait_s); then poll with wait_job and read job_log. ' +
        'Review the result as a draft. A model that is not running gives model_unavailable with what to tell the user.',
      inputSchema: toolInput('run_agent', runAgentInput),
      outputSchema: jobOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    (args) => guarded(async () => {
      const wait = softCap('wait_s', args.wait_s, 0, MAX_WAIT_S, WAIT_CAP_WHY);
      const maxTurns = args.max_turns === undefined ? undefined : softCap('max_turns', args.max_turns, 0, MAX_TURNS_CAP, 'the most turns a job may take');
      const timeout = args.timeout_s === undefined ? undefined : softCap('timeout_s', args.timeout_s, 0, JOB_TIMEOUT_CAP_S, 'a job runs at most one day');
      let record = await app.jobs.start({
        task: args.task,
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
      if (wait.value > 0 && !FINISHED.has(record.status)) record = await app.jobs.wait(record.id, wait.value);
      const applied = [wait.applied, maxTurns?.applied, timeout?.applied];
      const text = [jobSummary(record), ...limitLines(applied), '', WORKFLOW_GUIDANCE].join('\n');
      return okResult(text, { ...jobView(record), ...limitsField(applied), next_steps: WORKFLOW_GUIDANCE });
    }),
  );
}
