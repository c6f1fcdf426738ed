/**
 * The error text of Go's encoding/json for a request body, as Ollama's
 * Anthropic middleware returns it (gin `ShouldBindJSON` → json.Decoder.Decode
 * into `anthropic.MessagesRequest`, then HTTP 400 invalid_request_error with
 * `err.Error()`). Syntax errors follow Go's scanner wording; type errors cover
 * the top-level fields the middleware reads. A Decoder stops after the first
 * value, so trailing text is not an error.
 */
import { isRecord } from './json.js';
import { scanJson } from './json-scan.js';

/** Go's `quoteChar`: the offending character in single quotes. */
function quoteChar(c: string): string {
  if (c === "'") return `'\\''`;
  if (c === '"') return `'"'`;
  const code = c.charCodeAt(0);
  if (code < 0x20) return `'\\x${code.toString(16).padStart(2, '0')}'`;
  return `'${c}'`;
}

const LITERALS = ['true', 'false', 'null'] as const;

/** A bad literal ("nul", "tru e"): which character broke it, or the end of the input. */
function literalError(text: string, pos: number): string {
  const literal = LITERALS.find((l) => l.startsWith(text.charAt(pos))) ?? 'null';
  // The scanner accepted no complete literal here, so some character differs.
  const k = Array.from(literal).findIndex((ch, i) => text.charAt(pos + i) !== ch);
  if (pos + k >= text.length) return 'unexpected EOF';
  return `invalid character ${quoteChar(text.charAt(pos + k))} in literal ${literal} (expecting ${quoteChar(literal.charAt(k))})`;
}

/** A string that never closes is a truncated body; one with a raw control character is not. */
function stringError(text: string, pos: number): string {
  for (let j = pos + 1; j < text.length; j++) {
    const c = text.charAt(j);
    if (c.charCodeAt(0) < 0x20) return `invalid character ${quoteChar(c)} in string literal`;
    if (c === '\\') j++;
  }
  return 'unexpected EOF';
}

export type GoDecoded = { readonly error: string } | { readonly value: unknown };

function decodeSyntax(text: string): GoDecoded {
  if (text.trim() === '') return { error: 'EOF' };
  const f = scanJson(text);
  if (f === undefined) return { value: JSON.parse(text) as unknown };
  // A Decoder reads one value and leaves the rest unread.
  if (f.context === 'end') return { value: JSON.parse(text.slice(0, f.pos)) as unknown };
  if (f.eof) return { error: 'unexpected EOF' };
  const c = text.charAt(f.pos);
  // Where a string was expected, a '"' that fails is a string that does not close.
  if (c === '"' && (f.context === 'value' || f.context === 'object key')) return { error: stringError(text, f.pos) };
  const q = quoteChar(c);
  switch (f.context) {
    case 'object key':
      return { error: `invalid character ${q} looking for beginning of object key string` };
    case 'object separator':
      return { error: `invalid character ${q} after object key` };
    case 'object':
      return { error: `invalid character ${q} after object key:value pair` };
    case 'array':
      return { error: `invalid character ${q} after array element` };
    default:
      return { error: 'tfn'.includes(c) ? literalError(text, f.pos) : `invalid character ${q} looking for beginning of value` };
  }
}

function goKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** Top-level fields of anthropic.MessagesRequest and their Go types. */
const FIELDS: readonly (readonly [string, string, (v: unknown) => boolean])[] = [
  ['model', 'string', (v) => typeof v === 'string'],
  ['max_tokens', 'int', (v) => typeof v === 'number' && Number.isInteger(v)],
  ['messages', '[]anthropic.MessageParam', Array.isArray],
  ['stream', 'bool', (v) => typeof v === 'boolean'],
];

function typeError(value: unknown): string | undefined {
  if (value === null) return undefined;
  if (!isRecord(value)) return `json: cannot unmarshal ${goKind(value)} into Go value of type anthropic.MessagesRequest`;
  for (const [key, goType, fits] of FIELDS) {
    const v = value[key];
    if (v === undefined || v === null || fits(v)) continue;
    const what = typeof v === 'number' ? `number ${String(v)}` : goKind(v);
    return `json: cannot unmarshal ${what} into Go struct field MessagesRequest.${key} of type ${goType}`;
  }
  return undefined;
}

/** The body as Ollama decodes it, or Go's error text for it. */
export function goDecode(text: string): GoDecoded {
  const decoded = decodeSyntax(text);
  if ('error' in decoded) return decoded;
  const error = typeError(decoded.value);
  return error === undefined ? decoded : { error };
}
