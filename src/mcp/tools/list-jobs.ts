/** list_jobs: jobs on record, newest last, including those of earlier server processes. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { App } from '../../app.js';
import { jobListRow } from '../../jobs/view/job-facts.js';
import { elapsedSeconds } from '../../jobs/record/job-record.js';
import { jobListOutput } from '../output-schemas.js';
import { guarded, okResult } from '../tool-result.js';
import { limitLines, limitsField, softCap, toolInput } from './args.js';

const MAX_LIMIT = 10_000;

export function registerListJobs(server: McpServer, app: App): void {
  server.registerTool(
    'list_jobs',
    {
      title: 'List jobs',
      description: 'Jobs on record, newest last — also those started by earlier server processes (a job whose server died shows as interrupted and can be resumed). Running and queued jobs of this server are always listed; records that cannot be read are listed as damaged.',
      inputSchema: toolInput('list_jobs', {
        include_finished: z.boolean().optional().describe('Include finished jobs (default true).'),
        limit: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe(`Only the newest N (default 50, at most ${MAX_LIMIT}); running and queued jobs of this server are listed wherever their ids sort.`),
      }),
      outputSchema: jobListOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) => guarded(async () => {
      const capped = softCap('limit', args.limit, 50, MAX_LIMIT, `at most ${MAX_LIMIT} jobs are listed in one call`);
      const { records, damaged } = await app.jobs.list(args.include_finished ?? true, capped.value);
      const jobs = records.map((record) => {
        const r = jobListRow(record);
        return { id: r.id, status: r.status, model: r.model, endpoint: r.endpoint, elapsed_s: elapsedSeconds(record), task: r.task.slice(0, 100), files_touched: r.files_touched };
      });
      const lines = jobs.map((j) => `${j.id}  ${j.status.padEnd(11)} ${j.model ?? ''}  ${j.elapsed_s}s  ${j.task}`);
      if (lines.length === 0 && damaged.length === 0) lines.push('No jobs on record.');
      lines.push(...damaged.map((d) => `${d.id}  damaged     ${d.file}: ${d.problem}`));
      lines.push(...limitLines([capped.applied]));
      return okResult(lines.join('\n'), { jobs, damaged, ...limitsField([capped.applied]) });
    }),
  );
}
