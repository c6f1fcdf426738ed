/**
 * The one redaction step for every text that leaves the process: tool results,
 * CLI output, the dashboard API, log lines, job records, the request logs and
 * what the shim hands to Claude Code.
 *
 * Secrets are learnt process-wide as models.yaml loads (every `api_key`, and
 * the value of every `api_key_env` in the user's environment), so a sink needs
 * no config to redact. A key the user later removes stays redacted until the
 * process ends: redacting too much costs nothing.
 *
 * Besides the key as written, a backend or proxy may echo it encoded: inside a
 * JSON string (a key with `"` or `\`), percent-encoded (a URL in an error), or
 * base64 (an echoed `Authorization: Basic`/`Bearer` header, a debug dump). Each
 * form is matched; base64 at every byte alignment, so the key is found inside a
 * larger base64 blob too (up to two bytes at each end of it may stay visible
 * there). Other transformations (hex, a key split across lines, a compressed
 * body we do not decode) are not recognised.
 */

/** Keys shorter than this guard nothing worth mangling every message for. */
const MIN_SECRET_LENGTH = 8;
const MASK = '[redacted]';

/** Every form of every known secret, longest first so a longer form is replaced before its parts. */
let patterns: string[] = [];
let patternBytes: Buffer[] = [];
const known = new Set<string>();

/** The stretch of `base64(prefix + secret)` that depends on the secret alone, for each of the three alignments. */
function base64Cores(secret: Buffer, alphabet: 'base64' | 'base64url'): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), secret]).toString(alphabet);
    const first = Math.ceil((offset * 8) / 6);
    const end = Math.floor(((offset + secret.length) * 8) / 6);
    cores.push(encoded.slice(first, end));
  }
  return cores;
}

function formsOf(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = [
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    ...base64Cores(bytes, 'base64'),
    ...base64Cores(bytes, 'base64url'),
  ];
  return forms.filter((f) => f.length >= MIN_SECRET_LENGTH);
}

/** Remember a secret so every sink redacts it from now on. Undefined and short values are ignored. */
export function learnSecret(value: string | undefined): void {
  if (value === undefined || value.length < MIN_SECRET_LENGTH || known.has(value)) return;
  known.add(value);
  const all = new Set([...patterns, ...formsOf(value)]);
  patterns = [...all].sort((a, b) => b.length - a.length);
  patternBytes = patterns.map((p) => Buffer.from(p, 'utf8'));
}

/** The text with every known secret, in every recognised form, replaced by `[redacted]`. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const pattern of patterns) if (out.includes(pattern)) out = out.split(pattern).join(MASK);
  return out;
}

/** Whether raw bytes hold a known secret: the cheap check before decoding a chunk to redact it. */
export function holdsSecret(bytes: Buffer): boolean {
  return patternBytes.some((p) => bytes.includes(p));
}

/** A copy of a JSON-like value with every string (keys too) redacted; the value itself when nothing is known. */
export function redactDeep<T>(value: T): T {
  if (patterns.length === 0) return value;
  return walk(value) as T;
}

function walk(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map(walk);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redactSecrets(k), walk(v)]));
  }
  return value;
}
