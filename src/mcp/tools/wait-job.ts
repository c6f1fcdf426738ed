/** wait_job: wait until one job, or all of several, have finished. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { App } from '../../app.js';
import { jobsAnswer } from '../jobs-answer.js';
import { waitForJobs } from '../job-wait.js';
import { jobsOutput } from '../output-schemas.js';
import { guarded } from '../tool-result.js';
import { jobRefsField, resolveJobArg } from '../job-ref-arg.js';
import { MAX_WAIT_S, softCap, toolInput, WAIT_CAP_WHY, waitSeconds } from './args.js';

/** Most jobs one wait covers. */
const MAX_WAITED = 64;

export function registerWaitJob(server: McpServer, app: App): void {
  server.registerTool(
    'wait_job',
    {
      title: 'Wait for jobs',
      description: 'Wait until the job, or every job of a list, has finished; returns the records. Use after run_agent(wait_s=0).',
      inputSchema: toolInput('wait_job', {
        job_id: jobRefsField(MAX_WAITED),
        timeout_s: waitSeconds('Only if your tool calls time out: answer after this long, finished or not.').optional(),
      }),
      outputSchema: jobsOutput,
      // Reads only: Claude Code may run it beside other calls.
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args, extra) => guarded(async () => {
      const wait = args.timeout_s === undefined ? undefined : softCap('timeout_s', args.timeout_s, 0, MAX_WAIT_S, WAIT_CAP_WHY);
      const refs = typeof args.job_id === 'string' ? [args.job_id] : args.job_id;
      const ids = [...new Set(await Promise.all(refs.map((r) => resolveJobArg(app, r))))];
      return jobsAnswer(await waitForJobs(app, ids, wait?.value, extra), [wait?.applied]);
    }),
  );
}
