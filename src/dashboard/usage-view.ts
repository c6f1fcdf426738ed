/**
 * The dashboard's usage view: the same report as `localagents usage --by day`
 * over the last USAGE_DAYS days, with the rows as the CLI's table shows them
 * (one formatting for both) and the raw numbers for the charts.
 */
import type { App } from '../app.js';
import { USAGE_HEADER, usageCells, usageProblems, usageTotalLines } from '../usage/format-usage.js';
import type { UsageReport } from '../usage/report.js';

export const USAGE_DAYS = 30;

export interface UsageView {
  readonly report: UsageReport;
  readonly table: { readonly header: readonly string[]; readonly rows: readonly string[][] };
  readonly total: readonly string[];
  readonly problems: readonly string[];
}

export async function usageView(app: App, now: Date = new Date()): Promise<UsageView> {
  const since = new Date(now.getFullYear(), now.getMonth(), now.getDate() - (USAGE_DAYS - 1));
  // A broken models.yaml is shown by the endpoints view; the estimate falls back to the default comparison.
  const report = await app.usageReport('day', { since });
  return { report, table: { header: USAGE_HEADER, rows: report.rows.map(usageCells) }, total: usageTotalLines(report), problems: usageProblems(report) };
}
