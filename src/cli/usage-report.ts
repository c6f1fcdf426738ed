/**
 * `localagents usage`'s arguments checked and its report read through the app's
 * read side (src/app/read-app.ts: no prober, no shim), then worded for a person.
 */
import { createReadApp } from '../app/read-app.js';
import { BadArgumentError } from '../errors.js';
import { usageProblems, usageText } from '../usage/format-usage.js';
import type { UsageReport } from '../usage/report.js';
import { GROUPINGS, type Grouping } from '../usage/tally.js';
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
  const report = await createReadApp({ configPath, cwd: ctx.cwd, env: ctx.env }).usageReport(request.by, window, now);
  return { json: report, text: usageText(report), problems: usageProblems(report) };
}
