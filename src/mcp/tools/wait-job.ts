/** wait_job: block until a job finishes or the timeout passes. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { App } from '../../app.js';
import { jobSummary, jobView } from '../job-view.js';
import { jobOutput } from '../output-schemas.js';
import { guarded, okResult } from '../tool-result.js';
import { MAX_WAIT_S } from './run-agent.js';

export function registerWaitJob(server: McpServer, app: App): void {
  server.registerTool(
    'wait_job',
    {
      title: 'Wait for a job',
      description:
        `Wait up to timeout_s (default 50, max ${MAX_WAIT_S}: every call stays under Claude Code's 2-minute tool limit) for a job to finish, ` +
        'then return its record, finished or not (a job of another localagents process is watched through its record). Call again while status is queued or running.',
      inputSchema: {
        job_id: z.string().min(1).describe('The id run_agent returned.'),
        timeout_s: z.number().min(0).max(MAX_WAIT_S).optional().describe(`Seconds to wait (0–${MAX_WAIT_S}, default 50).`),
      },
      outputSchema: jobOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) => guarded(async () => {
      const record = await app.jobs.wait(args.job_id, args.timeout_s ?? 50);
      return okResult(jobSummary(record), jobView(record));
    }),
  );
}
