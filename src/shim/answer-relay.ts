/**
 * A backend's answer on its way to Claude Code: byte for byte, except
 * llama.cpp-shaped error events (rewritten) and any key the backend echoed
 * (redacted); usage and live progress read as it passes; a cut answer cuts
 * Claude Code's connection too. Then the request's requests.jsonl line.
 */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Logger } from '../log.js';
import { holdsSecret, redactSecrets } from '../secrets/redact.js';
import type { Exchange } from './exchange.js';
import { tryParse } from './json/json-body.js';
import { answerProblem } from './body/request-entry.js';
import type { RequestProgress } from './progress/request-progress.js';
import { createStreamErrorRewriter } from './translate/stream-error-rewriter.js';
import { createSseUsageTracker, usageFromJson, type UsageResult } from './body/usage.js';
import { responseHeadersForClient } from './upstream/upstream.js';

/**
 * A JSON answer is kept only to read its usage; past this it is still forwarded,
 * just not kept. 32000 output tokens are about 256 kB of JSON.
 */
const MAX_JSON_KEPT = 4 * 1024 * 1024;
/**
 * The longest SSE line we accept. The stream rewriters hold a line until its end,
 * so an endless line would be an endless buffer. One delta holds at most one
 * response's output: 262144 tokens × 4 bytes, doubled by JSON escaping, is 2 MB.
 */
const MAX_SSE_LINE = 8 * 1024 * 1024;

/** Waits for the client to take more bytes; a client that left never drains, so its close ends the wait too. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** What the relay needs to know of the request. */
export interface SentBody {
  /** The body's size as Claude Code sent it. */
  readonly requestBytes: number;
  /** Claude Code asked for a stream. */
  readonly stream: boolean;
}

interface Relayed {
  readonly ttfb: number | undefined;
  /** Why the answer broke off, if it did. */
  readonly cut: string | undefined;
  readonly usage: UsageResult | undefined;
  readonly bodyIsJson: boolean;
}

/** The answer's bytes to Claude Code, as they come. */
async function relayBytes(x: Exchange, answer: Readable, streaming: boolean, progress: RequestProgress | undefined): Promise<Relayed> {
  const { backend, name } = x.route.spec.endpoint;
  const tracker = streaming ? createSseUsageTracker({ backend }) : undefined;
  const rewriter = streaming ? createStreamErrorRewriter({ backend, endpoint: name }) : undefined;
  const jsonChunks: Buffer[] = [];
  let jsonKept = 0;
  let lineBytes = 0;
  let ttfb: number | undefined;
  let cut: string | undefined;
  try {
    for await (const chunk of answer) {
      const buf = chunk as Buffer;
      ttfb ??= performance.now() - x.log.started;
      let out = buf;
      if (tracker && rewriter) {
        const lf = buf.lastIndexOf(0x0a);
        lineBytes = lf === -1 ? lineBytes + buf.length : buf.length - lf - 1;
        if (lineBytes > MAX_SSE_LINE) throw new Error(`an SSE line longer than ${MAX_SSE_LINE} bytes without a line end`);
        tracker.push(buf);
        progress?.push(buf);
        out = rewriter.push(buf);
      } else if (jsonKept <= MAX_JSON_KEPT) {
        progress?.touch();
        jsonKept += buf.length;
        jsonChunks.push(buf);
      } else if (jsonChunks.length > 0) jsonChunks.length = 0; // too big to parse for usage: stop keeping it
      // The rewriter hands on an error event whole, so a key quoted in one is found here even across chunks.
      if (holdsSecret(out)) out = Buffer.from(redactSecrets(out.toString('utf8')));
      if (out.length > 0 && !x.res.write(out)) await drainedOrClosed(x.res);
    }
    if (rewriter) {
      const tail = rewriter.end();
      if (tail.length > 0) x.res.write(tail);
    }
  } catch (err) {
    cut = err instanceof Error ? err.message : String(err);
    answer.destroy();
  }
  if (tracker) return { ttfb, cut, usage: tracker.result(), bodyIsJson: jsonKept > MAX_JSON_KEPT };
  const json = jsonChunks.length > 0 ? tryParse(Buffer.concat(jsonChunks)) : undefined;
  // Too big to check: assume JSON.
  return { ttfb, cut, usage: jsonChunks.length > 0 ? usageFromJson(json) : undefined, bodyIsJson: jsonKept > MAX_JSON_KEPT || json !== undefined };
}

/** A 2xx or 3xx answer (not a redirect) relayed to Claude Code and logged. */
export async function relayAnswer(x: Exchange, upstream: Dispatcher.ResponseData, answer: Readable, sent: SentBody, progress: RequestProgress | undefined, log: Logger): Promise<void> {
  const { spec } = x.route;
  const decoded = answer !== upstream.body;
  x.res.writeHead(upstream.statusCode, responseHeadersForClient(upstream.headers, decoded));
  const contentType = String(upstream.headers['content-type'] ?? '');
  const { ttfb, cut, usage, bodyIsJson } = await relayBytes(x, answer, contentType.includes('text/event-stream'), progress);
  x.settle();
  const gone = x.clientGone.aborted;
  if (cut !== undefined) {
    if (!gone) x.route.outage?.doubt();
    // Measured with Claude Code 2.1.332: an `event: error` here makes it resend at once as a
    // non-streaming request (no backoff, no progress for a long answer); a dropped connection gets
    // its ordinary streaming retry with backoff, exactly as the backend's own cut would.
    // A JSON answer cut short must not reach the client as a complete 200 either.
    x.res.destroy();
  } else x.res.end();

  const problem = x.isMessages && cut === undefined ? answerProblem(sent.stream, contentType, usage, bodyIsJson) : undefined;
  const promptTokens = (usage?.input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0);
  if (x.isMessages && promptTokens > 0) x.route.lastPrompt = { tokens: promptTokens, bytes: sent.requestBytes };
  x.log.write({
    status: upstream.statusCode,
    ttfb,
    usage: usage && { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, cache_read_input_tokens: usage.cache_read_input_tokens, cache_creation_input_tokens: usage.cache_creation_input_tokens },
    note: cut === undefined ? undefined : gone ? 'client closed the connection' : 'stream cut by the backend',
    // The tracker saw the backend's bytes before redaction; the log gets the redacted words.
    error: gone ? undefined : redactSecrets(cut ?? usage?.error?.message ?? problem ?? '') || undefined,
    original: cut === undefined && usage?.error?.original !== undefined ? redactSecrets(usage.error.original) : undefined,
    errorSource: cut !== undefined ? 'cut' : usage?.error !== undefined ? 'stream' : 'answer',
  });
  if (cut !== undefined && !gone) log.warn('shim: %s answer from %s cut: %s', spec.jobId, spec.endpoint.name, cut);
}
