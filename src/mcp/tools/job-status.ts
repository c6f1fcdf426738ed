/** job_status: the record of one job, now. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { App } from '../../app.js';
import { jobUsageJson } from '../../usage/job-summary.js';
import { jobSummary, jobView } from '../job-view.js';
import { jobOutput } from '../output-schemas.js';
import { guarded, okResult } from '../tool-result.js';
import { jobRefField, resolveJobArg } from '../job-ref-arg.js';
import { toolInput } from './args.js';

export function registerJobStatus(server: McpServer, app: App): void {
  server.registerTool(
    'job_status',
    {
      title: 'Job status',
      description:
        'The job record now: status, elapsed, turns, tool calls, last activity, files touched, usage, result or error, worktree and diffstat, ' +
        'backend metrics delta, and usage_summary (tokens, GPU time, and what the job cost you, measured from your transcript once looked up). Does not wait; use wait_job to block.',
      inputSchema: toolInput('job_status', { job_id: jobRefField('The job: the id run_agent returned.') }),
      outputSchema: jobOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) => guarded(async () => {
      const record = await app.jobs.get(await resolveJobArg(app, args.job_id));
      const usage = await app.jobUsage(record);
      return okResult(jobSummary(record, usage.text), { ...jobView(record), usage_summary: jobUsageJson(usage) });
    }),
  );
}
