/**
 * The answer about one job or several: the record (one job) or `jobs` (several), the facts as text, what to
 * do next and any limit that was lowered. Claude Code hands its model the structured part, so `next_steps` is there.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JobRecord } from '../jobs/record/job-record.js';
import { jobSummary, jobView, nextStep } from './job-view.js';
import { okResult } from './tool-result.js';
import { limitLines, limitsField, type LimitApplied } from './tools/args.js';

export function jobsAnswer(records: readonly JobRecord[], applied: readonly (LimitApplied | undefined)[] = []): CallToolResult {
  const notes = limitLines(applied);
  const [only] = records;
  if (records.length === 1 && only !== undefined) {
    return okResult([jobSummary(only), ...notes].join('\n'), { ...jobView(only), next_steps: nextStep(only), ...limitsField(applied) });
  }
  const jobs = records.map((r) => ({ ...jobView(r), next_steps: nextStep(r) }));
  return okResult([...records.map((r) => jobSummary(r)), ...notes].join('\n\n'), { jobs, ...limitsField(applied) });
}
