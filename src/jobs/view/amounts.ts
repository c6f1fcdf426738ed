/**
 * Numbers and durations in the words every job text uses (the calling model's
 * and a person's alike), so the same record never reads "12345" in one place
 * and "12.3k" in another. Pure.
 */

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const s = Math.floor(seconds);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

const trimZeros = (s: string): string => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);

/** 950 → "950", 12_345 → "12.3k", 2_500_000 → "2.5M"; at most three significant digits. */
export function formatCount(n: number): string {
  const r = Math.round(n);
  if (r < 1000) return String(r);
  if (r < 999_950) return `${trimZeros((r / 1000).toFixed(r < 9995 ? 2 : 1))}k`;
  return `${trimZeros((r / 1_000_000).toFixed(1))}M`;
}
