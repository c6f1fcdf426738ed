/**
 * The open backend requests of one job, as the record shows them (`in_flight`),
 * with flags when one looks stuck, runs away or repeats itself. Flags, never
 * kills: the user or the calling Claude decides whether to cancel. Learns what is
 * usual for this job (longest answer, prompt speed, bytes per prompt token)
 * from its finished requests.
 */
import type { RequestLogEntry } from '../../shim/request-log/request-log.js';
import type { RequestProgress, RequestProgressSnapshot } from '../../shim/progress/request-progress.js';
import type { InFlightRequest, RequestFlag } from '../record/job-record.js';

export interface LiveThresholds {
  /** No byte for this long while open: flagged silent. */
  readonly silenceS: number;
  /** Output beyond this many times the longest earlier turn … */
  readonly runawayFactor: number;
  /** … and beyond this many tokens, with no tool call: flagged as a possible runaway. */
  readonly runawayMinTokens: number;
  /** How often the record's live view is refreshed while a request is open. */
  readonly refreshMs: number;
}

export const DEFAULT_LIVE_THRESHOLDS: LiveThresholds = { silenceS: 60, runawayFactor: 4, runawayMinTokens: 4000, refreshMs: 1000 };

export interface RaisedFlag {
  readonly request: number;
  readonly flag: RequestFlag;
}

export interface LiveRequests {
  open(progress: RequestProgress): void;
  /** A request's log entry: it is no longer open, and it teaches what is usual. */
  finished(entry: RequestLogEntry): void;
  /** The live view now, and the flags raised since the last call (each once per request). */
  view(now?: number): { inFlight: InFlightRequest[]; raised: RaisedFlag[] };
  readonly openCount: number;
}

/** Too few tokens to time a prompt by: the first byte is mostly latency then. */
const MIN_TIMED_PROMPT = 256;

/** "60k", "4,200", "900". */
export function roundTokens(n: number): string {
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  return Math.round(n).toLocaleString('en-US');
}

interface Usual {
  longestOutput: number;
  /** Evaluated prompt tokens per second, from the last request that evaluated enough of them. */
  promptPerS: number | undefined;
  /** Prompt tokens per request byte, from the last answered request. */
  tokensPerByte: number | undefined;
}

function promptEstimate(snap: RequestProgressSnapshot, usual: Usual): number | undefined {
  return usual.tokensPerByte === undefined ? undefined : Math.round(snap.requestBytes * usual.tokensPerByte);
}

/** "12,000 of ~60k prompt tokens read (8,000 cached) at ~900 tokens/s: about 53 s left". */
export function promptReadWords(read: { tokens: number; cached: number; perS: number | undefined }, estimate: number | undefined): string {
  const of = estimate !== undefined && estimate > read.tokens ? ` of ~${roundTokens(estimate)}` : '';
  const speed = read.perS === undefined ? '' : ` at ~${roundTokens(read.perS)} tokens/s`;
  const left = of !== '' && read.perS !== undefined && read.perS > 0 ? `: about ${Math.round(((estimate ?? 0) - read.tokens) / read.perS)} s left` : '';
  return `${roundTokens(read.tokens)}${of} prompt tokens read (${roundTokens(read.cached)} cached)${speed}${left}`;
}

function silentMessage(snap: RequestProgressSnapshot, silentS: number, usual: Usual, estimate: number | undefined): string {
  const silent = `no byte from the server for ${Math.round(silentS)} s`;
  if (snap.phase === 'waiting for a slot') return `${silent}: waiting for a free slot (the server is busy with other requests and sends nothing while a request waits)`;
  // The server's own count, once it shows a speed; before that the usual speed of this job says more.
  if (snap.phase === 'reading the prompt' && snap.promptRead?.perS !== undefined) return `${silent}: reading the prompt, ${promptReadWords(snap.promptRead, estimate)}`;
  if (snap.phase === 'reading the prompt') {
    const size = estimate === undefined ? 'the prompt' : `a ~${roundTokens(estimate)}-token prompt`;
    if (usual.promptPerS === undefined) return `${silent}: reading ${size}; no earlier request of this job to time it by`;
    const total = estimate === undefined ? undefined : Math.round(estimate / usual.promptPerS);
    return `${silent}: reading ${size} at ~${roundTokens(usual.promptPerS)} tokens/s${total === undefined ? '' : `: about ${total} s if none of it is cached`}`;
  }
  return `${silent} while generating (${roundTokens(snap.outputTokens)} tokens so far): the server may be stuck, swapping, or busy with other slots`;
}

function runawayMessage(snap: RequestProgressSnapshot, usual: Usual, factor: number): string {
  const earlier = usual.longestOutput > 0 ? `, over ${factor}× the longest earlier turn of this job (${roundTokens(usual.longestOutput)})` : '';
  return `possible runaway: ${roundTokens(snap.outputTokens)} output tokens with no tool call${earlier}; cancelling the job stops it if it is not useful`;
}

export function createLiveRequests(thresholds: LiveThresholds, now: () => number = Date.now): LiveRequests {
  const open = new Map<number, { progress: RequestProgress; flagged: Set<RequestFlag['kind']> }>();
  const usual: Usual = { longestOutput: 0, promptPerS: undefined, tokensPerByte: undefined };

  const flagsOf = (snap: RequestProgressSnapshot, silentS: number, estimate: number | undefined): RequestFlag[] => {
    const flags: RequestFlag[] = [];
    if (silentS > thresholds.silenceS) flags.push({ kind: 'silent', message: silentMessage(snap, silentS, usual, estimate) });
    const limit = Math.max(thresholds.runawayMinTokens, thresholds.runawayFactor * usual.longestOutput);
    if (snap.phase === 'generating' && !snap.toolCall && snap.outputTokens > limit) {
      flags.push({ kind: 'runaway', message: runawayMessage(snap, usual, thresholds.runawayFactor) });
    }
    if (snap.repeated !== undefined) {
      flags.push({ kind: 'repetitive', message: `repetitive output: the model keeps writing "${snap.repeated.slice(0, 60)}" over and over` });
    }
    return flags;
  };

  return {
    open(progress) {
      open.set(progress.snapshot().request, { progress, flagged: new Set() });
    },
    finished(entry) {
      if (entry.request !== undefined) open.delete(entry.request);
      const u = entry.usage;
      if (u === undefined || entry.status !== 200) return;
      usual.longestOutput = Math.max(usual.longestOutput, u.output_tokens ?? 0);
      const evaluated = u.input_tokens ?? 0;
      const prompt = evaluated + (u.cache_read_input_tokens ?? 0);
      if (prompt > 0 && entry.request_bytes > 0) usual.tokensPerByte = prompt / entry.request_bytes;
      if (evaluated >= MIN_TIMED_PROMPT && entry.ttfb_ms !== undefined && entry.ttfb_ms > 0) usual.promptPerS = evaluated / (entry.ttfb_ms / 1000);
    },
    view(at = now()) {
      const inFlight: InFlightRequest[] = [];
      const raised: RaisedFlag[] = [];
      for (const [request, item] of open) {
        const snap = item.progress.snapshot(at);
        if (snap.ended) {
          open.delete(request); // closed without a log entry (the forwarder failed): not open any more
          continue;
        }
        const silentS = Math.max(0, (at - (snap.lastByteAt ?? snap.startedAt)) / 1000);
        const estimate = snap.promptTokens === undefined ? promptEstimate(snap, usual) : undefined;
        const flags = flagsOf(snap, silentS, estimate);
        for (const flag of flags) {
          if (item.flagged.has(flag.kind)) continue;
          item.flagged.add(flag.kind);
          raised.push({ request, flag });
        }
        inFlight.push({
          request,
          started_at: new Date(snap.startedAt).toISOString(),
          phase: snap.phase,
          ...(snap.promptTokens === undefined ? {} : { prompt_tokens: snap.promptTokens, cached_tokens: snap.cachedTokens ?? 0 }),
          ...(estimate === undefined ? {} : { prompt_tokens_estimate: estimate }),
          ...(snap.promptRead === undefined ? {} : { prompt_read_tokens: snap.promptRead.tokens, prompt_read_cached: snap.promptRead.cached }),
          ...(snap.promptRead?.perS === undefined ? {} : { prompt_read_per_s: snap.promptRead.perS }),
          output_tokens: snap.outputTokens,
          output_tokens_exact: snap.outputExact,
          ...(snap.tokensPerS === undefined ? {} : { tokens_per_s: snap.tokensPerS }),
          silent_s: Math.round(silentS * 10) / 10,
          flags,
        });
      }
      return { inFlight, raised };
    },
    get openCount() {
      return open.size;
    },
  };
}
