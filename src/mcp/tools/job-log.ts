/** job_log: the tail of a job's readable transcript. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { App } from '../../app.js';
import { guarded, okResult } from '../tool-result.js';

export function registerJobLog(server: McpServer, app: App): void {
  server.registerTool(
    'job_log',
    {
      title: 'Job transcript',
      description: 'The last lines of the job\'s transcript: assistant text, thinking (shortened), tool calls and results, backend errors and retries.',
      inputSchema: {
        job_id: z.string().min(1).describe('The id run_agent returned.'),
        lines: z.number().int().min(1).max(2000).optional().describe('How many lines from the end (default 60).'),
      },
      outputSchema: z.looseObject({ job_id: z.string(), transcript: z.string() }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) => guarded(async () => {
      const transcript = await app.jobs.tail(args.job_id, args.lines ?? 60);
      return okResult(transcript || '(no transcript yet)', { job_id: args.job_id, transcript });
    }),
  );
}
