/**
 * vLLM's Anthropic request handling (entrypoints/anthropic at 833483f3):
 * pydantic-style validation with FastAPI's 400 body, and the conversion to
 * OpenAI chat messages (billing-header system blocks dropped, tool results
 * emitted before the rest of the user turn, inline system messages merged into
 * the leading system prompt by default).
 */
import { isRecord, records, str, type JsonRecord } from './json.js';
import type { OaiMessage, OaiTool, OaiToolCall } from './prompt-text.js';

interface ValidationIssue {
  readonly type: string;
  readonly loc: readonly (string | number)[];
  readonly msg: string;
}

const BLOCK_TYPES = ['text', 'image', 'tool_use', 'tool_result', 'tool_reference', 'thinking', 'redacted_thinking'];

export function validateVllm(body: unknown, needMaxTokens: boolean): ValidationIssue[] {
  if (!isRecord(body)) return [{ type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from' }];
  const issues: ValidationIssue[] = [];
  const model = body['model'];
  if (model === undefined) issues.push({ type: 'missing', loc: ['body', 'model'], msg: 'Field required' });
  else if (typeof model !== 'string') issues.push({ type: 'string_type', loc: ['body', 'model'], msg: 'Input should be a valid string' });
  else if (model === '') issues.push({ type: 'value_error', loc: ['body', 'model'], msg: 'Value error, Model is required' });
  const messages = body['messages'];
  if (messages === undefined) issues.push({ type: 'missing', loc: ['body', 'messages'], msg: 'Field required' });
  else if (!Array.isArray(messages)) issues.push({ type: 'list_type', loc: ['body', 'messages'], msg: 'Input should be a valid list' });
  else messages.forEach((m, i) => issues.push(...validateMessage(m, i)));
  if (needMaxTokens) {
    const mt = body['max_tokens'];
    if (mt === undefined) issues.push({ type: 'missing', loc: ['body', 'max_tokens'], msg: 'Field required' });
    else if (typeof mt !== 'number' || !Number.isInteger(mt)) issues.push({ type: 'int_type', loc: ['body', 'max_tokens'], msg: 'Input should be a valid integer' });
    else if (mt <= 0) issues.push({ type: 'value_error', loc: ['body', 'max_tokens'], msg: 'Value error, max_tokens must be positive' });
  }
  if (body['tools'] !== undefined) {
    records(body['tools']).forEach((t, i) => {
      if (typeof t['name'] !== 'string') issues.push({ type: 'missing', loc: ['body', 'tools', i, 'name'], msg: 'Field required' });
      if (!isRecord(t['input_schema'])) issues.push({ type: 'missing', loc: ['body', 'tools', i, 'input_schema'], msg: 'Field required' });
    });
  }
  return issues;
}

function validateMessage(m: unknown, i: number): ValidationIssue[] {
  if (!isRecord(m)) return [{ type: 'model_type', loc: ['body', 'messages', i], msg: 'Input should be a valid dictionary' }];
  const issues: ValidationIssue[] = [];
  if (!['user', 'assistant', 'system'].includes(String(m['role']))) {
    issues.push({ type: 'literal_error', loc: ['body', 'messages', i, 'role'], msg: "Input should be 'user', 'assistant' or 'system'" });
  }
  const content = m['content'];
  if (Array.isArray(content)) {
    content.forEach((b, j) => {
      if (!isRecord(b) || !BLOCK_TYPES.includes(String(b['type']))) {
        const expected = BLOCK_TYPES.map((t) => `'${t}'`).join(', ');
        issues.push({ type: 'literal_error', loc: ['body', 'messages', i, 'content', j, 'type'], msg: `Input should be ${expected}` });
      }
    });
  } else if (typeof content !== 'string') {
    issues.push({ type: 'string_type', loc: ['body', 'messages', i, 'content', 'str'], msg: 'Input should be a valid string' });
  }
  return issues;
}

/** Python repr() of a str or int (double quotes only when the text holds a ' and no "). */
function pyRepr(v: string | number): string {
  if (typeof v === 'number') return String(v);
  const escaped = v.replaceAll('\\', '\\\\');
  if (v.includes("'") && !v.includes('"')) return `"${escaped}"`;
  return `'${escaped.replaceAll("'", "\\'")}'`;
}

/** FastAPI RequestValidationError → vLLM's 400 (OpenAI-shaped, not Anthropic-shaped). */
export function validationErrorBody(issues: readonly ValidationIssue[]): unknown {
  const tuple = (loc: readonly (string | number)[]): string => `(${loc.map(pyRepr).join(', ')}${loc.length === 1 ? ',' : ''})`;
  const lines = issues.map((e) => `  {'type': '${e.type}', 'loc': ${tuple(e.loc)}, 'msg': ${pyRepr(e.msg)}}`);
  const first = issues[0];
  const param = first === undefined ? null : first.loc.filter((p) => p !== 'body').join('.');
  const n = issues.length;
  return { error: { message: `${n} validation error${n === 1 ? '' : 's'}:\n${lines.join('\n')}`, type: 'Bad Request', param, code: 400 } };
}

export interface VllmConverted {
  readonly messages: OaiMessage[];
  readonly tools: OaiTool[] | undefined;
}

const BILLING = 'x-anthropic-billing-header';

function systemBlocksText(blocks: unknown): string {
  return records(blocks)
    .filter((b) => b['type'] === 'text' && typeof b['text'] === 'string' && b['text'] !== '' && !b['text'].startsWith(BILLING))
    .map((b) => str(b['text']) ?? '')
    .join('');
}

/**
 * vLLM started without --enable-auto-tool-choice / --tool-call-parser: the tool_choice its Anthropic
 * converter derives (vllm/entrypoints/anthropic/serving.py: tools without a tool_choice → "auto",
 * any → "required", tool → that function) is refused before rendering, as HTTP 400 BadRequestError
 * (vllm/renderers/online_renderer.py OnlineRenderer.render_chat). The message, or undefined when accepted.
 */
export function toolParserRefusal(body: JsonRecord): string | undefined {
  const choice = isRecord(body['tool_choice']) ? body['tool_choice'] : undefined;
  const type = choice?.['type'];
  const hasTools = body['tools'] !== undefined && body['tools'] !== null;
  if (type === 'any') return 'tool_choice="required" requires --tool-call-parser to be set';
  if (type === 'tool') return `tool_choice=function "${str(choice?.['name']) ?? ''}" requires --tool-call-parser to be set`;
  if (type === 'auto' || hasTools) return '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set';
  return undefined;
}

export function convertAnthropicVllm(body: JsonRecord, inline: 'merge' | 'keep'): VllmConverted {
  const out: OaiMessage[] = [];
  const sys = body['system'];
  let leading: string | undefined;
  if (typeof sys === 'string' && sys !== '') leading = sys;
  else if (Array.isArray(sys) && sys.length > 0) leading = systemBlocksText(sys);
  const merged: string[] = [];
  for (const m of records(body['messages'])) {
    const role = str(m['role']) ?? '';
    const content = m['content'];
    if (role === 'system') {
      const text = typeof content === 'string' ? content : systemBlocksText(content);
      if (inline === 'merge') merged.push(text);
      else out.push({ role: 'system', content: text });
      continue;
    }
    if (typeof content === 'string') {
      out.push({ role, content });
      continue;
    }
    convertBlocks(role, records(content), out);
  }
  if (merged.length > 0) leading = [leading ?? '', ...merged].filter((t) => t !== '').join('\n\n');
  if (leading !== undefined) out.unshift({ role: 'system', content: leading });
  return { messages: out, tools: convertTools(body['tools']) };
}

function convertBlocks(role: string, blocks: JsonRecord[], out: OaiMessage[]): void {
  const parts: JsonRecord[] = [];
  const calls: OaiToolCall[] = [];
  let reasoning: string | undefined;
  for (const b of blocks) {
    const type = b['type'];
    if (type === 'text' && typeof b['text'] === 'string' && b['text'] !== '') parts.push({ type: 'text', text: b['text'] });
    else if (type === 'image') parts.push({ type: 'image_url', image_url: { url: '' } });
    else if (type === 'thinking' && typeof b['thinking'] === 'string') reasoning = (reasoning ?? '') + b['thinking'];
    else if (type === 'tool_use') {
      calls.push({
        id: str(b['id']) ?? `call_${Math.floor(Date.now() / 1000)}`,
        type: 'function',
        function: { name: str(b['name']) ?? '', arguments: pythonJsonDumps(isRecord(b['input']) ? b['input'] : {}) },
      });
    } else if (type === 'tool_result') {
      const text = typeof b['content'] === 'string' ? b['content'] : records(b['content']).filter((c) => c['type'] === 'text').map((c) => str(c['text']) ?? '').join('\n');
      if (role === 'user') out.push({ role: 'tool', tool_call_id: str(b['tool_use_id']) ?? '', content: text });
      else parts.push({ type: 'text', text: `Tool result: ${text}` });
    }
  }
  if (parts.length === 0 && calls.length === 0 && reasoning === undefined) {
    if (role !== 'user') out.push({ role });
    return;
  }
  const single = parts.length === 1 ? parts[0] : undefined;
  out.push({
    role,
    ...(parts.length > 0 ? { content: single !== undefined && single['type'] === 'text' ? single['text'] : parts } : {}),
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    ...(reasoning !== undefined ? { reasoning_content: reasoning } : {}),
  });
}

/** Python json.dumps default separators (", " and ": "), which vLLM uses for tool arguments. */
function pythonJsonDumps(v: unknown): string {
  return JSON.stringify(v).replace(/("(?:[^"\\]|\\.)*")|([,:])/g, (_m, s: string | undefined, p: string | undefined) => s ?? `${p} `);
}

function convertTools(tools: unknown): OaiTool[] | undefined {
  if (!Array.isArray(tools)) return undefined;
  return records(tools).map((t) => ({
    type: 'function',
    function: { name: str(t['name']) ?? '', description: str(t['description']) ?? '', parameters: t['input_schema'] },
  }));
}
