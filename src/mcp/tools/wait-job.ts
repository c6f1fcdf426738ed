/** wait_job: block until a job finishes or the timeout passes. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { App } from '../../app.js';
import { jobSummary, jobView } from '../job-view.js';
import { jobOutput } from '../output-schemas.js';
import { guarded, okResult } from '../tool-result.js';
import { jobRefField, resolveJobArg } from '../job-ref-arg.js';
import { limitLines, limitsField, MAX_WAIT_S, softCap, toolInput, WAIT_CAP_WHY, waitSeconds } from './args.js';

export function registerWaitJob(server: McpServer, app: App): void {
  server.registerTool(
    'wait_job',
    {
      title: 'Wait for a job',
      description:
        `Wait up to timeout_s (default 50; at most ${MAX_WAIT_S} per call, so every call stays under Claude Code's 2-minute tool limit) for a job to finish, ` +
        'then return its record, finished or not (a job of another localagents process is watched through its record). Call again while status is queued or running.',
      inputSchema: toolInput('wait_job', {
        job_id: jobRefField('The job: the id run_agent returned.'),
        timeout_s: waitSeconds('Seconds to wait (default 50).').optional(),
      }),
      outputSchema: jobOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) => guarded(async () => {
      const wait = softCap('timeout_s', args.timeout_s, 50, MAX_WAIT_S, WAIT_CAP_WHY);
      const record = await app.jobs.wait(await resolveJobArg(app, args.job_id), wait.value);
      return okResult([jobSummary(record), ...limitLines([wait.applied])].join('\n'), { ...jobView(record), ...limitsField([wait.applied]) });
    }),
  );
}
