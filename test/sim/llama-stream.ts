/**
 * llama.cpp's Anthropic output shapes (server-task.cpp to_json_anthropic*):
 * the SSE event list of a streamed reply and the non-stream message body.
 * Blocks are thinking (0) → text → tool_use; every block is closed only at the
 * end, tool_use starts carry no `input`, the thinking signature is "".
 */
import type { SseEvent } from './http-io.js';
import type { PlannedOutput } from './script.js';

export interface LlamaUsage {
  readonly cache_read_input_tokens: number;
  readonly input_tokens: number;
  readonly output_tokens: number;
}

export interface LlamaReplyIds {
  readonly messageId: string;
  readonly toolIds: readonly string[];
  readonly model: string;
}

export function llamaStreamEvents(plan: PlannedOutput, ids: LlamaReplyIds, usage: LlamaUsage): SseEvent[] {
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
      usage: { cache_read_input_tokens: usage.cache_read_input_tokens, input_tokens: usage.input_tokens, output_tokens: 0 },
    },
  });
  const hasThinking = plan.thinking.length > 0;
  const hasText = plan.text.length > 0;
  const textIndex = hasThinking ? 1 : 0;
  if (hasThinking) {
    push('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } });
    for (const t of plan.thinking) push('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: t } }, { delta: true });
  }
  if (hasText) {
    push('content_block_start', { index: textIndex, content_block: { type: 'text', text: '' } });
    for (const t of plan.text) push('content_block_delta', { index: textIndex, delta: { type: 'text_delta', text: t } }, { delta: true });
  }
  const toolBase = (hasThinking ? 1 : 0) + (hasText ? 1 : 0);
  plan.tools.forEach((tool, i) => {
    const index = toolBase + i;
    push('content_block_start', { index, content_block: { type: 'tool_use', id: ids.toolIds[i] ?? '', name: tool.name } });
    for (const c of tool.argChunks) {
      push('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: c } }, { delta: true });
    }
  });
  const closing = { closing: true };
  if (hasThinking) push('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: '' } }, closing);
  const blocks = toolBase + plan.tools.length;
  for (let index = 0; index < blocks; index++) push('content_block_stop', { index }, closing);
  push(
    'message_delta',
    { delta: { stop_reason: plan.stopReason, stop_sequence: plan.stopSequence }, usage: { output_tokens: usage.output_tokens } },
    closing,
  );
  push('message_stop', {}, closing);
  return events;
}

export function llamaMessageBody(plan: PlannedOutput, ids: LlamaReplyIds, usage: LlamaUsage): Record<string, unknown> {
  const content: Record<string, unknown>[] = [];
  if (plan.thinking.length > 0) content.push({ type: 'thinking', thinking: plan.thinking.join(''), signature: '' });
  if (plan.text.length > 0) content.push({ type: 'text', text: plan.text.join('') });
  plan.tools.forEach((tool, i) => content.push({ type: 'tool_use', id: ids.toolIds[i] ?? '', name: tool.name, input: tool.input }));
  return {
    id: ids.messageId,
    type: 'message',
    role: 'assistant',
    content,
    model: ids.model,
    stop_reason: plan.stopReason,
    stop_sequence: plan.stopSequence,
    usage: { cache_read_input_tokens: usage.cache_read_input_tokens, input_tokens: usage.input_tokens, output_tokens: usage.output_tokens },
  };
}

/** llama.cpp's mid-stream error event (not Anthropic's envelope). */
export function llamaStreamError(message: string): SseEvent {
  return { event: 'error', data: { code: 500, message, type: 'server_error' } };
}
