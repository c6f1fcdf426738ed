/**
 * Ollama's Anthropic output shapes (anthropic/anthropic.go `StreamConverter`,
 * `ToMessagesResponse`, `NewError`): Go struct field order, empty strings and
 * zero values omitted (no stop_sequence, no thinking signature, no cache
 * usage), message_start with the request-size estimate, each tool call as one
 * input_json_delta, and no `event: error` or ping ever (a failure mid-stream
 * just ends the stream).
 */
import type { SseEvent } from './http-io.js';
import { ollamaId } from './ids.js';
import type { PlannedOutput } from './script.js';

export interface OllamaUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
}

export interface OllamaReplyIds {
  readonly messageId: string;
  readonly toolIds: readonly string[];
  /** The model name as the request spelled it. */
  readonly model: string;
}

export interface OllamaErrorBody {
  readonly type: 'error';
  readonly error: { readonly type: string; readonly message: string };
  readonly request_id: string;
}

/** `NewError`: the Anthropic error type follows the HTTP status. */
export function ollamaError(status: number, message: string): OllamaErrorBody {
  const type =
    ({ 400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error', 429: 'rate_limit_error', 503: 'overloaded_error', 529: 'overloaded_error' } as Readonly<Record<number, string>>)[status] ??
    'api_error';
  return { type: 'error', error: { type, message }, request_id: ollamaId('req') };
}

/** `mapStopReason`: any tool call wins; "length" is max_tokens; a stop sequence ends as "stop" → end_turn. */
function stopReason(plan: PlannedOutput): string {
  if (plan.tools.length > 0) return 'tool_use';
  return plan.stopReason === 'max_tokens' ? 'max_tokens' : 'end_turn';
}

export function ollamaStreamEvents(plan: PlannedOutput, ids: OllamaReplyIds, estimatedInput: number, usage: OllamaUsage): SseEvent[] {
  const events: SseEvent[] = [];
  const push = (event: string, data: Record<string, unknown>, extra: Partial<SseEvent> = {}): void => {
    events.push({ event, data: { type: event, ...data }, ...extra });
  };
  // The first chunk carries no prompt count yet, so the converter reports its estimate.
  push('message_start', { message: { id: ids.messageId, type: 'message', role: 'assistant', model: ids.model, content: [], usage: { input_tokens: estimatedInput, output_tokens: 0 } } });
  let index = 0;
  const block = (start: Record<string, unknown>, deltas: readonly Record<string, unknown>[]): void => {
    push('content_block_start', { index, content_block: start });
    for (const d of deltas) push('content_block_delta', { index, delta: d }, { delta: true });
    push('content_block_stop', { index });
    index++;
  };
  if (plan.thinking.length > 0) block({ type: 'thinking', thinking: '' }, plan.thinking.map((t) => ({ type: 'thinking_delta', thinking: t })));
  if (plan.text.length > 0) block({ type: 'text', text: '' }, plan.text.map((t) => ({ type: 'text_delta', text: t })));
  // The tool parser hands over whole calls: one delta with all of the arguments.
  plan.tools.forEach((tool, i) => {
    block({ type: 'tool_use', id: ids.toolIds[i] ?? '', name: tool.name, input: {} }, [{ type: 'input_json_delta', partial_json: JSON.stringify(tool.input) }]);
  });
  push('message_delta', { delta: { stop_reason: stopReason(plan) }, usage }, { closing: true });
  push('message_stop', {}, { closing: true });
  return events;
}

/** The non-stream body; `content` is null when the model produced nothing (a nil Go slice). */
export function ollamaMessageBody(plan: PlannedOutput, ids: OllamaReplyIds, usage: OllamaUsage): Record<string, unknown> {
  const content: Record<string, unknown>[] = [];
  if (plan.thinking.length > 0) content.push({ type: 'thinking', thinking: plan.thinking.join('') });
  if (plan.text.length > 0) content.push({ type: 'text', text: plan.text.join('') });
  plan.tools.forEach((tool, i) => content.push({ type: 'tool_use', id: ids.toolIds[i] ?? '', name: tool.name, input: tool.input }));
  return {
    id: ids.messageId,
    type: 'message',
    role: 'assistant',
    model: ids.model,
    content: content.length > 0 ? content : null,
    stop_reason: stopReason(plan),
    usage,
  };
}
