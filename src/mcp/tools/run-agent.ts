/** run_agent: start a delegated Claude Code session on a local model. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { App } from '../../app.js';
import { PERMISSION_MODES } from '../../config/schema.js';
import { FINISHED, ISOLATIONS } from '../../jobs/job-record.js';
import { jobSummary, jobView } from '../job-view.js';
import { jobOutput } from '../output-schemas.js';
import { guarded, okResult } from '../tool-result.js';
import { WORKFLOW_GUIDANCE } from '../../registry/model-list.js';

export const MAX_WAIT_S = 110;

export const runAgentInput = {
  task: z
    .string()
    .min(1)
    .max(1_000_000)
    .describe('The brief, self-contained: goal, files, interfaces to keep, how to verify (commands), what to report. The local model sees nothing else of this conversation.'),
  model: z.string().min(1).optional().describe('Served id, glob, fuzzy name or models.yaml menu name (see list_models). Default: defaults.model, else the first live endpoint.'),
  endpoint: z.string().min(1).optional().describe('Pin the job to this endpoint; otherwise the scheduler picks one with a free slot.'),
  cwd: z.string().min(1).optional().describe("Working directory (absolute). Default: this server's working directory (the caller's project)."),
  isolation: z.enum(ISOLATIONS).optional().describe('"none" (default): work in cwd, like your own subagents. "worktree": a fresh git worktree on branch local-agent/<job>, kept only if something changed.'),
  wait_s: z.number().min(0).max(MAX_WAIT_S).optional().describe(`Wait up to this many seconds for the job to finish before answering (0–${MAX_WAIT_S}; default 0).`),
  permission_mode: z.enum(PERMISSION_MODES).optional().describe('Claude Code permission mode for the session. Default from models.yaml (acceptEdits). bypassPermissions only if models.yaml allows it.'),
  max_turns: z.number().int().min(1).max(10_000).optional().describe('Stop after this many model turns.'),
  allowed_tools: z.array(z.string().min(1)).max(200).optional().describe('Tools the session may use without asking (default from models.yaml). Tools the config disallows stay disallowed.'),
  system_prompt_append: z.string().max(100_000).optional().describe('Extra instructions appended after the delegate suffix from models.yaml.'),
  resume_job: z.string().min(1).optional().describe('Continue this earlier job\'s Claude Code session (same model, same cwd) with `task` as the next message.'),
  timeout_s: z.number().min(1).max(86_400).optional().describe('Stop the job after this many seconds (default from models.yaml, 1800).'),
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
      inputSchema: runAgentInput,
      outputSchema: jobOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    (args) => guarded(async () => {
      let record = await app.jobs.start({
        task: args.task,
        model: args.model,
        endpoint: args.endpoint,
        cwd: args.cwd,
        isolation: args.isolation,
        permissionMode: args.permission_mode,
        maxTurns: args.max_turns,
        allowedTools: args.allowed_tools,
        systemPromptAppend: args.system_prompt_append,
        resumeJob: args.resume_job,
        timeoutS: args.timeout_s,
      });
      if (args.wait_s && !FINISHED.has(record.status)) record = await app.jobs.wait(record.id, args.wait_s);
      return okResult(`${jobSummary(record)}\n\n${WORKFLOW_GUIDANCE}`, { ...jobView(record), next_steps: WORKFLOW_GUIDANCE });
    }),
  );
}
