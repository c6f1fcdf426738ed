/**
 * Narrowing helpers for untyped JSON request bodies, so the simulator can read
 * client input without casts.
 */

export type JsonRecord = Record<string, unknown>;

export function isRecord(v: unknown): v is JsonRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function records(v: unknown): JsonRecord[] {
  return Array.isArray(v) ? v.filter(isRecord) : [];
}

/** Text of a message content: the string, or its text blocks joined by "\n". */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return records(content)
    .filter((b) => b['type'] === 'text')
    .map((b) => str(b['text']) ?? '')
    .join('\n');
}
