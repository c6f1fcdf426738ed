/**
 * vLLM's Anthropic output shapes (anthropic/serving.py): pydantic field order,
 * `exclude_unset` stream events, each block closed as soon as the next type
 * starts (thinking gets a uuid-hex signature_delta first), tool_use starts with
 * `input:{}`, message_delta carries the full usage, no stop_sequence.
 */
import type { SseEvent } from './http-io.js';
import { uuidHex } from './ids.js';
import type { PlannedOutput } from './script.js';

export interface VllmUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_creation_input_tokens?: number;
  readonly cache_read_input_tokens?: number;
}

export interface VllmReplyIds {
  readonly messageId: string;
  readonly toolIds: readonly string[];
  readonly model: string;
}

export function vllmStreamEvents(plan: PlannedOutput, ids: VllmReplyIds, usage: VllmUsage): SseEvent[] {
  const events: SseEvent[] = [];
  const push = (event: string, data: Record<string, unknown>, extra: Partial<SseEvent> = {}): void => {
    events.push({ event, data: { type: event, ...data }, ...extra });
  };
  push('message_start', {
    message: {
      id: ids.messageId,
      type: 'message',
      role: 'assistant',
      content: [],
      model: ids.model,
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 0 },
    },
  });
  let index = 0;
  const block = (start: Record<string, unknown>, deltas: readonly Record<string, unknown>[], signature: boolean): void => {
    push('content_block_start', { content_block: start, index });
    for (const d of deltas) push('content_block_delta', { delta: d, index }, { delta: true });
    if (signature) push('content_block_delta', { delta: { type: 'signature_delta', signature: uuidHex() }, index });
    push('content_block_stop', { index });
    index++;
  };
  if (plan.thinking.length > 0) {
    block({ type: 'thinking', thinking: '' }, plan.thinking.map((t) => ({ type: 'thinking_delta', thinking: t })), true);
  }
  if (plan.text.length > 0) block({ type: 'text', text: '' }, plan.text.map((t) => ({ type: 'text_delta', text: t })), false);
  plan.tools.forEach((tool, i) => {
    block(
      { type: 'tool_use', id: ids.toolIds[i] ?? '', name: tool.name, input: {} },
      tool.argChunks.map((c) => ({ type: 'input_json_delta', partial_json: c })),
      false,
    );
  });
  push('message_delta', { delta: { stop_reason: plan.stopReason }, usage }, { closing: true });
  push('message_stop', {}, { closing: true });
  return events;
}

export function vllmMessageBody(plan: PlannedOutput, ids: VllmReplyIds, usage: VllmUsage): Record<string, unknown> {
  const content: Record<string, unknown>[] = [];
  if (plan.thinking.length > 0) content.push({ type: 'thinking', thinking: plan.thinking.join(''), signature: uuidHex() });
  if (plan.text.length > 0) content.push({ type: 'text', text: plan.text.join('') });
  plan.tools.forEach((tool, i) => content.push({ type: 'tool_use', id: ids.toolIds[i] ?? '', name: tool.name, input: tool.input }));
  // Empty completion → one empty text block (vLLM #46525).
  if (content.length === 0) content.push({ type: 'text', text: '' });
  return { id: ids.messageId, type: 'message', role: 'assistant', content, model: ids.model, stop_reason: plan.stopReason, usage };
}

export function vllmError(type: string, message: string): { type: 'error'; error: { type: string; message: string } } {
  return { type: 'error', error: { type, message } };
}

export function vllmStreamError(message: string): SseEvent {
  return { event: 'error', data: vllmError('internal_error', message) };
}
