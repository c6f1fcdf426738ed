/**
 * Ollama's Anthropic request handling (ollama/ollama anthropic/anthropic.go
 * `FromMessagesRequest`, server/prompt.go `chatPrompt`, read at the commits
 * named in test/sim/README.md): the body becomes Ollama chat messages, and a
 * prompt longer than num_ctx is cut silently by dropping the oldest messages
 * (system messages and the last message always stay) instead of being refused.
 */
import { isRecord, records, str, type JsonRecord } from './json.js';
import { toolResultText } from './llama-convert.js';
import type { OaiMessage, OaiTool, OaiToolCall } from './prompt-text.js';

/** A request the converter refuses (HTTP 400 invalid_request_error with this text). */
export class OllamaBadRequest extends Error {}

export interface OllamaChat {
  readonly messages: OaiMessage[];
  readonly tools: OaiTool[] | undefined;
}

/** `system`: a string, or its text blocks concatenated with no separator; dropped when empty. */
function systemMessage(system: unknown): OaiMessage | undefined {
  const text = typeof system === 'string' ? system : records(system).filter((b) => b['type'] === 'text').map((b) => str(b['text']) ?? '').join('');
  return text === '' ? undefined : { role: 'system', content: text };
}

function checkImage(block: JsonRecord): void {
  const source = block['source'];
  if (!isRecord(source)) throw new OllamaBadRequest('invalid image source');
  if (source['type'] !== 'base64') throw new OllamaBadRequest(`invalid image source type: ${str(source['type']) ?? ''}. Only base64 images are supported.`);
}

/** `convertMessage`: one Anthropic message → the chat message plus its tool results (results first for a user turn). */
function convertMessage(msg: JsonRecord): OaiMessage[] {
  const role = (str(msg['role']) ?? '').toLowerCase();
  const blocks = typeof msg['content'] === 'string' ? [{ type: 'text', text: msg['content'] }] : records(msg['content']);
  let text = '';
  let thinking = '';
  const toolCalls: OaiToolCall[] = [];
  const results: OaiMessage[] = [];
  for (const block of blocks) {
    switch (block['type']) {
      case 'text':
        text += str(block['text']) ?? '';
        break;
      case 'image':
        checkImage(block);
        break;
      case 'tool_use': {
        if (!str(block['id'])) throw new OllamaBadRequest("tool_use block missing required 'id' field");
        if (!str(block['name'])) throw new OllamaBadRequest("tool_use block missing required 'name' field");
        const input = isRecord(block['input']) ? block['input'] : {};
        toolCalls.push({ id: String(block['id']), type: 'function', function: { name: String(block['name']), arguments: JSON.stringify(input) } });
        break;
      }
      case 'tool_result':
        results.push({ role: 'tool', tool_call_id: str(block['tool_use_id']) ?? '', content: toolResultText(block['content']) });
        break;
      case 'thinking':
        thinking = str(block['thinking']) ?? '';
        break;
      // Other block types are counted and dropped.
    }
  }
  const message: OaiMessage[] =
    text !== '' || toolCalls.length > 0 || thinking !== ''
      ? [{ role, content: text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}), ...(thinking !== '' ? { reasoning_content: thinking } : {}) }]
      : [];
  return role === 'user' ? [...results, ...message] : [...message, ...results];
}

function convertTools(tools: unknown): OaiTool[] | undefined {
  const list = records(tools);
  if (list.length === 0) return undefined;
  return list.map((t) => ({
    type: 'function',
    function: { name: str(t['name']) ?? '', description: str(t['description']) ?? '', parameters: t['input_schema'] ?? {} },
  }));
}

/** Role:"system" inside `messages` is kept in place; the model's renderer decides whether it accepts it. */
export function convertAnthropicOllama(body: JsonRecord): OllamaChat {
  const system = systemMessage(body['system']);
  const messages = records(body['messages']).flatMap(convertMessage);
  return { messages: system === undefined ? messages : [system, ...messages], tools: convertTools(body['tools']) };
}

/**
 * `EstimateInputTokens`: characters / 4 of the system prompt, roles, text,
 * thinking, tool blocks as JSON and tool definitions. message_start reports
 * this; the real count arrives in message_delta.
 */
export function estimateInputTokens(body: JsonRecord): number {
  const system = body['system'];
  let chars = typeof system === 'string' ? system.length : records(system).reduce((n, b) => n + (str(b['text']) ?? '').length, 0);
  const messages = records(body['messages']);
  for (const m of messages) {
    chars += (str(m['role']) ?? '').length;
    const content = typeof m['content'] === 'string' ? [{ type: 'text', text: m['content'] }] : records(m['content']);
    for (const b of content) {
      chars += (str(b['text']) ?? '').length + (str(b['thinking']) ?? '').length;
      if (b['type'] === 'tool_use' || b['type'] === 'tool_result') chars += JSON.stringify(b).length;
    }
  }
  for (const t of records(body['tools'])) {
    chars += (str(t['name']) ?? '').length + (str(t['description']) ?? '').length + (t['input_schema'] === undefined ? 0 : JSON.stringify(t['input_schema']).length);
  }
  const tokens = Math.floor(chars / 4);
  return tokens === 0 && (messages.length > 0 || system !== undefined) ? 1 : tokens;
}

/** `toolBlockStartIndex`: a tool result is never kept without the assistant turn that called it. */
function blockStart(messages: readonly OaiMessage[], i: number): number {
  if (i <= 0 || messages[i]?.role !== 'tool') return i;
  let start = i;
  while (start > 0 && messages[start - 1]?.role === 'tool') start--;
  const caller = messages[start - 1];
  return caller?.role === 'assistant' && (caller.tool_calls?.length ?? 0) > 0 ? start - 1 : i;
}

export interface FittedPrompt {
  readonly prompt: string;
  /** Tokens the model evaluates: at most num_ctx (the runner cuts what still does not fit). */
  readonly promptTokens: number;
  /** Messages left out to fit (0 when everything fits). */
  readonly droppedMessages: number;
}

/**
 * `chatPrompt` with truncate on (the default for /v1/messages): drop messages
 * from the front until the rendered prompt fits `numCtx`, keeping every system
 * message and at least the last message. Nothing tells the client.
 */
export function fitToWindow(messages: readonly OaiMessage[], render: (m: readonly OaiMessage[]) => string, count: (p: string) => number, numCtx: number): FittedPrompt {
  const keep = (start: number): OaiMessage[] => [...messages.slice(0, start).filter((m) => m.role === 'system'), ...messages.slice(start)];
  let start = 0;
  for (let i = 0; i < messages.length; i++) {
    start = blockStart(messages, i);
    if (i === messages.length - 1 || count(render(keep(start))) <= numCtx) break;
  }
  const kept = keep(start);
  const prompt = render(kept);
  return { prompt, promptTokens: Math.min(count(prompt), numCtx), droppedMessages: messages.length - kept.length };
}
