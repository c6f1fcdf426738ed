/**
 * What `localagents usage` and the status line read: the state directory and
 * models.yaml's price settings, without building the app (no prober, no shim),
 * so a command that only reads records starts fast.
 */
import { loadPriceSettings } from '../config/price-settings.js';
import { BadArgumentError } from '../errors.js';
import { createJobStore, stateDirFrom } from '../jobs/record/job-store.js';
import { usageProblems, usageText } from '../usage/format-usage.js';
import { buildUsageReport, type UsageReport } from '../usage/report.js';
import { GROUPINGS, type Grouping } from '../usage/tally.js';
import { transcriptReader } from '../usage/transcripts/caller-cost.js';
import { parseWindowEdge } from '../usage/window-arg.js';
import type { AppContext } from './with-app.js';

export interface UsageRequest {
  readonly by: string;
  readonly since?: string | undefined;
  readonly until?: string | undefined;
}

const isGrouping = (value: string): value is Grouping => (GROUPINGS as readonly string[]).includes(value);

export async function usageReport(ctx: AppContext, configPath: string | undefined, request: UsageRequest, now: Date = new Date()): Promise<{ json: UsageReport; text: string; problems: string[] }> {
  if (!isGrouping(request.by)) throw new BadArgumentError('--by', `--by ${request.by}: expected one of ${GROUPINGS.join(', ')}`);
  const window = {
    since: request.since === undefined ? undefined : parseWindowEdge('--since', request.since, now),
    until: request.until === undefined ? undefined : parseWindowEdge('--until', request.until, now),
  };
  const stateDir = stateDirFrom(ctx.env);
  const prices = await loadPriceSettings({ configPath, cwd: ctx.cwd, env: ctx.env }, stateDir);
  const report = await buildUsageReport(createJobStore(stateDir), prices, request.by, window, { reader: transcriptReader(ctx.env), now });
  return { json: report, text: usageText(report), problems: usageProblems(report) };
}
