/**
 * jobs: what is on record. Without job_id, the jobs (newest last, those of earlier server processes too);
 * with job_id, that job's record now, its usage summary, and with tail_lines the tail of its transcript.
 * Folds the original's job_status, job_log and list_jobs into one tool: one schema the caller's model reads.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { App } from '../../app.js';
import { jobListRow } from '../../jobs/view/job-facts.js';
import { elapsedSeconds } from '../../jobs/record/job-record.js';
import { jobUsageJson } from '../../usage/job-summary.js';
import { jobRefField, resolveJobArg } from '../job-ref-arg.js';
import { jobSummary, jobView, nextStep } from '../job-view.js';
import { jobStatusOutput } from '../output-schemas.js';
import { guarded, okResult } from '../tool-result.js';
import { limitLines, limitsField, softCap, toolInput, wholeNumber, type LimitApplied } from './args.js';

const MAX_LIMIT = 10_000;
const MAX_LINES = 2000;

async function listJobs(app: App, includeFinished: boolean, limit: number | undefined): Promise<CallToolResult> {
  const capped = softCap('limit', limit, 50, MAX_LIMIT, `at most ${MAX_LIMIT} jobs are listed in one call`);
  const { records, damaged } = await app.jobs.list(includeFinished, capped.value);
  const jobs = records.map((record) => {
    const r = jobListRow(record);
    return { id: r.id, status: r.status, model: r.model, endpoint: r.endpoint, elapsed_s: elapsedSeconds(record), task: r.task.slice(0, 100), files_touched: r.files_touched };
  });
  const lines = jobs.map((j) => `${j.id}  ${j.status.padEnd(11)} ${j.model ?? ''}  ${j.elapsed_s}s  ${j.task}`);
  if (lines.length === 0 && damaged.length === 0) lines.push('No jobs on record.');
  lines.push(...damaged.map((d) => `${d.id}  damaged     ${d.file}: ${d.problem}`));
  lines.push(...limitLines([capped.applied]));
  return okResult(lines.join('\n'), { jobs, damaged, ...limitsField([capped.applied]) });
}

async function oneJob(app: App, ref: string, logLines: number | undefined): Promise<CallToolResult> {
  const id = await resolveJobArg(app, ref);
  const record = await app.jobs.get(id);
  const usage = await app.jobUsage(record);
  const lines = logLines === undefined ? undefined : softCap('tail_lines', logLines, 60, MAX_LINES, `at most ${MAX_LINES} lines come back in one call`);
  const applied: (LimitApplied | undefined)[] = [lines?.applied];
  const transcript = lines === undefined ? undefined : await app.jobs.tail(id, lines.value);
  const text = [jobSummary(record, usage.text), ...(transcript === undefined ? [] : ['', transcript || '(no transcript yet)']), ...limitLines(applied)];
  return okResult(text.join('\n'), {
    ...jobView(record),
    usage_summary: jobUsageJson(usage),
    next_steps: nextStep(record),
    ...(transcript === undefined ? {} : { transcript }),
    ...limitsField(applied),
  });
}

export function registerJobs(server: McpServer, app: App): void {
  server.registerTool(
    'jobs',
    {
      title: 'Jobs on record',
      description: "Without job_id: every job (newest last). With job_id: its record now and usage; tail_lines adds the transcript's last lines. Does not wait.",
      inputSchema: toolInput('jobs', {
        job_id: jobRefField('').optional(),
        tail_lines: wholeNumber(1).optional(),
        include_finished: z.boolean().optional(),
        limit: wholeNumber(1).optional(),
      }),
      outputSchema: jobStatusOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) => guarded(async () => (args.job_id === undefined ? listJobs(app, args.include_finished ?? true, args.limit) : oneJob(app, args.job_id, args.tail_lines))),
  );
}
