/**
 * What the calling Claude is told, in tool names: the server's name and instructions, the workflow and
 * the model listing's words for it. No runtime imports: the stdio hold (tasks/stdio-hold.ts) loads this first. Tool names live in src/mcp/ only; the
 * layers below word their texts without them and the edges add the next step.
 */
import type { ListingWords } from '../registry/format-model-list.js';

export const WORKFLOW_GUIDANCE =
  'Tell the user which served model you will use (check with them if the id is unfamiliar), then call run_agent with a self-contained brief ' +
  '(files, interface, how to verify, what to report); it returns when the job has finished. ' +
  "Treat the local model's work as a draft: review files_touched or the worktree diff before relying on it.";

/** The server's name on the wire (2025-11-25 initialize and 2026-07-28 server/discover alike). */
export const SERVER_NAME = 'localagents';

/** What every caller reads once, when it connects. */
export const SERVER_INSTRUCTIONS = [
  'localagents runs delegated Claude Code sessions on the user\'s own GPU servers (llama.cpp or vLLM).',
  'Workflow: list_models → say which served model you will use → run_agent (returns when the job has finished) → review.',
  WORKFLOW_GUIDANCE,
  'Good delegations are well specified and verifiable: tests, CLI flags, refactors with a pinned interface, independent halves in parallel worktrees (isolation: "worktree").',
  'If a model is not running, relay the model_unavailable message (request_model gives the same one without starting a job) to the user: localagents never starts models.',
].join('\n');

export const LISTING_FOR_MODEL: ListingWords = {
  serverCwd: "run_agent's default cwd",
  noEndpoints: 'No endpoints configured. Add one to models.yaml (see models.example.yaml) or call register_endpoint.',
  nextSteps: WORKFLOW_GUIDANCE,
  agents: 'agents (run_agent agent: NAME; its prompt and tools, the task is its input):',
};

/** The next step after a job reference that names no job (raised below this layer, which names no tool). */
export const LIST_JOBS_HINT = 'jobs() lists the jobs on record (newest last).';
