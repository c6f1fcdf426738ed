/**
 * One request through the shim: read and normalise the body
 * (prepare-request.ts), send it on a pooled keep-alive connection, holding it
 * through an outage (upstream-call.ts), then hand the answer back byte for byte
 * (answer-relay.ts) or as the Anthropic error Claude Code acts on
 * (error-answer.ts). Every way it ends writes one requests.jsonl line through
 * the request's logger (request-logger.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.js';
import { relayAnswer } from './answer-relay.js';
import { answerBackendError, openAnswer } from './error-answer.js';
import { openExchange, type Exchange, type ForwardShared, type RouteState } from './exchange.js';
import { prepareBody, readBodyOrRefuse } from './prepare-request.js';
import { createRequestProgress, type RequestProgress } from './progress/request-progress.js';
import { callUpstream } from './upstream-call.js';


/** The live view of a /v1/messages request, when someone watches (a job): the observer decodes every SSE data line. */
function watchProgress(x: Exchange, request: number | undefined, requestBytes: number): RequestProgress | undefined {
  const { spec } = x.route;
  if (request === undefined || spec.onRequestStart === undefined) return undefined;
  const progress = createRequestProgress({ request, backend: spec.endpoint.backend, requestBytes });
  spec.onRequestStart(progress);
  x.res.on('close', () => progress.end()); // also when the forwarder throws: the live view never keeps a dead request
  return progress;
}

export async function forwardRequest(req: IncomingMessage, res: ServerResponse, pathAndQuery: string, route: RouteState, shared: ForwardShared, log: Logger): Promise<void> {
  const x = openExchange(req, res, pathAndQuery, route, shared);
  const raw = await readBodyOrRefuse(x);
  if (raw === undefined) return;
  const { spec } = route;
  const request = x.isMessages ? ++route.messagesOpened : undefined;
  const progress = watchProgress(x, request, raw.length);
  // llama.cpp counts a prompt as it reads it only on /slots; every request of ours counts there, watched or not.
  const slotSeat = x.isMessages && spec.endpoint.backend === 'llama.cpp' ? shared.promptWatch.enter(spec.endpoint, spec.servedModel, progress) : undefined;
  if (slotSeat !== undefined) res.on('close', () => slotSeat.leave());

  const prepared = await prepareBody(x, raw, request);
  if (prepared === undefined) return;
  x.watchClient();
  const upstream = await callUpstream(x, prepared.body);
  if (upstream === undefined) return;
  x.clientGone.addEventListener('abort', () => upstream.body.destroy(), { once: true });

  const answer = openAnswer(x, upstream);
  if (answer === undefined) return;
  const status = upstream.statusCode;
  progress?.headers(status);
  if (status < 500) route.outage?.served();
  if (status >= 400) return answerBackendError(x, upstream, answer, raw.length);
  slotSeat?.started();
  await relayAnswer(x, upstream, answer, { requestBytes: raw.length, stream: prepared.stream }, progress, log);
}
