/**
 * Recognises a chat template refusing the conversation and pulls out its
 * reason in plain words. Owns the template-error patterns only.
 *
 * Why: llama.cpp reports a Jinja `raise_exception` as HTTP 500 (August 2026
 * build) or 400 (b9553, "Unable to generate parser for this template"), with a
 * source excerpt around the reason. Claude Code retries a 500 ten times over
 * about three minutes, and the same request fails the same way every time.
 */
import type { BackendKind } from '../../config/schema.js';
import { templateFixes } from './error-catalogue.js';

// llama.cpp: "…\nError: Jinja Exception: System message must be at the beginning."
const JINJA_EXCEPTION = 'Jinja Exception:';
// llama.cpp b9553: "Unable to generate parser for this template. Automatic parser generation failed: …"
const PARSER_GENERATION = 'Unable to generate parser for this template';
/**
 * Guard texts of common chat templates, for backends that report the raised
 * message bare (vLLM: a jinja2 TemplateError becomes a 500 `internal_error`
 * whose message is just this text; Ollama's Go renderers say it in lower case,
 * "system message must be at the beginning", as a 500 `api_error`, #17774).
 */
const TEMPLATE_GUARDS = [
  /System message must be at the beginning\.?/i,
  /Conversation roles must alternate user\/assistant[^\n]*/,
  /No user query found in messages\.?/,
];

const MAX_REASON_CHARS = 300;

/** The template's own reason, or undefined when this is not a template error. */
export function findTemplateError(message: string): string | undefined {
  const jinja = message.lastIndexOf(JINJA_EXCEPTION);
  if (jinja >= 0) return firstLine(message.slice(jinja + JINJA_EXCEPTION.length)) || 'no reason given';
  if (message.includes(PARSER_GENERATION)) {
    const lastLine = message.trim().split('\n').pop() ?? '';
    return firstLine(lastLine.replace(/^Error:\s*/, '')) || 'no reason given';
  }
  for (const guard of TEMPLATE_GUARDS) {
    const match = guard.exec(message);
    if (match !== null) return match[0].slice(0, MAX_REASON_CHARS);
  }
  return undefined;
}

function firstLine(text: string): string {
  return (text.trim().split('\n')[0] ?? '').trim().slice(0, MAX_REASON_CHARS);
}

const TEMPLATE_LABEL: Readonly<Record<BackendKind, string>> = {
  'llama.cpp': 'llama.cpp Jinja template error',
  vllm: 'vLLM chat template error',
  ollama: 'Ollama chat template error',
  other: 'chat template error',
};

/** Plain-words message for Claude Code (and the human reading its transcript), with the fixes this backend has. */
export function templateErrorMessage(reason: string, backend: BackendKind, status: number): string {
  return (
    `The model server's chat template rejected the request: ${reason} ` +
    `(${TEMPLATE_LABEL[backend]}, HTTP ${status}. Retrying the same request will not help. ` +
    `What fixes it: ${templateFixes(backend).join('; ')}.)`
  );
}
