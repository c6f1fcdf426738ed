/**
 * The self-test's model: a tiny Anthropic-Messages server on 127.0.0.1 that
 * answers Claude Code with a fixed script: first a Write tool call, then a
 * closing text. It streams SSE in llama.cpp's shape, serves count_tokens and
 * /v1/models, and records what it was asked. No inference, no backend quirks.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const SELFTEST_MODEL = 'localagents-selftest';

export interface ScriptedReply {
  readonly text?: string;
  readonly toolUse?: { readonly name: string; readonly input: Record<string, unknown> };
}

export interface BackendRequest {
  readonly method: string;
  readonly path: string;
  readonly status: number;
}

export interface ScriptedBackend {
  /** http://127.0.0.1:PORT, the endpoint's base_url. */
  readonly url: string;
  readonly requests: readonly BackendRequest[];
  close(): Promise<void>;
}

/** What the model answers, given how many assistant turns the conversation already has. */
export type ReplyScript = (assistantTurns: number) => ScriptedReply;

interface MessagesBody {
  readonly stream?: unknown;
  readonly messages?: unknown;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function anthropicError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { type: 'error', error: { type, message } });
}

/** ~4 characters a token, as the simulator and most tokenizers on code average. */
const tokensOf = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function contentBlocks(reply: ScriptedReply, messageId: string): Array<Record<string, unknown>> {
  const blocks: Array<Record<string, unknown>> = [];
  if (reply.text !== undefined) blocks.push({ type: 'text', text: reply.text });
  if (reply.toolUse) blocks.push({ type: 'tool_use', id: `toolu_${messageId}`, name: reply.toolUse.name, input: reply.toolUse.input });
  return blocks;
}

/** The SSE events of one reply, in llama.cpp's order: message_start, blocks, message_delta, message_stop. */
export function sseEvents(reply: ScriptedReply, messageId: string, usage: { input: number; cached: number; output: number }): string {
  const events: Array<[string, Record<string, unknown>]> = [];
  events.push(['message_start', {
    message: {
      id: messageId, type: 'message', role: 'assistant', content: [], model: SELFTEST_MODEL, stop_reason: null, stop_sequence: null,
      usage: { cache_read_input_tokens: usage.cached, input_tokens: usage.input, output_tokens: 0 },
    },
  }]);
  contentBlocks(reply, messageId).forEach((block, index) => {
    if (block.type === 'text') {
      events.push(['content_block_start', { index, content_block: { type: 'text', text: '' } }]);
      events.push(['content_block_delta', { index, delta: { type: 'text_delta', text: block.text } }]);
    } else {
      // llama.cpp starts a tool_use block without `input` and streams the arguments as JSON text.
      events.push(['content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name } }]);
      events.push(['content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } }]);
    }
    events.push(['content_block_stop', { index }]);
  });
  events.push(['message_delta', { delta: { stop_reason: reply.toolUse ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output } }]);
  events.push(['message_stop', {}]);
  return events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`).join('');
}

function assistantTurns(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  return messages.filter((m: unknown) => typeof m === 'object' && m !== null && 'role' in m && m.role === 'assistant').length;
}

export async function startScriptedBackend(script: ReplyScript): Promise<ScriptedBackend> {
  const requests: BackendRequest[] = [];
  let lastPrompt = '';
  let counter = 0;

  const answerMessages = (res: ServerResponse, text: string): number => {
    let body: MessagesBody;
    try {
      body = JSON.parse(text) as MessagesBody; // both fields are unknown and checked where used
    } catch {
      anthropicError(res, 400, 'invalid_request_error', 'request body is not JSON');
      return 400;
    }
    const prompt = JSON.stringify(body.messages ?? []);
    // Report prefix reuse the way a KV cache would, so the caller's cache numbers mean something.
    const cached = Math.floor(commonPrefix(prompt, lastPrompt) / 4);
    lastPrompt = prompt;
    const reply = script(assistantTurns(body.messages));
    const messageId = `msg_selftest_${++counter}`;
    const usage = { input: Math.max(1, tokensOf(prompt) - cached), cached, output: tokensOf(JSON.stringify(reply)) };
    if (body.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(sseEvents(reply, messageId, usage));
    } else {
      sendJson(res, 200, {
        id: messageId, type: 'message', role: 'assistant', content: contentBlocks(reply, messageId), model: SELFTEST_MODEL,
        stop_reason: reply.toolUse ? 'tool_use' : 'end_turn', stop_sequence: null,
        usage: { cache_read_input_tokens: usage.cached, input_tokens: usage.input, output_tokens: usage.output },
      });
    }
    return 200;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<number> => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const text = await readBody(req);
    if (req.method === 'GET' && path === '/v1/models') {
      sendJson(res, 200, { object: 'list', data: [{ id: SELFTEST_MODEL, object: 'model', owned_by: 'localagents' }] });
      return 200;
    }
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
      sendJson(res, 200, { input_tokens: tokensOf(text) });
      return 200;
    }
    if (req.method === 'POST' && path === '/v1/messages') return answerMessages(res, text);
    anthropicError(res, 404, 'not_found_error', `the self-test backend does not serve ${req.method ?? 'GET'} ${path}`);
    return 404;
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    handle(req, res)
      .then((status) => requests.push({ method: req.method ?? 'GET', path, status }))
      .catch(() => {
        requests.push({ method: req.method ?? 'GET', path, status: 500 });
        if (!res.headersSent) anthropicError(res, 500, 'api_error', 'self-test backend failed to read the request');
        else res.destroy();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo; // listening on TCP, so the address is an object
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
