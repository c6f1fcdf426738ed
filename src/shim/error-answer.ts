/**
 * A backend answer the shim does not hand on as it came: a redirect or an
 * encoding it cannot read (refused), and an error status (translated into the
 * Anthropic error Claude Code acts on; count_tokens a backend lacks is
 * estimated instead).
 */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { BackendAnswerError, decodedBody, discard, redirectMessage } from '../backends/answer-body.js';
import { redactSecrets } from '../secrets/redact.js';
import type { Exchange } from './exchange.js';
import { refusedAnswerError, translateBackendError } from './translate/backend-error.js';
import { readCapped } from './upstream/upstream.js';

/** Error bodies are small; a backend streaming a gigabyte of "error" is cut here. */
const MAX_ERROR_BODY = 1024 * 1024;

/** The answer's body, decoded; undefined when the shim refused the answer (and logged it). */
export function openAnswer(x: Exchange, upstream: Dispatcher.ResponseData): Readable | undefined {
  const status = upstream.statusCode;
  const { endpointUrl, spec } = x.route;
  const what = `The model server ${spec.endpoint.name} (${x.method} ${endpointUrl.origin}${x.pathname})`;
  try {
    // Never handed on: Claude Code would follow it and send the conversation past the shim and its log.
    const redirect = redirectMessage(status, upstream.headers.location, endpointUrl.href, what);
    if (redirect !== undefined) throw new BackendAnswerError(redirect, 'redirect');
    return decodedBody(upstream.body, upstream.headers['content-encoding'], what);
  } catch (err) {
    if (!(err instanceof BackendAnswerError)) throw err;
    discard(upstream.body);
    x.fail(refusedAnswerError(err.message), { note: `refused backend HTTP ${status} (${err.kind})` });
    return undefined;
  }
}

/** An error status (≥ 400), answered and logged. */
export async function answerBackendError(x: Exchange, upstream: Dispatcher.ResponseData, answer: Readable, requestBytes: number): Promise<void> {
  const status = upstream.statusCode;
  const { spec } = x.route;
  const text = redactSecrets(await readCapped(answer, MAX_ERROR_BODY));
  if (x.isCount && (status === 404 || status === 405 || status === 501)) {
    // A backend without count_tokens: an estimate keeps /context and friends working.
    const estimate = JSON.stringify({ input_tokens: Math.ceil(requestBytes / 4) });
    x.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(estimate) });
    x.res.end(estimate);
    x.log.write({ status: 200, note: 'count_tokens estimated (backend has none)' });
    return;
  }
  const translated = translateBackendError({ status, headers: upstream.headers, body: text, backend: spec.endpoint.backend, endpoint: spec.endpoint.name });
  x.fail(translated, {
    note: translated.kind === 'passthrough' ? undefined : `translated backend ${status} (${translated.kind}) → ${translated.status}`,
    original: translated.original.slice(0, 300),
    errorSource: 'http',
    backendStatus: status,
  });
}
