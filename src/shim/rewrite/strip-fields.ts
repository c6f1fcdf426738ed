/**
 * Removes named top-level fields from a request body, for a backend that
 * rejects one. Owns nothing by default: the caller names the fields, so a
 * field is never dropped unless someone decided it must be.
 */
import { isRecord, type JsonRecord } from '../json/json-shape.js';

export interface StripFieldsResult {
  /** The input object itself when nothing was removed. */
  readonly body: unknown;
  readonly changed: boolean;
  /** The fields actually present and removed, in the order asked. */
  readonly stripped: readonly string[];
}

/** Copy of `body` without the listed top-level keys; the remaining keys keep their order. */
export function stripFields(body: unknown, fields: readonly string[]): StripFieldsResult {
  if (!isRecord(body) || fields.length === 0) return { body, changed: false, stripped: [] };
  const stripped = fields.filter((field, i) => Object.hasOwn(body, field) && fields.indexOf(field) === i);
  if (stripped.length === 0) return { body, changed: false, stripped };
  const drop = new Set(stripped);
  const copy: JsonRecord = {};
  for (const [key, value] of Object.entries(body)) {
    // defineProperty, not assignment: a parsed "__proto__" key must stay a plain key.
    if (!drop.has(key)) Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return { body: copy, changed: true, stripped };
}
