/**
 * A request body as top-level spans of its raw bytes. The rewrite rules read
 * only a few top-level values (model, system, messages, max_tokens); parsing
 * and re-serialising the rest — `tools` is ~60% of a 50 kB Claude Code body —
 * would cost half of the shim's per-request CPU (measured: 488 → 238 µs) and
 * could only make the bytes differ from what Claude Code sent. So those values
 * are parsed, and everything else is copied from the raw bytes as it came.
 */

/** The top-level keys the shim reads or rewrites. */
const READ = new Set(['model', 'system', 'messages', 'max_tokens', 'stream']);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

interface Span {
  readonly key: string;
  readonly start: number;
  readonly end: number;
}

export interface BodyView {
  readonly raw: Buffer;
  readonly spans: readonly Span[];
  /** The parsed values of the keys the shim reads (the last one wins, as in JSON.parse). */
  readonly fields: Readonly<Record<string, unknown>>;
  /** How many tools the request offers, counted without parsing them. */
  readonly toolCount: number | undefined;
}

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(b: Buffer, i: number): number {
  let j = i;
  while (isSpace(b[j])) j++;
  return j;
}

/** b[i] is an opening quote; returns the index after the closing one. `"` and `\` never occur inside a UTF-8 multibyte sequence. */
function endOfString(b: Buffer, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = b.indexOf(QUOTE, from);
    if (q === -1) throw new SyntaxError('unterminated string');
    let backslashes = 0;
    while (b[q - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

function endOfValue(b: Buffer, i: number): number {
  const first = b[i];
  if (first === QUOTE) return endOfString(b, i);
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
    let depth = 0;
    for (let j = i; j < b.length; ) {
      const c = b[j];
      if (c === QUOTE) {
        j = endOfString(b, j);
        continue;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
      else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return j + 1;
      j++;
    }
    throw new SyntaxError('unterminated value');
  }
  let j = i;
  while (j < b.length && b[j] !== COMMA && b[j] !== CLOSE_OBJECT && b[j] !== CLOSE_ARRAY && !isSpace(b[j])) j++;
  if (j === i) throw new SyntaxError('missing value');
  return j;
}

/** Elements of the array at b[start..end), or undefined when it is not an array. */
function arrayLength(b: Buffer, start: number, end: number): number | undefined {
  if (b[start] !== OPEN_ARRAY) return undefined;
  let i = skipSpace(b, start + 1);
  let count = 0;
  while (i < end - 1 && b[i] !== CLOSE_ARRAY) {
    i = skipSpace(b, endOfValue(b, i));
    count++;
    if (b[i] === COMMA) i = skipSpace(b, i + 1);
  }
  return count;
}

/** The view of a JSON object body, or undefined when it is not one (the backend's own error is then the truest answer). */
export function readBodyView(raw: Buffer): BodyView | undefined {
  try {
    const spans: Span[] = [];
    const fields: Record<string, unknown> = {};
    let toolCount: number | undefined;
    let i = skipSpace(raw, 0);
    if (raw[i] !== OPEN_OBJECT) return undefined;
    i = skipSpace(raw, i + 1);
    while (raw[i] !== CLOSE_OBJECT) {
      if (raw[i] !== QUOTE) return undefined;
      const keyEnd = endOfString(raw, i);
      const key = JSON.parse(raw.toString('utf8', i, keyEnd)) as string; // a JSON string literal parses to a string
      i = skipSpace(raw, keyEnd);
      if (raw[i] !== COLON) return undefined;
      const start = skipSpace(raw, i + 1);
      const end = endOfValue(raw, start);
      spans.push({ key, start, end });
      if (READ.has(key)) fields[key] = JSON.parse(raw.toString('utf8', start, end)) as unknown;
      else if (key === 'tools') toolCount = arrayLength(raw, start, end);
      i = skipSpace(raw, end);
      if (raw[i] === COMMA) i = skipSpace(raw, i + 1);
      else if (raw[i] !== CLOSE_OBJECT) return undefined;
    }
    if (skipSpace(raw, i + 1) !== raw.length) return undefined;
    return { raw, spans, fields, toolCount };
  } catch {
    return undefined; // not JSON: forwarded as is
  }
}

/**
 * The body with `fields` in place of the values they replace (compared by
 * identity: a rule that changes nothing returns the same object). Keys keep
 * their order; untouched values keep their exact bytes.
 */
export function writeBody(view: BodyView, fields: Readonly<Record<string, unknown>>): Buffer {
  const present = new Set(view.spans.map((s) => s.key));
  // A rule may add a key the body lacked (a system message folded into a missing top-level `system`).
  const added = Object.keys(fields).filter((k) => READ.has(k) && !present.has(k) && fields[k] !== undefined);
  const replaced = (key: string): boolean => READ.has(key) && fields[key] !== view.fields[key];
  if (added.length === 0 && !view.spans.some((s) => replaced(s.key))) return view.raw;
  const parts: Buffer[] = [Buffer.from('{')];
  view.spans.forEach((s, n) => {
    parts.push(Buffer.from(`${n > 0 ? ',' : ''}${JSON.stringify(s.key)}:`));
    parts.push(replaced(s.key) ? Buffer.from(JSON.stringify(fields[s.key])) : view.raw.subarray(s.start, s.end));
  });
  added.forEach((key, n) => parts.push(Buffer.from(`${view.spans.length + n > 0 ? ',' : ''}${JSON.stringify(key)}:${JSON.stringify(fields[key])}`)));
  parts.push(Buffer.from('}'));
  return Buffer.concat(parts);
}

/** Parsed JSON, or undefined for bytes that are not JSON. */
export function tryParse(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
