/**
 * A request's body, from Claude Code's bytes to what the backend gets: read
 * whole (up to Anthropic's own limit), normalised, media turned into text
 * where the model cannot see it, and on vLLM max_tokens fitted to the window
 * (rewrite/max-tokens.ts; counting the prompt with the backend when tight).
 */
import type { IncomingMessage } from 'node:http';
import { decodedBody, formatBytes } from '../backends/answer-body.js';
import { sendError, type Exchange } from './exchange.js';
import { readBodyView, tryParse, writeBody, type BodyView } from './json/json-body.js';
import { answerThenLinger } from './upstream/lingering-close.js';
import { mayHoldMedia, replaceMedia } from './body/media.js';
import { normaliseRequest } from './body/normalise.js';
import { requestFacts } from './body/request-entry.js';
import { requestJobValues } from './request-job-values.js';
import { fitVllmWindow, promptGuessIfTight } from './rewrite/max-tokens.js';
import { contextOverflowError } from './translate/context-overflow.js';
import { requestTooLargeError } from './translate/backend-error.js';
import { readCapped, requestHeadersForBackend } from './upstream/upstream.js';

/**
 * The largest request Claude Code may send through the shim: Anthropic's own
 * Messages API limit (32 MB), which Claude Code already keeps to. A long session
 * with images is a few MB; the captured sessions are under 100 kB.
 */
export const MAX_REQUEST_BODY = 32 * 1024 * 1024;
/** A count_tokens answer is a few bytes; a backend sending more is cut here. */
const MAX_COUNT_ANSWER = 1024 * 1024;

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

/**
 * The body as Claude Code sent it; undefined when it is too large, after a 413 before the rest
 * is read: the connection closes (after a bounded linger) instead of draining a body we will not use.
 */
export async function readBodyOrRefuse(x: Exchange): Promise<Buffer | undefined> {
  const raw = await readRequestBody(x.req, MAX_REQUEST_BODY);
  if (raw !== undefined) return raw;
  const error = requestTooLargeError(formatBytes(MAX_REQUEST_BODY));
  answerThenLinger(x.req, { status: error.status, headers: error.headers, body: JSON.stringify(error.body) });
  const declared = Number(x.req.headers['content-length'] ?? 0);
  x.log.write({ status: 413, note: `refused a request over ${formatBytes(MAX_REQUEST_BODY)}${declared > 0 ? ` (${declared} bytes declared)` : ''}` });
  return undefined;
}

/** Exact prompt size from the backend, when it can tell. */
async function countTokens(x: Exchange, payload: Buffer): Promise<number | undefined> {
  try {
    const res = await x.shared.pools.pool(x.route.endpointUrl.origin).request({
      method: 'POST',
      path: '/v1/messages/count_tokens',
      headers: requestHeadersForBackend({ 'content-type': 'application/json' }, x.route.spec.endpoint.apiKey, payload.length),
      body: payload,
    });
    const answer = tryParse(Buffer.from(await readCapped(decodedBody(res.body, res.headers['content-encoding'], 'count_tokens'), MAX_COUNT_ANSWER)));
    const tokens = answer !== null && typeof answer === 'object' ? (answer as Record<string, unknown>).input_tokens : undefined;
    return res.statusCode === 200 && typeof tokens === 'number' ? tokens : undefined;
  } catch {
    return undefined; // fall back to the estimate
  }
}

/** vLLM rejects prompt + max_tokens > max_model_len; llama.cpp only stops early. Undefined: answered "prompt is too long". */
async function fitWindow(x: Exchange, view: BodyView, fields: Readonly<Record<string, unknown>>, raw: Buffer): Promise<Readonly<Record<string, unknown>> | undefined> {
  const { spec } = x.route;
  if (!x.isMessages || spec.endpoint.backend !== 'vllm' || spec.context === undefined) return fields;
  const guess = promptGuessIfTight(fields, { window: spec.context, requestBytes: raw.length, lastPrompt: x.route.lastPrompt });
  if (guess === undefined) return fields;
  const counted = await countTokens(x, writeBody(view, fields));
  const fit = fitVllmWindow(fields, spec.context, { tokens: counted ?? guess, counted: counted !== undefined });
  if (fit.overflow !== undefined) {
    const error = contextOverflowError(fit.overflow.promptTokens, fit.overflow.maxPromptTokens);
    sendError(x.res, error);
    x.log.write({ status: error.status, note: 'answered prompt-too-long before forwarding', error: error.body.error.message, errorSource: 'http' });
    return undefined;
  }
  if (fit.note !== undefined) x.log.note(fit.note);
  return fit.body as Readonly<Record<string, unknown>>; // clampMaxTokens keeps the object shape
}

export interface PreparedBody {
  readonly body: Buffer;
  /** Claude Code asked for a stream (a Messages body with `stream: true`). */
  readonly stream: boolean;
}

/**
 * The bytes to send the backend: a Messages or count_tokens body normalised, anything else
 * (or a body that is not a JSON object) as it came. Undefined: the shim answered already.
 */
export async function prepareBody(x: Exchange, raw: Buffer, request: number | undefined): Promise<PreparedBody | undefined> {
  const { spec } = x.route;
  const view = x.isMessages || x.isCount ? readBodyView(raw) : undefined;
  if (view === undefined) {
    x.log.body({ facts: undefined, notes: undefined, bytes: raw.length, request });
    return { body: raw, stream: false };
  }
  const normalised = normaliseRequest(view.fields, { servedModel: spec.servedModel, perJobValues: requestJobValues(spec, x.req.headers) });
  let notes = normalised.notes;
  let fields = normalised.body as Readonly<Record<string, unknown>>; // normaliseRequest returns an object for an object
  const vision = spec.vision === true;
  if (Array.isArray(fields.messages) && mayHoldMedia(raw, vision)) {
    const media = await replaceMedia(fields.messages, vision, x.shared.pdfTexts);
    if (media.replaced.length > 0) {
      fields = { ...fields, messages: media.messages };
      notes = { ...notes, mediaReplaced: media.replaced };
    }
  }
  const facts = requestFacts(view);
  x.log.body({ facts, notes, bytes: raw.length, request });
  const fitted = await fitWindow(x, view, fields, raw);
  if (fitted === undefined) return undefined;
  const body = writeBody(view, fitted);
  if (spec.log.dumping) spec.log.writeFull(x.log.t, x.pathAndQuery, body.toString('utf8'));
  return { body, stream: facts.stream };
}
