/**
 * Tiny type guards for parsed JSON bodies. The rewrite rules inspect Anthropic
 * bodies loosely: whatever they do not recognise they leave alone, so these
 * guards never throw and never coerce.
 */

export type JsonRecord = Record<string, unknown>;

/** A plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A `{type:"text", text:string}` content block (other keys such as cache_control allowed). */
export function isTextBlock(value: unknown): value is JsonRecord & { type: 'text'; text: string } {
  return isRecord(value) && value.type === 'text' && typeof value.text === 'string';
}

/** Copy of `obj` with `key` set, keeping the key's position (appended when absent). */
export function withKey(obj: JsonRecord, key: string, value: unknown): JsonRecord {
  // Spread keeps insertion order; assigning an existing key keeps its slot.
  const copy: JsonRecord = { ...obj };
  copy[key] = value;
  return copy;
}
