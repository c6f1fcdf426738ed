/**
 * One request through the shim: normalise the body, forward it on a pooled
 * keep-alive connection, stream the answer back byte for byte (rewriting only
 * llama.cpp-shaped error events), translate error answers, log the request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { BackendAnswerError, decodedBody, discard, formatBytes, redirectMessage } from '../backends/answer-body.js';
import { classifyConnectFailure } from '../backends/connect-failure.js';
import type { Logger } from '../log.js';
import { holdsSecret, redactSecrets } from '../secrets/redact.js';
import { readBodyView, writeBody } from './json-body.js';
import { answerThenLinger } from './lingering-close.js';
import { answerProblem, requestFacts, writeLog, type RequestFacts } from './request-entry.js';
import { normaliseRequest, type NormaliseNotes } from './normalise.js';
import type { RouteOutage } from './outage-hold.js';
import { clampMaxTokens } from './rewrite/max-tokens.js';
import { rewriteModelId } from './rewrite/model-id.js';
import { createRequestProgress } from './request-progress.js';
import { requestJobValues } from './request-job-values.js';
import type { PromptWatch } from './prompt-watch.js';
import { mayHoldMedia, replaceMedia } from './media.js';
import type { PdfTextCache } from './pdf-text.js';
import type { RouteSpec } from './routes.js';
import { contextOverflowError } from './translate/context-overflow.js';
import { outageDeadlineError, refusedAnswerError, requestTooLargeError, translateBackendError, unreachableBackendError } from './translate/backend-error.js';
import type { TranslatedError } from './translate/anthropic-error.js';
import { createStreamErrorRewriter } from './translate/stream-error-rewriter.js';
import { createSseUsageTracker, usageFromJson, type UsageResult } from './usage.js';
import { readCapped, requestHeadersForBackend, responseHeadersForClient, type UpstreamPools } from './upstream.js';

export interface RouteState {
  /** Replaced (with endpointUrl) only when failover moves the job to another endpoint. */
  spec: RouteSpec;
  /** The endpoint's base_url, parsed once for the route (read only). */
  endpointUrl: URL;
  /** Prompt size of the last answered request: a cheap first guess of the next one's. */
  lastPrompt: { tokens: number; bytes: number } | undefined;
  /** /v1/messages requests opened on this route so far (numbers them). */
  messagesOpened: number;
  /** The job's wait for its server while it is down, loading or swapped (absent: defaults.outage_wait_s is 0). */
  readonly outage: RouteOutage | undefined;
}

/**
 * The largest request Claude Code may send through the shim: Anthropic's own
 * Messages API limit (32 MB), which Claude Code already keeps to. A long session
 * with images is a few MB; the captured sessions are under 100 kB.
 */
export const MAX_REQUEST_BODY = 32 * 1024 * 1024;
/** Error bodies are small; a backend streaming a gigabyte of "error" is cut here. */
const MAX_ERROR_BODY = 1024 * 1024;
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
/** Pessimistic bytes per token of a JSON request body, so the guess errs towards asking count_tokens. */
const BYTES_PER_TOKEN_LOW = 2;

/** The request body, or undefined once it passes `limit` (declared or counted: chunked bodies have no length). */
async function readRequestBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  if (Number(req.headers['content-length'] ?? 0) > limit) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  // Not destroyed on an early return: the refusal still has to answer on this socket (lingering-close.ts).
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) return undefined;
    chunks.push(buf);
  }
  return chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks);
}

/** 413 before the rest is read: the connection closes (after a bounded linger) instead of draining a body we will not use. */
function refuseTooLarge(req: IncomingMessage): void {
  const error = requestTooLargeError(formatBytes(MAX_REQUEST_BODY));
  answerThenLinger(req, { status: error.status, headers: error.headers, body: JSON.stringify(error.body) });
}

function tryParse(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return undefined; // forwarded as is: the backend's own error for bad JSON is the truest answer
  }
}

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

function sendError(res: ServerResponse, error: TranslatedError): void {
  const body = JSON.stringify(error.body);
  res.writeHead(error.status, { ...error.headers, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function numberField(value: unknown, key: string): number | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const n = (value as Record<string, unknown>)[key];
  return typeof n === 'number' ? n : undefined;
}

/** Exact prompt size from the backend, when it can tell. */
async function countTokens(route: RouteState, pools: UpstreamPools, payload: Buffer): Promise<number | undefined> {
  const { endpoint } = route.spec;
  try {
    const res = await pools.pool(route.endpointUrl.origin).request({
      method: 'POST',
      path: '/v1/messages/count_tokens',
      headers: requestHeadersForBackend({ 'content-type': 'application/json' }, endpoint.apiKey, payload.length),
      body: payload,
    });
    const text = await readCapped(decodedBody(res.body, res.headers['content-encoding'], 'count_tokens'), MAX_ERROR_BODY);
    return res.statusCode === 200 ? numberField(tryParse(Buffer.from(text)), 'input_tokens') : undefined;
  } catch {
    return undefined; // fall back to the estimate
  }
}

/** What every request shares: connections to backends and the llama.cpp prompt watch. */
export interface ForwardShared {
  readonly pools: UpstreamPools;
  readonly promptWatch: PromptWatch;
  /** PDF text per content, so every turn of a session gets the same text. */
  readonly pdfTexts: PdfTextCache;
}

export async function forwardRequest(
  req: IncomingMessage,
  res: ServerResponse,
  pathAndQuery: string,
  route: RouteState,
  shared: ForwardShared,
  log: Logger,
): Promise<void> {
  const { pools } = shared;
  const started = performance.now();
  const t = new Date().toISOString();
  let { spec } = route;
  const method = req.method ?? 'GET';
  const pathname = pathAndQuery.split('?', 1)[0] ?? '/';
  const isMessages = method === 'POST' && pathname === '/v1/messages';
  const isCount = method === 'POST' && pathname === '/v1/messages/count_tokens';
  const raw = await readRequestBody(req, MAX_REQUEST_BODY);
  if (raw === undefined) {
    refuseTooLarge(req);
    const declared = Number(req.headers['content-length'] ?? 0);
    writeLog(spec, { t, method, pathname, facts: undefined, raw: Buffer.alloc(0), status: 413, started, ttfb: undefined, usage: undefined, notes: undefined, extra: [`refused a request over ${formatBytes(MAX_REQUEST_BODY)}${declared > 0 ? ` (${declared} bytes declared)` : ''}`] });
    return;
  }
  const request = isMessages ? ++route.messagesOpened : undefined;
  // Only when someone watches (a job): the observer decodes every SSE data line.
  const progress = request === undefined || spec.onRequestStart === undefined ? undefined : createRequestProgress({ request, backend: spec.endpoint.backend, requestBytes: raw.length });
  if (progress !== undefined) {
    spec.onRequestStart?.(progress);
    res.on('close', () => progress.end()); // also when the forwarder throws: the live view never keeps a dead request
  }
  // llama.cpp counts a prompt as it reads it only on /slots; every request of ours counts there, watched or not.
  const slotSeat = isMessages && spec.endpoint.backend === 'llama.cpp' ? shared.promptWatch.enter(spec.endpoint, spec.servedModel, progress) : undefined;
  if (slotSeat !== undefined) res.on('close', () => slotSeat.leave());

  let body = raw;
  let facts: RequestFacts | undefined;
  let notes: NormaliseNotes | undefined;
  let fields: Readonly<Record<string, unknown>> | undefined;
  const extra: string[] = [];
  const view = isMessages || isCount ? readBodyView(raw) : undefined;
  if (view !== undefined) {
    facts = requestFacts(view);
    const normalised = normaliseRequest(view.fields, { servedModel: spec.servedModel, perJobValues: requestJobValues(spec, req.headers) });
    notes = normalised.notes;
    fields = normalised.body as Readonly<Record<string, unknown>>; // normaliseRequest returns an object for an object
    const vision = spec.vision === true;
    if (Array.isArray(fields.messages) && mayHoldMedia(raw, vision)) {
      const media = await replaceMedia(fields.messages, vision, shared.pdfTexts);
      if (media.replaced.length > 0) {
        fields = { ...fields, messages: media.messages };
        notes = { ...notes, mediaReplaced: media.replaced };
      }
    }
    // vLLM rejects prompt + max_tokens > max_model_len; llama.cpp only stops early.
    const maxTokens = numberField(fields, 'max_tokens');
    if (isMessages && spec.endpoint.backend === 'vllm' && spec.context !== undefined && maxTokens !== undefined) {
      const last = route.lastPrompt;
      const guess = last ? last.tokens + Math.max(0, raw.length - last.bytes) / BYTES_PER_TOKEN_LOW : raw.length / BYTES_PER_TOKEN_LOW;
      if (guess + maxTokens > spec.context) {
        const counted = await countTokens(route, pools, writeBody(view, fields));
        const clamp = clampMaxTokens(fields, { window: spec.context, promptTokens: counted ?? Math.ceil(guess), enforce: true });
        if (clamp.overflow !== undefined) {
          const error = contextOverflowError(clamp.overflow.promptTokens, clamp.overflow.maxPromptTokens);
          sendError(res, error);
          writeLog(spec, { t, method, pathname, facts, raw, status: error.status, started, ttfb: undefined, usage: undefined, notes, extra: ['answered prompt-too-long before forwarding'], error: error.body.error.message, errorSource: 'http', request });
          return;
        }
        if (clamp.changed) {
          fields = clamp.body as Readonly<Record<string, unknown>>; // clampMaxTokens keeps the object shape
          extra.push(`max_tokens lowered from ${maxTokens} to fit ${spec.context} (${counted === undefined ? 'estimated' : 'counted'} prompt)`);
        }
      }
    }
    body = writeBody(view, fields);
  }
  if (spec.log.dumping && view !== undefined) spec.log.writeFull(t, pathAndQuery, body.toString('utf8'));

  // Claude Code gave up on this request (abort, retry, its job ended): stop the generation so
  // the slot frees, also while the backend has not answered yet (a queued or hung request).
  const clientGone = new AbortController();
  const onClientGone = (): void => {
    if (!res.writableFinished) clientGone.abort();
  };
  res.on('close', onClientGone);

  const send = (): Promise<Dispatcher.ResponseData> =>
    pools.pool(route.endpointUrl.origin).request({
      method: method,
      path: pathAndQuery,
      headers: requestHeadersForBackend(req.headers, spec.endpoint.apiKey, body.length),
      body,
      signal: clientGone.signal,
    });
  const { outage } = route;
  let upstream: Dispatcher.ResponseData;
  let held: string | undefined; // why the last attempt found no server, while the job's outage wait lasts
  for (;;) {
    if (outage !== undefined && (outage.active || held !== undefined)) {
      const outcome = await outage.wait(held, clientGone.signal);
      if (outcome.kind === 'gone') {
        res.off('close', onClientGone);
        writeLog(spec, { t, method, pathname, facts, raw, status: 0, started, ttfb: undefined, usage: undefined, notes, extra: [...extra, 'client closed the connection while the job waited for its model server'], request });
        return;
      }
      if (outcome.kind === 'expired') {
        res.off('close', onClientGone);
        const error = outageDeadlineError(outcome.message);
        sendError(res, error);
        writeLog(spec, { t, method, pathname, facts, raw, status: error.status, started, ttfb: undefined, usage: undefined, notes, extra: [...extra, 'held for the model server until defaults.outage_wait_s passed'], error: error.body.error.message, errorSource: 'outage', request });
        return;
      }
      if (route.spec === spec) extra.push(`held ${Math.round(performance.now() - started)} ms until ${spec.endpoint.name} served the job's model again`);
      else {
        // Failover moved the job while this request was held: it goes to the new endpoint, with its served id.
        extra.push(`held ${Math.round(performance.now() - started)} ms, then moved from ${spec.endpoint.name} to ${route.spec.endpoint.name} (defaults.failover)`);
        if (view !== undefined && fields !== undefined && route.spec.servedModel !== spec.servedModel) {
          fields = rewriteModelId(fields, route.spec.servedModel).body as Readonly<Record<string, unknown>>; // an object stays an object
          body = writeBody(view, fields);
        }
        spec = route.spec;
      }
    } else if (outage !== undefined && isMessages) {
      const seen = await outage.recheck();
      if (seen !== undefined && !seen.serving) {
        held = seen.saw;
        continue;
      }
    }
    try {
      upstream = await send();
    } catch (err) {
      if (clientGone.signal.aborted) {
        res.off('close', onClientGone);
        writeLog(spec, { t, method, pathname, facts, raw, status: 0, started, ttfb: undefined, usage: undefined, notes, extra: [...extra, 'client closed the connection before the backend answered'], request });
        return;
      }
      const failure = classifyConnectFailure(err, route.endpointUrl.host, 10);
      if (outage !== undefined) {
        held = `is down (${failure.reason})`;
        continue;
      }
      res.off('close', onClientGone);
      const error = unreachableBackendError({ endpoint: spec.endpoint.name, reason: failure.reason });
      sendError(res, error);
      writeLog(spec, { t, method, pathname, facts, raw, status: error.status, started, ttfb: undefined, usage: undefined, notes, extra, error: error.body.error.message, errorSource: 'connect', request });
      return;
    }
    // llama.cpp answers 503 while it loads; held only when a probe agrees, so a 503 for another reason is answered as before.
    if (upstream.statusCode === 503 && outage !== undefined) {
      const seen = await outage.look();
      if (!seen.serving) {
        discard(upstream.body);
        held = seen.saw;
        continue;
      }
    }
    break;
  }
  clientGone.signal.addEventListener('abort', () => upstream.body.destroy(), { once: true });
  const { endpointUrl } = route;

  const status = upstream.statusCode;
  const what = `${spec.endpoint.name} (${method} ${endpointUrl.origin}${pathname})`;
  let answer: Readable;
  try {
    // Never handed on: Claude Code would follow it and send the conversation past the shim and its log.
    const redirect = redirectMessage(status, upstream.headers.location, endpointUrl.href, `The model server ${what}`);
    if (redirect !== undefined) throw new BackendAnswerError(redirect, 'redirect');
    answer = decodedBody(upstream.body, upstream.headers['content-encoding'], `The model server ${what}`);
  } catch (err) {
    if (!(err instanceof BackendAnswerError)) throw err;
    discard(upstream.body);
    res.off('close', onClientGone);
    const error = refusedAnswerError(err.message);
    sendError(res, error);
    writeLog(spec, { t, method, pathname, facts, raw, status: error.status, started, ttfb: undefined, usage: undefined, notes, extra: [...extra, `refused backend HTTP ${status} (${err.kind})`], error: error.body.error.message });
    return;
  }
  const decoded = answer !== upstream.body;
  progress?.headers(status);
  if (status < 500) outage?.served();

  if (status >= 400) {
    const text = redactSecrets(await readCapped(answer, MAX_ERROR_BODY));
    if (isCount && (status === 404 || status === 405 || status === 501)) {
      // A backend without count_tokens: an estimate keeps /context and friends working.
      const estimate = JSON.stringify({ input_tokens: Math.ceil(raw.length / 4) });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(estimate) });
      res.end(estimate);
      writeLog(spec, { t, method, pathname, facts, raw, status: 200, started, ttfb: undefined, usage: undefined, notes, extra: [...extra, 'count_tokens estimated (backend has none)'] });
      return;
    }
    const translated = translateBackendError({ status, headers: upstream.headers, body: text, backend: spec.endpoint.backend, endpoint: spec.endpoint.name });
    sendError(res, translated);
    writeLog(spec, {
      t, method, pathname, facts, raw, status: translated.status, started, ttfb: undefined, usage: undefined, notes,
      extra: translated.kind === 'passthrough' ? extra : [...extra, `translated backend ${status} (${translated.kind}) → ${translated.status}`],
      original: translated.original.slice(0, 300),
      error: translated.body.error.message,
      errorSource: 'http',
      backendStatus: status,
      request,
    });
    return;
  }

  slotSeat?.started();
  res.writeHead(status, responseHeadersForClient(upstream.headers, decoded));
  const contentType = String(upstream.headers['content-type'] ?? '');
  const streaming = contentType.includes('text/event-stream');
  const tracker = streaming ? createSseUsageTracker({ backend: spec.endpoint.backend }) : undefined;
  const rewriter = streaming ? createStreamErrorRewriter({ backend: spec.endpoint.backend, endpoint: spec.endpoint.name }) : undefined;
  const jsonChunks: Buffer[] = [];
  let jsonKept = 0;
  let lineBytes = 0;
  let ttfb: number | undefined;
  let cut: string | undefined;
  try {
    for await (const chunk of answer) {
      const buf = chunk as Buffer;
      ttfb ??= performance.now() - started;
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
      if (out.length > 0 && !res.write(out)) await drainedOrClosed(res);
    }
    if (rewriter) {
      const tail = rewriter.end();
      if (tail.length > 0) res.write(tail);
    }
  } catch (err) {
    cut = err instanceof Error ? err.message : String(err);
    answer.destroy();
  }
  res.off('close', onClientGone);
  if (cut !== undefined) {
    if (!clientGone.signal.aborted) outage?.doubt();
    // Measured with Claude Code 2.1.332: an `event: error` here makes it resend at once as a
    // non-streaming request (no backoff, no progress for a long answer); a dropped connection gets
    // its ordinary streaming retry with backoff, exactly as the backend's own cut would.
    // A JSON answer cut short must not reach the client as a complete 200 either.
    res.destroy();
  } else res.end();

  let usage: UsageResult | undefined;
  let bodyIsJson = jsonKept > MAX_JSON_KEPT; // too big to check: assume so
  if (tracker) usage = tracker.result();
  else if (jsonChunks.length > 0) {
    const json = tryParse(Buffer.concat(jsonChunks));
    bodyIsJson ||= json !== undefined;
    usage = usageFromJson(json);
  }
  const wantedStream = facts?.stream === true;
  const problem = isMessages && cut === undefined ? answerProblem(wantedStream, contentType, usage, bodyIsJson) : undefined;
  const promptTokens = (usage?.input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0);
  if (isMessages && promptTokens > 0) route.lastPrompt = { tokens: promptTokens, bytes: raw.length };
  writeLog(spec, {
    t, method, pathname, facts, raw, status, started, ttfb, notes,
    usage: usage && { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, cache_read_input_tokens: usage.cache_read_input_tokens, cache_creation_input_tokens: usage.cache_creation_input_tokens },
    extra: cut === undefined ? extra : [...extra, clientGone.signal.aborted ? 'client closed the connection' : 'stream cut by the backend'],
    // The tracker saw the backend's bytes before redaction; the log gets the redacted words.
    error: clientGone.signal.aborted ? undefined : redactSecrets(cut ?? usage?.error?.message ?? problem ?? '') || undefined,
    original: cut === undefined && usage?.error?.original !== undefined ? redactSecrets(usage.error.original) : undefined,
    errorSource: cut !== undefined ? 'cut' : usage?.error !== undefined ? 'stream' : 'answer',
    request,
  });
  if (cut !== undefined && !clientGone.signal.aborted) log.warn('shim: %s answer from %s cut: %s', spec.jobId, spec.endpoint.name, cut);
}
