/**
 * One bounded GET (or a small JSON POST, for Ollama's /api/show) for probes. Returns the status and the (decoded, redacted)
 * body, or throws: the transport error untouched so connect-failure.ts can
 * classify it, or a BackendAnswerError for an answer we refuse to read (too
 * big, undecodable, a redirect, a body that stopped coming).
 */
import { request, type Dispatcher } from 'undici';
import { redactSecrets } from '../secrets/redact.js';
import { ACCEPT_IDENTITY, BackendAnswerError, decodedBody, discard, readWhole, redirectMessage } from './answer-body.js';

/**
 * The most a probe reads of one answer. A model list, /props or a 64-slot /slots
 * is tens of kB; vLLM's /metrics with every histogram a few hundred kB.
 */
export const MAX_PROBE_BODY = 4 * 1024 * 1024;

export interface GetResult {
  readonly status: number;
  readonly text: string;
}

export interface GetOptions {
  /** undici's global dispatcher when undefined. */
  readonly dispatcher: Dispatcher | undefined;
  readonly signal: AbortSignal;
  readonly apiKey: string | undefined;
  readonly limit?: number | undefined;
}

/** Both headers: llama.cpp reads either, vLLM only Bearer, other servers one or the other. */
export function authHeaders(apiKey: string | undefined): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}`, 'x-api-key': apiKey } : {};
}

export function httpGet(url: string, options: GetOptions): Promise<GetResult> {
  return boundedRequest(url, options, undefined);
}

/** POST a JSON body (a request for information, such as Ollama's /api/show), read as boundedly as a GET. */
export function httpPostJson(url: string, json: unknown, options: GetOptions): Promise<GetResult> {
  return boundedRequest(url, options, JSON.stringify(json));
}

async function boundedRequest(url: string, options: GetOptions, body: string | undefined): Promise<GetResult> {
  const method = body === undefined ? 'GET' : 'POST';
  const response = await request(url, {
    method,
    dispatcher: options.dispatcher,
    signal: options.signal,
    headers: {
      accept: 'application/json, text/plain',
      'accept-encoding': ACCEPT_IDENTITY,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...authHeaders(options.apiKey),
    },
    ...(body === undefined ? {} : { body }),
  });
  const what = `${method} ${url}`;
  const redirect = redirectMessage(response.statusCode, response.headers.location, url, what);
  if (redirect !== undefined) {
    discard(response.body);
    throw new BackendAnswerError(redirect, 'redirect');
  }
  const answer = decodedBody(response.body, response.headers['content-encoding'], what);
  let raw: Buffer;
  try {
    raw = await readWhole(answer, options.limit ?? MAX_PROBE_BODY, what);
  } catch (err) {
    if (err instanceof BackendAnswerError) throw err;
    // The server answered (status and headers came) and then its body stopped: that is not "no answer".
    const code = (err as { code?: unknown }).code;
    const why = options.signal.aborted
      ? 'did not finish its body within the probe timeout'
      : typeof code === 'string' && code.startsWith('Z_')
        ? `sent a body that does not decode as its content-encoding says (${code})`
        : 'cut its body short';
    throw new BackendAnswerError(`${what} answered HTTP ${response.statusCode} but ${why} (an endless, stalled or broken answer)`, 'cut');
  }
  // Redacted before any caller slices it: a key cut in half would slip past redaction later.
  return { status: response.statusCode, text: redactSecrets(raw.toString('utf8')) };
}

/** JSON.parse that answers undefined instead of throwing: probe bodies are untrusted. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `{"error":{"message":"Loading model"}}` → "Loading model"; also vLLM's `{"error":"Unauthorized"}`. */
export function errorMessageOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error === 'string') return error;
  if (error !== null && typeof error === 'object') {
    const message = (error as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  return undefined;
}
