/** Local calendar keys of an instant, in this process's time zone: its day, ISO week, and the day's bounds. */

const pad = (n: number): string => String(n).padStart(2, '0');

/** ISO 8601 week (`2026-W49`) of a local calendar date. */
export function isoWeek(d: Date): string {
  const day = new Date(d.getFullYear(), d.getMonth(), d.getDate());
  const weekday = (day.getDay() + 6) % 7; // Monday 0
  day.setDate(day.getDate() - weekday + 3); // the Thursday of this week decides the year
  const firstThursday = new Date(day.getFullYear(), 0, 4);
  const week = 1 + Math.round(((day.getTime() - firstThursday.getTime()) / 86_400_000 - 3 + ((firstThursday.getDay() + 6) % 7)) / 7);
  return `${day.getFullYear()}-W${pad(week)}`;
}

/** The local calendar day of an instant, `2026-12-02`. */
export function localDay(at: Date): string {
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

/** The local day around an instant, as the instants it starts and ends. */
export function dayBounds(at: number): { day: string; start: number; end: number } {
  const d = new Date(at);
  return { day: localDay(d), start: new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime(), end: new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime() };
}
