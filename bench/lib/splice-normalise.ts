/**
 * A prototype of a suggested shim change, kept here so the benchmark can
 * measure it next to the current pipeline (part 1 (e), part 6 (e)): run
 * normaliseRequest on the top-level values the rules read (model, system,
 * messages, max_tokens) and copy every other value — `tools` is 60% of a
 * Claude Code body — from the raw bytes instead of parsing and re-serialising
 * it. The output is byte-identical to JSON.stringify(normaliseRequest(...))
 * whenever the body came from JSON.stringify (no insignificant whitespace);
 * the benchmark checks that on every captured body. Not used by src/.
 */
import { normaliseRequest, type NormaliseOptions } from '../../src/shim/normalise.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPENERS = new Set([0x7b, 0x5b]);
const CLOSERS = new Set([0x7d, 0x5d]);
/** The top-level keys the rewrite rules read or change (strip-fields aside, which is off by default). */
const TOUCHED = new Set(['model', 'system', 'messages', 'max_tokens']);

function skipSpace(b: Buffer, i: number): number {
  let j = i;
  while (b[j] === 0x20 || b[j] === 0x0a || b[j] === 0x0d || b[j] === 0x09) j++;
  return j;
}

/** b[i] is an opening quote; the index after the closing one. '"' and '\' never occur inside a UTF-8 multibyte sequence. */
function endOfString(b: Buffer, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = b.indexOf(QUOTE, from);
    if (q === -1) throw new Error('unterminated string');
    let backslashes = 0;
    while (b[q - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

function endOfValue(b: Buffer, i: number): number {
  const first = b[i];
  if (first === QUOTE) return endOfString(b, i);
  if (first !== undefined && OPENERS.has(first)) {
    let depth = 0;
    for (let j = i; j < b.length; ) {
      const c = b[j] ?? 0;
      if (c === QUOTE) {
        j = endOfString(b, j);
        continue;
      }
      if (OPENERS.has(c)) depth++;
      else if (CLOSERS.has(c) && --depth === 0) return j + 1;
      j++;
    }
    throw new Error('unterminated value');
  }
  let j = i;
  while (j < b.length && b[j] !== COMMA && !CLOSERS.has(b[j] ?? 0) && skipSpace(b, j) === j) j++;
  return j;
}

interface Span {
  readonly key: string;
  readonly start: number;
  readonly end: number;
}

function topLevelSpans(b: Buffer): Span[] {
  const spans: Span[] = [];
  let i = skipSpace(b, 0);
  if (b[i] !== 0x7b) throw new Error('not a JSON object');
  i = skipSpace(b, i + 1);
  while (b[i] !== 0x7d) {
    const keyEnd = endOfString(b, i);
    const key = JSON.parse(b.toString('utf8', i, keyEnd)) as string; // a JSON string literal parses to a string
    i = skipSpace(b, keyEnd);
    if (b[i] !== COLON) throw new Error('expected ":"');
    const start = skipSpace(b, i + 1);
    const end = endOfValue(b, start);
    spans.push({ key, start, end });
    i = skipSpace(b, end);
    if (b[i] === COMMA) i = skipSpace(b, i + 1);
  }
  return spans;
}

export function spliceNormalise(raw: Buffer, options: NormaliseOptions): Buffer {
  const spans = topLevelSpans(raw);
  const partial: Record<string, unknown> = {};
  for (const s of spans) if (TOUCHED.has(s.key)) partial[s.key] = JSON.parse(raw.toString('utf8', s.start, s.end));
  const result = normaliseRequest(partial, options);
  if (!result.changed) return raw;
  const out = result.body as Record<string, unknown>; // normaliseRequest returns an object for an object
  const parts: Buffer[] = [Buffer.from('{')];
  spans.forEach((s, n) => {
    parts.push(Buffer.from(`${n > 0 ? ',' : ''}${JSON.stringify(s.key)}:`));
    const changed = TOUCHED.has(s.key) && out[s.key] !== partial[s.key];
    parts.push(changed ? Buffer.from(JSON.stringify(out[s.key])) : raw.subarray(s.start, s.end));
  });
  parts.push(Buffer.from('}'));
  return Buffer.concat(parts);
}
