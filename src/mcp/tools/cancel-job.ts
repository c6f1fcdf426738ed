/** cancel_job: stop a running or queued job. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { App } from '../../app.js';
import { jobSummary, jobView } from '../job-view.js';
import { jobOutput } from '../output-schemas.js';
import { guarded, okResult } from '../tool-result.js';
import { jobRefField, resolveJobArg } from '../job-ref-arg.js';
import { toolInput } from './args.js';

export function registerCancelJob(server: McpServer, app: App): void {
  server.registerTool(
    'cancel_job',
    {
      title: 'Cancel a job',
      description:
        'Stop a running job (its Claude Code process and the commands it started end) or remove a queued one before it starts. Work already written stays. ' +
        'A job of another localagents process is cancelled by that process, which is asked through the state directory.',
      inputSchema: toolInput('cancel_job', { job_id: jobRefField('The job: the id run_agent returned.') }),
      outputSchema: jobOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) => guarded(async () => {
      const record = await app.jobs.cancel(await resolveJobArg(app, args.job_id));
      return okResult(jobSummary(record), jobView(record));
    }),
  );
}
