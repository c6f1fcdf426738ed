/**
 * Facts about a base64 `source` of an image or document block, read without
 * decoding more than needed: its byte size, a prefix of its bytes, and a key
 * that names its content (the same bytes give the same key on every turn).
 */
import { createHash } from 'node:crypto';
import { isRecord, type JsonRecord } from '../json/json-shape.js';

/** A `source:{type:"base64", data, media_type}`, when the block has one. */
export interface Base64Source {
  readonly data: string;
  readonly mediaType: string | undefined;
}

export function base64Source(block: JsonRecord): Base64Source | undefined {
  const source = block.source;
  if (!isRecord(source) || source.type !== 'base64' || typeof source.data !== 'string') return undefined;
  return { data: source.data, mediaType: typeof source.media_type === 'string' ? source.media_type : undefined };
}

/** Decoded size of base64 text, without decoding it. */
export function base64ByteLength(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** The first `bytes` bytes (about) of base64 text: a whole number of 4-character groups is decoded. */
export function base64Prefix(data: string, bytes: number): Buffer {
  return Buffer.from(data.slice(0, Math.ceil(bytes / 3) * 4), 'base64');
}

/** A short name for the content: 16 hex digits of its SHA-256 (what requests.jsonl and the record count by). */
export function contentKey(data: string): string {
  return createHash('sha256').update(data).digest('hex').slice(0, 16);
}

/** n bytes in words a person reads: 634 bytes, 2.3 kB, 5.1 MB (decimal, one decimal place). */
export function sizeInWords(n: number): string {
  if (n < 1000) return `${n} bytes`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} kB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}
