/**
 * llama.cpp POST /v1/messages and /v1/messages/count_tokens: convert, apply the
 * template (errors before any queueing), wait for a slot with no bytes sent,
 * check the context, send headers when prompt processing starts, then stream
 * the scripted reply with llama.cpp's event order and usage accounting.
 */
import { sendJson, sleep, sleepWithPings, untilAborted, writeEvents, writeSseHeaders } from './http-io.js';
import { llamaMessageId, llamaToolId } from './ids.js';
import type { JsonRecord } from './json.js';
import { ConvertRuntimeError, convertAnthropicLlama, hasImagePart, type LlamaConverted } from './llama-convert.js';
import { contextExceeded, llamaError, templateError, type ErrorReply } from './llama-errors.js';
import type { LlamaMetrics } from './llama-metrics.js';
import type { SlotAssignment, SlotPool } from './llama-slots.js';
import { llamaMessageBody, llamaStreamError, llamaStreamEvents, type LlamaReplyIds, type LlamaUsage } from './llama-stream.js';
import { renderLenient, tokenCount } from './prompt-text.js';
import { renderQwen, TemplateError } from './qwen-template.js';
import { parseRequest, planOutput, resolveTurn, thinkingEnabled, type PlannedOutput } from './script.js';
import type { Exchange, SimState } from './sim-state.js';
import type { Turn } from './types.js';

export interface LlamaEngine {
  readonly state: SimState;
  readonly pool: SlotPool;
  readonly metrics: LlamaMetrics;
  /** Per-slot window of this engine (a router's model instance); the server's `context` when absent. */
  readonly context?: number;
}

const IMAGE_NOT_SUPPORTED = 'image input is not supported - hint: if this is unexpected, you may need to provide the mmproj';

interface Prepared {
  readonly converted: LlamaConverted;
  readonly prompt: string;
  readonly promptTokens: number;
}

/** Conversion, validation and template application, in the order the server does them. */
function prepare(engine: LlamaEngine, body: JsonRecord): Prepared | ErrorReply {
  let converted: LlamaConverted;
  try {
    converted = convertAnthropicLlama(body, { toolResultImages: engine.state.opts.llamaBuild === 'sep2026' });
  } catch (e) {
    if (e instanceof ConvertRuntimeError) return llamaError(e.message, 'server_error');
    throw e;
  }
  // server-common.cpp (oaicompat_chat_params_parse): an image part without an mmproj is a runtime_error → 500.
  if (!engine.state.opts.vision && converted.messages.some(hasImagePart)) return llamaError(IMAGE_NOT_SUPPORTED, 'server_error');
  for (const m of converted.messages) {
    if (m.role !== 'assistant' && m.content === undefined) {
      return llamaError("All non-assistant messages must contain 'content'", 'invalid_request_error');
    }
    if (m.content !== undefined && typeof m.content !== 'string' && !Array.isArray(m.content)) {
      return llamaError("Expected 'content' to be a string or an array", 'invalid_request_error');
    }
  }
  let prompt: string;
  if (engine.state.opts.strictQwen) {
    try {
      prompt = renderQwen(converted.messages, converted.tools, converted.chatTemplateKwargs);
    } catch (e) {
      if (e instanceof TemplateError) return templateError(e.message, engine.state.opts.llamaBuild);
      throw e;
    }
  } else {
    prompt = renderLenient(converted.messages, converted.tools);
  }
  return { converted, prompt, promptTokens: tokenCount(prompt) };
}

function isError(p: Prepared | ErrorReply): p is ErrorReply {
  return 'status' in p;
}

export function handleCountTokens(engine: LlamaEngine, ex: Exchange, body: JsonRecord): void {
  const p = prepare(engine, body);
  if (isError(p)) return sendJson(ex.res, p.status, p.body);
  ex.rec.promptTokens = p.promptTokens;
  sendJson(ex.res, 200, { input_tokens: p.promptTokens });
}

export async function handleMessages(engine: LlamaEngine, ex: Exchange, body: JsonRecord, servedModel: string): Promise<void> {
  const { state, pool } = engine;
  const p = prepare(engine, body);
  if (isError(p)) return sendJson(ex.res, p.status, p.body);
  const parsed = parseRequest(body, ex.rec.headers);
  const turn = await resolveTurn(state.script, parsed, {
    flavor: 'llama.cpp',
    requestIndex: state.nextGenerationIndex(),
    promptTokens: p.promptTokens,
  });
  if (turn.error !== undefined) return sendJson(ex.res, turn.error.status, turn.error.body, turn.error.headers);

  state.stats.queued++;
  const assigned = await pool.acquire(p.prompt, ex.signal);
  state.stats.queued--;
  if (assigned === undefined) return;
  ex.rec.slot = assigned.slot.id;
  ex.rec.promptTokens = assigned.promptTokens;
  ex.rec.cachedTokens = assigned.cachedTokens;
  const nCtx = engine.context ?? state.opts.context;
  if (assigned.promptTokens >= nCtx) {
    pool.release(assigned.slot);
    const err = contextExceeded(assigned.promptTokens, nCtx);
    return sendJson(ex.res, err.status, err.body);
  }
  state.enterFlight();
  let outcome: 'completed' | 'aborted' = 'aborted';
  try {
    outcome = await generate(engine, ex, p, assigned, turn, servedModel);
  } finally {
    pool.release(assigned.slot);
    state.leaveFlight(outcome);
  }
}

/** Aborts with the request, or once the turn's `readUntil` settles (the reading then ends; the request goes on). */
function readingSignal(signal: AbortSignal, until: Promise<unknown> | undefined): AbortSignal {
  if (until === undefined) return signal;
  const ended = new AbortController();
  const end = (): void => ended.abort();
  until.then(end, end);
  return AbortSignal.any([signal, ended.signal]);
}

async function generate(
  engine: LlamaEngine,
  ex: Exchange,
  p: Prepared,
  a: SlotAssignment,
  turn: Turn,
  model: string,
): Promise<'completed' | 'aborted'> {
  const { state, metrics, pool } = engine;
  const o = state.opts;
  const { converted } = p;
  if (turn.hangBeforeHeaders === true) {
    await untilAborted(ex.signal);
    return 'aborted';
  }
  if (converted.stream) writeSseHeaders(ex.res, 'text/event-stream');
  const evaluated = a.promptTokens - a.cachedTokens;
  const prefillMs = o.firstTokenDelayMs + (turn.delayMs ?? 0) + evaluated * o.prefillMsPerToken;
  const prefillStart = performance.now();
  a.slot.reading = { since: Date.now(), ms: prefillMs, tokens: evaluated };
  const reading = readingSignal(ex.signal, turn.readUntil);
  if (converted.stream) await sleepWithPings(ex.res, prefillMs, o.ssePingMs, reading);
  else await sleep(prefillMs, reading);
  a.slot.reading = undefined;
  if (ex.signal.aborted) return 'aborted';
  a.slot.prompt = p.prompt;
  a.slot.nPromptProcessed = evaluated;
  a.slot.nPromptTokens = a.promptTokens;
  a.slot.nDecoded = 1; // the first token is sampled before message_start goes out
  metrics.recordPrompt(evaluated, a.cachedTokens, elapsedSeconds(prefillStart));

  const budget = Math.min(converted.maxTokens < 0 ? Infinity : converted.maxTokens, (engine.context ?? o.context) - a.promptTokens);
  const plan = planOutput(turn, { budget, stop: converted.stop, thinking: thinkingEnabled(converted.chatTemplateKwargs) });
  a.slot.nRemain = Number.isFinite(budget) ? budget : -1;
  const usage: LlamaUsage = {
    cache_read_input_tokens: turn.usage?.cache_read_input_tokens ?? a.cachedTokens,
    input_tokens: turn.usage?.input_tokens ?? evaluated,
    output_tokens: turn.usage?.output_tokens ?? plan.outputTokens,
  };
  ex.rec.outputTokens = plan.outputTokens;
  const ids = { messageId: llamaMessageId(), toolIds: plan.tools.map(() => llamaToolId()), model };
  const genStart = performance.now();
  const finish = (): void => {
    a.slot.nDecoded = plan.outputTokens;
    a.slot.nPromptTokens = a.promptTokens + plan.outputTokens;
    metrics.recordGeneration(plan.outputTokens, elapsedSeconds(genStart), a.promptTokens + plan.outputTokens, pool.busyCount);
  };

  if (turn.hangAfterHeaders === true) {
    if (!converted.stream) writeSseHeadersJson(ex);
    await untilAborted(ex.signal);
    return 'aborted';
  }
  if (converted.stream) {
    const result = await writeEvents(ex.res, llamaStreamEvents(plan, ids, usage), turn.tokenDelayMs ?? o.tokenDelayMs, {
      cutAfterEvents: turn.cutAfterEvents,
      error: turn.streamError === undefined ? undefined : { event: llamaStreamError(turn.streamError.message), afterEvents: turn.streamError.afterEvents },
    }, ex.signal);
    finish();
    return result === 'done' ? 'completed' : 'aborted';
  }
  await sleep(plan.outputTokens * (turn.tokenDelayMs ?? o.tokenDelayMs), ex.signal);
  if (ex.signal.aborted) return 'aborted';
  finish();
  return sendNonStream(ex, plan, ids, usage, turn);
}

function sendNonStream(
  ex: Exchange,
  plan: PlannedOutput,
  ids: LlamaReplyIds,
  usage: LlamaUsage,
  turn: Turn,
): 'completed' | 'aborted' {
  if (turn.cutAfterEvents !== undefined) {
    ex.res.socket?.destroy();
    return 'aborted';
  }
  if (turn.streamError !== undefined) {
    const err = llamaError(turn.streamError.message, 'server_error');
    sendJson(ex.res, err.status, err.body);
    return 'aborted';
  }
  sendJson(ex.res, 200, llamaMessageBody(plan, ids, usage));
  return 'completed';
}

/** Non-stream hang: status line and headers of a JSON reply, no body. */
function writeSseHeadersJson(ex: Exchange): void {
  ex.res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
  ex.res.flushHeaders();
}

/** Measured wall time in seconds (never 0, so throughput gauges stay finite and non-zero). */
function elapsedSeconds(since: number): number {
  return Math.max(1e-6, (performance.now() - since) / 1000);
}
