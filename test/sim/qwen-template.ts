/**
 * Renders the real Qwen3.5 chat template (fixtures/templates) with
 * @huggingface/jinja, so acceptance is decided by the template itself, and turns
 * its `raise_exception` into the error text llama.cpp's own Jinja engine prints.
 */
import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import { fixturePath } from './fixtures-dir.js';
import { isRecord } from './json.js';
import { flattenContent, parseArguments, type OaiMessage, type OaiTool } from './prompt-text.js';

/** A template rejection; `message` is the text llama.cpp puts after its prefix. */
export class TemplateError extends Error {
  constructor(
    message: string,
    /** The bare raise_exception argument (what vLLM reports). */
    readonly reason: string,
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}

interface Compiled {
  readonly source: string;
  readonly template: Template;
  /** raise_exception message → offset of the call's "(" in the source. */
  readonly raisePositions: ReadonlyMap<string, number>;
}

let compiled: Compiled | undefined;

function compile(): Compiled {
  if (compiled !== undefined) return compiled;
  const source = readFileSync(fixturePath('templates', 'Qwen3.5-4B.jinja'), 'utf8');
  const raisePositions = new Map<string, number>();
  for (const m of source.matchAll(/raise_exception\('([^']*)'\)/g)) {
    const msg = m[1];
    if (msg !== undefined && !raisePositions.has(msg)) raisePositions.set(msg, m.index + 'raise_exception'.length);
  }
  compiled = { source, template: new Template(source), raisePositions };
  return compiled;
}

/** llama.cpp jinja `peak_source()`: 40 chars either side, newlines as ↵, caret line. */
function peakSource(source: string, pos: number, max = 40): string {
  const start = Math.max(0, pos - max);
  const end = Math.min(pos + max, source.length);
  const excerpt = source.slice(start, end).replaceAll('\n', '↵');
  return `...${excerpt}...\n${' '.repeat(pos - start + 3)}^`;
}

function lineCol(source: string, pos: number): string {
  let line = 1;
  let col = 1;
  for (let i = 0; i < pos && i < source.length; i++) {
    if (source[i] === '\n') {
      line++;
      col = 1;
    } else {
      col++;
    }
  }
  return `line ${line}, column ${col}`;
}

/** The message llama.cpp's `statement::execute` builds for an exception inside a call. */
function llamaJinjaMessage(c: Compiled, reason: string): string {
  const pos = c.raisePositions.get(reason);
  if (pos === undefined) return `\n------------\nWhile executing template:\nError: ${reason}`;
  return (
    `\n------------\nWhile executing CallExpression at ${lineCol(c.source, pos)} in source:\n` +
    `${peakSource(c.source, pos)}\nError: Jinja Exception: ${reason}`
  );
}

/** Messages as llama.cpp passes them to a template without typed-content support. */
function templateMessages(messages: readonly OaiMessage[]): Record<string, unknown>[] {
  return messages.map((m) => {
    const out: Record<string, unknown> = { role: m.role, content: flattenContent(m.content) };
    if (m.reasoning_content !== undefined) out['reasoning_content'] = m.reasoning_content;
    if (m.tool_call_id !== undefined) out['tool_call_id'] = m.tool_call_id;
    if (m.tool_calls !== undefined) {
      out['tool_calls'] = m.tool_calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.function.name, arguments: parseArguments(c.function.arguments) },
      }));
    }
    return out;
  });
}

const RESERVED = new Set(['messages', 'tools', 'add_generation_prompt', 'raise_exception', 'range', 'true', 'false', 'none']);

/** Renders the prompt; throws TemplateError where the real template raises. */
export function renderQwen(
  messages: readonly OaiMessage[],
  tools: readonly OaiTool[] | undefined,
  kwargs: unknown,
): string {
  const c = compile();
  const vars: Record<string, unknown> = {
    messages: templateMessages(messages),
    add_generation_prompt: true,
    bos_token: '<s>',
    eos_token: '</s>',
  };
  if (tools !== undefined && tools.length > 0) vars['tools'] = tools;
  if (isRecord(kwargs)) {
    for (const [k, v] of Object.entries(kwargs)) if (!RESERVED.has(k)) vars[k] = v;
  }
  try {
    return c.template.render(vars);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    throw new TemplateError(llamaJinjaMessage(c, reason), reason);
  }
}

/** The template source (served in llama.cpp /props chat_template). */
export function qwenTemplateSource(): string {
  return compile().source;
}
