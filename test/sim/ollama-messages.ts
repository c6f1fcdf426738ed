/**
 * Ollama POST /v1/messages, in the order the real server works
 * (middleware/anthropic.go, then server/routes.go `ChatHandler`): decode and
 * validate (400), find the model (404), load it, render and silently fit the
 * prompt into num_ctx (template errors are 500), wait for a parallel slot with
 * no bytes sent, then send headers and message_start with the first token.
 */
import { sendJson, sleep, untilAborted, writeEvents, writeSseHeaders, type SseEvent } from './http-io.js';
import { ollamaId, ollamaToolId } from './ids.js';
import { goDecode } from './go-json-error.js';
import { isRecord, num, str, type JsonRecord } from './json.js';
import { convertAnthropicOllama, estimateInputTokens, fitToWindow, OllamaBadRequest, type FittedPrompt } from './ollama-convert.js';
import { ollamaError, ollamaMessageBody, ollamaStreamEvents, type OllamaReplyIds, type OllamaUsage } from './ollama-stream.js';
import { renderLenient, tokenCount, type OaiMessage, type OaiTool } from './prompt-text.js';
import { renderQwen, TemplateError } from './qwen-template.js';
import { parseRequest, planOutput, resolveTurn } from './script.js';
import type { SlotPool } from './llama-slots.js';
import type { Exchange, SimState } from './sim-state.js';
import type { Turn } from './types.js';

export interface OllamaEngine {
  readonly state: SimState;
  /** OLLAMA_NUM_PARALLEL sequences; the rest wait. */
  readonly pool: SlotPool;
}

function reply(ex: Exchange, status: number, message: string): void {
  // Ollama writes its errors with Content-Type application/json (no charset).
  sendJson(ex.res, status, ollamaError(status, message), { 'Content-Type': 'application/json' });
}

/** The middleware's own checks, in its order. */
function validationError(body: JsonRecord): string | undefined {
  if (!str(body['model'])) return 'model is required';
  if ((num(body['max_tokens']) ?? 0) <= 0) return 'max_tokens is required and must be positive';
  if (!Array.isArray(body['messages']) || body['messages'].length === 0) return 'messages is required';
  return undefined;
}

/** Ollama names are case-insensitive and an untagged name means ":latest". */
export function servesModel(installed: string, requested: string): boolean {
  const want = requested.toLowerCase();
  const have = installed.toLowerCase();
  return want === have || `${want}:latest` === have;
}

/**
 * The strict renderer's refusal as Ollama words it. #17774 (qwen3.8 renderer):
 * `error="system message must be at the beginning"`, i.e. the template's reason
 * in lower case without the final period.
 */
function rendererMessage(reason: string): string {
  return (reason.charAt(0).toLowerCase() + reason.slice(1)).replace(/\.$/, '');
}

function fit(engine: OllamaEngine, messages: readonly OaiMessage[], tools: readonly OaiTool[] | undefined): FittedPrompt {
  const render = engine.state.opts.strictQwen ? (m: readonly OaiMessage[]) => renderQwen(m, tools, undefined) : (m: readonly OaiMessage[]) => renderLenient(m, tools);
  return fitToWindow(messages, render, tokenCount, engine.state.opts.context);
}

export async function handleOllamaMessages(engine: OllamaEngine, ex: Exchange): Promise<void> {
  const { state, pool } = engine;
  const decoded = goDecode(ex.rec.bodyText);
  if ('error' in decoded) return reply(ex, 400, decoded.error);
  const body: JsonRecord = isRecord(decoded.value) ? decoded.value : {};
  const invalid = validationError(body);
  if (invalid !== undefined) return reply(ex, 400, invalid);
  let chat;
  try {
    chat = convertAnthropicOllama(body);
  } catch (e) {
    if (e instanceof OllamaBadRequest) return reply(ex, 400, e.message);
    throw e;
  }
  const model = String(body['model']);
  if (!servesModel(state.opts.modelId, model)) return reply(ex, 404, `model '${model}' not found`);
  // Ollama loads an installed model on its first request; it then shows in /api/ps.
  state.ollamaLoaded = true;

  let fitted: FittedPrompt;
  try {
    fitted = fit(engine, chat.messages, chat.tools);
  } catch (e) {
    if (e instanceof TemplateError) return reply(ex, 500, rendererMessage(e.reason));
    throw e;
  }
  ex.rec.promptTokens = fitted.promptTokens;
  const parsed = parseRequest(body, ex.rec.headers);
  const turn = await resolveTurn(state.script, parsed, { flavor: 'ollama', requestIndex: state.nextGenerationIndex(), promptTokens: fitted.promptTokens });
  if (turn.error !== undefined) return sendJson(ex.res, turn.error.status, turn.error.body, turn.error.headers);

  state.stats.queued++;
  const assigned = await pool.acquire(fitted.prompt, ex.signal);
  state.stats.queued--;
  if (assigned === undefined) return;
  ex.rec.slot = assigned.slot.id;
  ex.rec.cachedTokens = assigned.cachedTokens;
  state.enterFlight();
  let outcome: 'completed' | 'aborted' = 'aborted';
  try {
    outcome = await generate(engine, ex, { body, fitted, cached: assigned.cachedTokens, stream: parsed.stream, turn });
  } finally {
    assigned.slot.prompt = fitted.prompt;
    pool.release(assigned.slot);
    state.leaveFlight(outcome);
  }
}

interface Generation {
  readonly body: JsonRecord;
  readonly fitted: FittedPrompt;
  readonly cached: number;
  readonly stream: boolean;
  readonly turn: Turn;
}

async function generate(engine: OllamaEngine, ex: Exchange, g: Generation): Promise<'completed' | 'aborted'> {
  const o = engine.state.opts;
  const { turn, body } = g;
  if (turn.hangBeforeHeaders === true || turn.hangAfterHeaders === true) {
    if (turn.hangAfterHeaders === true) ex.res.writeHead(200, { 'Content-Type': g.stream ? 'text/event-stream' : 'application/json' }).flushHeaders();
    await untilAborted(ex.signal);
    return 'aborted';
  }
  // Nothing is written before the first token: prompt processing happens with the response unopened.
  await sleep(o.firstTokenDelayMs + (turn.delayMs ?? 0) + (g.fitted.promptTokens - g.cached) * o.prefillMsPerToken, ex.signal);
  if (ex.signal.aborted) return 'aborted';
  const stop = Array.isArray(body['stop_sequences']) ? body['stop_sequences'].filter((s): s is string => typeof s === 'string') : [];
  const thinking = !(isRecord(body['thinking']) && body['thinking']['type'] === 'disabled');
  // num_predict = max_tokens; a full window shifts the context instead of ending the reply.
  const plan = planOutput(turn, { budget: num(body['max_tokens']) ?? 0, stop, thinking });
  ex.rec.outputTokens = plan.outputTokens;
  const usage: OllamaUsage = { input_tokens: turn.usage?.input_tokens ?? g.fitted.promptTokens, output_tokens: turn.usage?.output_tokens ?? plan.outputTokens };
  const ids: OllamaReplyIds = { messageId: ollamaId('msg'), toolIds: plan.tools.map(() => ollamaToolId()), model: String(body['model']) };
  const delay = turn.tokenDelayMs ?? o.tokenDelayMs;
  if (g.stream) {
    writeSseHeaders(ex.res, 'text/event-stream');
    const events = ollamaStreamEvents(plan, ids, estimateInputTokens(body), usage);
    // Ollama has no error event: a failure after the first chunk ends the stream where it is.
    const shown: readonly SseEvent[] = turn.streamError === undefined ? events : events.slice(0, turn.streamError.afterEvents ?? events.findIndex((e) => e.closing === true));
    const result = await writeEvents(ex.res, shown, delay, { cutAfterEvents: turn.cutAfterEvents }, ex.signal);
    return result === 'done' && turn.streamError === undefined ? 'completed' : 'aborted';
  }
  await sleep(plan.outputTokens * delay, ex.signal);
  if (ex.signal.aborted) return 'aborted';
  if (turn.cutAfterEvents !== undefined) {
    ex.res.socket?.destroy();
    return 'aborted';
  }
  if (turn.streamError !== undefined) {
    reply(ex, 500, turn.streamError.message);
    return 'aborted';
  }
  sendJson(ex.res, 200, ollamaMessageBody(plan, ids, usage), { 'Content-Type': 'application/json' });
  return 'completed';
}
