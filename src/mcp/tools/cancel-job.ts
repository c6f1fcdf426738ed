/** cancel_job: stop a running or queued job. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { App } from '../../app.js';
import { jobsAnswer } from '../jobs-answer.js';
import { jobOutput } from '../output-schemas.js';
import { guarded } from '../tool-result.js';
import { jobRefField, resolveJobArg } from '../job-ref-arg.js';
import { toolInput } from './args.js';

export function registerCancelJob(server: McpServer, app: App): void {
  server.registerTool(
    'cancel_job',
    {
      title: 'Cancel a job',
      description: 'Stop a running job (its session and commands end) or drop a queued one. Work already written stays.',
      inputSchema: toolInput('cancel_job', { job_id: jobRefField('') }),
      outputSchema: jobOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) => guarded(async () => jobsAnswer([await app.jobs.cancel(await resolveJobArg(app, args.job_id))])),
  );
}
