/**
 * Port of llama.cpp's `server_chat_convert_anthropic_to_oai()` (server-chat.cpp
 * at 9e3b928fd): Anthropic body → OpenAI chat messages, with its quirks kept
 * (string-content messages pushed unchanged even when role is "system", user
 * text pushed before the tool results of the same turn, billing hash → fffff).
 */
import { isRecord, records, str, type JsonRecord } from './json.js';
import type { OaiMessage, OaiTool, OaiToolCall } from './prompt-text.js';

/** A C++ std::runtime_error from the converter (→ HTTP 500 server_error). */
export class ConvertRuntimeError extends Error {}

export interface LlamaConverted {
  readonly messages: OaiMessage[];
  readonly tools: OaiTool[] | undefined;
  readonly maxTokens: number;
  readonly stream: boolean;
  readonly stop: string[];
  readonly chatTemplateKwargs: unknown;
}

const BILLING = 'x-anthropic-billing-header:';

/** `normalize_anthropic_billing_header()`: the 5 chars after `cch=` become fffff when followed by ';'. */
export function normalizeBillingHeader(text: string): string {
  if (!text.startsWith(BILLING)) return text;
  const at = text.indexOf('cch=', BILLING.length);
  if (at < 0) return text;
  const from = at + 4;
  if (from + 5 < text.length && text[from + 5] === ';') return `${text.slice(0, from)}fffff${text.slice(from + 5)}`;
  return text;
}

function convertSystem(system: unknown): OaiMessage | undefined {
  if (system === undefined || system === null) return undefined;
  let content = '';
  if (typeof system === 'string') content = normalizeBillingHeader(system);
  else if (Array.isArray(system)) {
    for (const block of records(system)) {
      if (block['type'] === 'text') content += normalizeBillingHeader(str(block['text']) ?? '');
    }
  }
  return { role: 'system', content };
}

/** A tool_result's text blocks joined (the Anthropic → chat conversion of llama.cpp and Ollama alike). */
export function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return records(content)
    .filter((c) => c['type'] === 'text')
    .map((c) => str(c['text']) ?? '')
    .join('');
}

export interface ConvertOptions {
  /** The pinned source (sep2026) keeps a tool_result's images as image parts; older builds keep only its text. */
  readonly toolResultImages: boolean;
}

/** A tool_result's content: text only, or (pinned source) text and image parts when it holds an image. */
function toolResultContent(content: unknown, options: ConvertOptions): string | JsonRecord[] {
  const images = records(content).filter((c) => c['type'] === 'image');
  if (!options.toolResultImages || images.length === 0) return toolResultText(content);
  return records(content).flatMap((c) => (c['type'] === 'text' ? [{ type: 'text', text: str(c['text']) ?? '' }] : c['type'] === 'image' ? [imagePart(c) ?? {}] : []));
}

/** Whether a converted message carries an image part, which a server without an mmproj refuses. */
export function hasImagePart(message: OaiMessage): boolean {
  return Array.isArray(message.content) && records(message.content).some((p) => p['type'] === 'image_url');
}

function imagePart(block: JsonRecord): JsonRecord | undefined {
  const source = isRecord(block['source']) ? block['source'] : {};
  if (source['type'] === 'base64') {
    const media = str(source['media_type']) ?? 'image/jpeg';
    return { type: 'image_url', image_url: { url: `data:${media};base64,${str(source['data']) ?? ''}` } };
  }
  if (source['type'] === 'url') return { type: 'image_url', image_url: { url: str(source['url']) ?? '' } };
  return undefined;
}

function convertBlocks(msg: JsonRecord, blocks: unknown[], out: OaiMessage[], options: ConvertOptions): void {
  const role = str(msg['role']) ?? '';
  const parts: JsonRecord[] = [];
  const toolCalls: OaiToolCall[] = [];
  const toolResults: OaiMessage[] = [];
  let reasoning = '';
  for (const block of records(blocks)) {
    const type = str(block['type']) ?? '';
    if (type === 'text') parts.push(block);
    else if (type === 'thinking') reasoning += str(block['thinking']) ?? '';
    else if (type === 'image') {
      const p = imagePart(block);
      if (p !== undefined) parts.push(p);
    } else if (type === 'tool_use') {
      const input = isRecord(block['input']) ? block['input'] : {};
      toolCalls.push({
        id: str(block['id']) ?? '',
        type: 'function',
        function: { name: str(block['name']) ?? '', arguments: JSON.stringify(input) },
      });
    } else if (type === 'tool_result') {
      toolResults.push({ role: 'tool', tool_call_id: str(block['tool_use_id']) ?? '', content: toolResultContent(block['content'], options) });
    }
    // redacted_thinking, document, search_result, server_tool_use, …: dropped silently.
  }
  if (parts.length > 0 || toolCalls.length > 0 || reasoning !== '') {
    out.push({
      role,
      content: parts.length > 0 ? parts : '',
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      ...(reasoning !== '' ? { reasoning_content: reasoning } : {}),
    });
  }
  out.push(...toolResults);
}

function convertTools(tools: unknown): OaiTool[] | undefined {
  if (!Array.isArray(tools)) return undefined;
  return tools.map((t) => {
    const tool = isRecord(t) ? t : {};
    return {
      type: 'function',
      function: {
        name: str(tool['name']) ?? '',
        description: str(tool['description']) ?? '',
        parameters: 'input_schema' in tool ? tool['input_schema'] : {},
      },
    };
  });
}

export function convertAnthropicLlama(body: JsonRecord, options: ConvertOptions): LlamaConverted {
  const messages: OaiMessage[] = [];
  const sys = convertSystem(body['system']);
  if (sys !== undefined) messages.push(sys);
  if (!('messages' in body)) throw new ConvertRuntimeError("'messages' is required");
  const raw = body['messages'];
  if (Array.isArray(raw)) {
    for (const item of raw) {
      const msg = isRecord(item) ? item : {};
      if (!('content' in msg)) {
        if (msg['role'] === 'assistant') continue;
        messages.push(toOai(msg));
        continue;
      }
      const content = msg['content'];
      if (Array.isArray(content)) convertBlocks(msg, content, messages, options);
      else messages.push(toOai(msg));
    }
  }
  const maxTokens = typeof body['max_tokens'] === 'number' ? body['max_tokens'] : 4096;
  const stop = Array.isArray(body['stop_sequences']) ? body['stop_sequences'].filter((s): s is string => typeof s === 'string') : [];
  return {
    messages,
    tools: convertTools(body['tools']),
    maxTokens,
    stream: body['stream'] === true,
    stop,
    chatTemplateKwargs: body['chat_template_kwargs'],
  };
}

/** A message pushed unchanged, typed for the renderers. */
function toOai(msg: JsonRecord): OaiMessage {
  return {
    role: str(msg['role']) ?? '',
    ...('content' in msg ? { content: msg['content'] } : {}),
  };
}
