/**
 * --since / --until: a local calendar date (`2026-12-01`) or a span back from now
 * (`30m`, `12h`, `7d`, `2w`: the spans prune's --older-than takes). A date in --until includes that whole day.
 */
import { parseSpan } from '../amounts.js';
import { BadArgumentError } from '../errors.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function parseWindowEdge(option: '--since' | '--until', value: string, now: Date): Date {
  const spanMs = parseSpan(value);
  if (spanMs !== undefined) return new Date(now.getTime() - spanMs);
  const date = DATE.exec(value);
  if (date !== null) {
    const [year, month, day] = [Number(date[1]), Number(date[2]) - 1, Number(date[3])];
    const at = new Date(year, month, day + (option === '--until' ? 1 : 0));
    if (new Date(year, month, day).getDate() === day) return at;
  }
  throw new BadArgumentError(option, `${option} "${value.slice(0, 40)}" is neither a date (2026-12-01) nor a span back from now (30m, 12h, 7d, 2w)`, {
    hint: 'localagents usage --since 7d, or --since 2026-11-01 --until 2026-11-30',
  });
}
