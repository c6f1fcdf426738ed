/** Chat templates for real servers, made from the source's own. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { TEMPLATE_FILE } from './tiny-models.js';

/**
 * The source's Qwen3.5 template with another family's assistant header in its generation prompt: a wrong
 * --chat-template-file. The server still picks its Qwen3 tool-call parser from the template's markup, and that
 * parser expects every answer to open with "<|im_start|>assistant\n", so it rejects each one with
 * "The model produced output that does not match the expected peg-native format".
 */
export function templateWithAnotherAssistantHeader(): string {
  const template = readFileSync(join(inject('llamaSource'), TEMPLATE_FILE), 'utf8');
  const header = "{{- '<|im_start|>assistant\\n' }}";
  if (template.split(header).length !== 2) throw new Error(`${TEMPLATE_FILE} no longer has exactly one ${header}`);
  const file = join(mkdtempSync(join(tmpdir(), 'la-template-')), 'other-assistant-header.jinja');
  writeFileSync(file, template.replace(header, "{{- '<|im_start|>model\\n' }}"));
  return file;
}
