/**
 * Id generators shaped like the real servers' ids (llama.cpp `random_string`,
 * vLLM `random_uuid`, Ollama `generateID`), so clients that look at ids see
 * realistic values.
 */
import { randomBytes, randomUUID } from 'node:crypto';

const ALNUM = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** llama.cpp `random_string()`: 32 chars of [0-9a-zA-Z]. */
export function randomAlnum(len = 32): string {
  const bytes = randomBytes(len);
  let out = '';
  for (const b of bytes) out += ALNUM[b % ALNUM.length];
  return out;
}

/** llama.cpp `gen_chatcmplid()`. */
export function llamaMessageId(): string {
  return `chatcmpl-${randomAlnum()}`;
}

/** llama.cpp `gen_tool_call_id()`: bare 32-char random string. */
export function llamaToolId(): string {
  return randomAlnum();
}

/** uuid4 hex (vLLM `random_uuid()`, thinking signatures). */
export function uuidHex(): string {
  return randomUUID().replaceAll('-', '');
}

export function vllmMessageId(): string {
  return `chatcmpl-${uuidHex()}`;
}

export function vllmToolId(): string {
  return `chatcmpl-tool-${uuidHex()}`;
}

/** Ollama `generateID(prefix)`: prefix, "_", 12 random bytes in hex ("msg_…" message ids, "req_…" error request ids). */
export function ollamaId(prefix: 'msg' | 'req'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/** Ollama `toolCallId()`: "call_" and 8 characters of [a-z0-9]. */
export function ollamaToolId(): string {
  return `call_${randomAlnum(8).toLowerCase()}`;
}
