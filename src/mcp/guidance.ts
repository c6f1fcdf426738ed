/**
 * What the calling Claude is told to do next, in tool names: the workflow and
 * the model listing's words for it. Tool names live in src/mcp/ only; the
 * layers below word their texts without them and the edges add the next step.
 */
import type { ListingWords } from '../registry/format-model-list.js';

export const WORKFLOW_GUIDANCE =
  'Tell the user which served model you will use (check with them if the id is unfamiliar), then call run_agent with a self-contained brief ' +
  '(files, interface, how to verify, what to report). Poll with wait_job (≤110 s per call) and read job_log while it runs. ' +
  "Treat the local model's work as a draft: review files_touched or the worktree diff before relying on it.";

export const LISTING_FOR_MODEL: ListingWords = {
  serverCwd: "run_agent's default cwd",
  noEndpoints: 'No endpoints configured. Add one to models.yaml (see models.example.yaml) or call register_endpoint.',
  nextSteps: WORKFLOW_GUIDANCE,
  agents: 'agents (run_agent agent: NAME; its prompt and tools, the task is its input):',
};

/** The next step after a job reference that names no job (raised below this layer, which names no tool). */
export const LIST_JOBS_HINT = 'list_jobs lists the jobs on record (newest last).';
