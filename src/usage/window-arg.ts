/**
 * --since / --until: a local calendar date (`2026-12-01`) or a span back from now
 * (`7d`, `12h`, `2w`). A date in --until includes that whole day.
 */
import { BadArgumentError } from '../errors.js';

const SPAN = /^(\d{1,5})([hdw])$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const UNIT_MS = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;

export function parseWindowEdge(option: '--since' | '--until', value: string, now: Date): Date {
  const span = SPAN.exec(value);
  if (span !== null) return new Date(now.getTime() - Number(span[1]) * UNIT_MS[span[2] as keyof typeof UNIT_MS]);
  const date = DATE.exec(value);
  if (date !== null) {
    const [year, month, day] = [Number(date[1]), Number(date[2]) - 1, Number(date[3])];
    const at = new Date(year, month, day + (option === '--until' ? 1 : 0));
    if (new Date(year, month, day).getDate() === day) return at;
  }
  throw new BadArgumentError(option, `${option} "${value.slice(0, 40)}" is neither a date (2026-12-01) nor a span back from now (12h, 7d, 2w)`, {
    hint: 'localagents usage --since 7d, or --since 2026-11-01 --until 2026-11-30',
  });
}
