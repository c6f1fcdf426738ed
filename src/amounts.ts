/**
 * Numbers and durations in the words every text uses (the calling model's and a person's alike, a job's and a
 * server outage's), so the same time never reads "1 min 05 s" in one place and "1 min 5 s" in another. Pure; a
 * leaf, so the shim and the jobs word time with the one function.
 */

const trimZeros = (s: string): string => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);

/** 0 → "0 s", 7.46 → "7.5 s", 65 → "1 min 5 s", 600 → "10 min", 3725 → "1 h 2 min": exact to the unit it shows. */
export function formatDuration(seconds: number): string {
  const t = Math.max(0, seconds);
  if (t < 59.95) return `${trimZeros(t.toFixed(1))} s`;
  const s = Math.round(t);
  const [big, small, bigUnit, smallUnit] = s < 3600 ? [Math.floor(s / 60), s % 60, 'min', 's'] : [Math.floor(s / 3600), Math.floor((s % 3600) / 60), 'h', 'min'];
  return small === 0 ? `${big} ${bigUnit}` : `${big} ${bigUnit} ${small} ${smallUnit}`;
}

/** 950 → "950", 12_345 → "12.3k", 2_500_000 → "2.5M"; at most three significant digits. */
export function formatCount(n: number): string {
  const r = Math.round(n);
  if (r < 1000) return String(r);
  if (r < 999_950) return `${trimZeros((r / 1000).toFixed(r < 9995 ? 2 : 1))}k`;
  return `${trimZeros((r / 1_000_000).toFixed(1))}M`;
}

const SPAN = /^(\d{1,6})([smhdw])$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** A span as a person types it, `30m`, `12h`, `7d`, `2w` (or `0s`), in milliseconds; undefined when it is not one. */
export function parseSpan(text: string): number | undefined {
  const match = SPAN.exec(text.trim());
  return match === null ? undefined : Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
