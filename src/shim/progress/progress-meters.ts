/**
 * The counting behind a request's live progress (request-progress.ts): output
 * tokens of a streamed answer and their recent speed, and how far the server
 * has read the prompt and how fast. Times come in from the caller; no clock here.
 */

/** Speed is measured over this much recent time. */
const RATE_WINDOW_MS = 5000;
const SAMPLE_EVERY_MS = 250;
const CHARS_PER_TOKEN = 4;

export interface OutputMeter {
  /** Generation began at `t` (message_start). */
  begin(t: number): void;
  /** One content delta's text (text, thinking or tool-argument JSON) arrived at `t`. */
  delta(text: string, t: number): void;
  /** The backend's own count so far. */
  exact(tokens: number): void;
  /** A sample of the rate at `t` (the backend sent a count, or said it has none yet). */
  sample(t: number): void;
  tokens(): number;
  /** True once the count is the backend's own rather than our estimate. */
  isExact(): boolean;
  /** Tokens per second up to `at`, over the last RATE_WINDOW_MS (or since generation began); undefined before half a second. */
  rate(at: number): number | undefined;
}

/**
 * Each content delta carries at least one token and one token is about four
 * characters, so until the backend counts, the estimate is the larger of the
 * delta count and characters / 4.
 */
export function createOutputMeter(): OutputMeter {
  let deltas = 0;
  let chars = 0;
  let exact: number | undefined;
  /** [time, tokens] samples for the recent rate; the first is when generation began. */
  const samples: Array<[number, number]> = [];
  const tokens = (): number => exact ?? Math.max(deltas, Math.ceil(chars / CHARS_PER_TOKEN));
  const sample = (t: number): void => {
    const last = samples[samples.length - 1];
    if (last !== undefined && t - last[0] < SAMPLE_EVERY_MS) {
      last[1] = tokens();
      return;
    }
    samples.push([t, tokens()]);
    while (samples.length > 2 && (samples[1]?.[0] ?? t) < t - RATE_WINDOW_MS) samples.shift();
  };
  return {
    begin: (t) => void samples.push([t, 0]),
    delta(text, t) {
      deltas += 1;
      chars += text.length;
      sample(t);
    },
    exact(n) {
      exact = n;
    },
    sample,
    tokens,
    isExact: () => exact !== undefined,
    rate(at) {
      const first = samples[0];
      if (first === undefined) return undefined;
      // Rate since the newest sample at least RATE_WINDOW_MS old (or since generation began), up to now: a stall lowers it.
      const base = samples.findLast((s) => s[0] <= at - RATE_WINDOW_MS) ?? first;
      const seconds = (at - base[0]) / 1000;
      return seconds >= 0.5 ? Math.round(((tokens() - base[1]) / seconds) * 10) / 10 : undefined;
    },
  };
}

export interface PromptRead {
  readonly tokens: number;
  readonly cached: number;
  readonly perS: number | undefined;
}

export interface PromptReadMeter {
  /** The server has read `tokens` of the prompt (`cached` of them reused) by `at`. */
  read(tokens: number, cached: number, at: number): void;
  /** The latest count, with its speed once a second of reading is seen; undefined before the first. */
  latest(): PromptRead | undefined;
}

export function createPromptReadMeter(): PromptReadMeter {
  /** First and latest count of the prompt read so far, for its speed. */
  let first: { readonly at: number; readonly tokens: number } | undefined;
  let last: { readonly at: number; readonly tokens: number; readonly cached: number } | undefined;
  return {
    read(tokens, cached, at) {
      first ??= { at, tokens };
      last = { at, tokens, cached };
    },
    latest() {
      if (last === undefined || first === undefined) return undefined;
      const seconds = (last.at - first.at) / 1000;
      const perS = seconds >= 1 && last.tokens > first.tokens ? Math.round((last.tokens - first.tokens) / seconds) : undefined;
      return { tokens: last.tokens, cached: last.cached, perS };
    },
  };
}
