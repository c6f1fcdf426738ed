/**
 * Plays the model's tool calls in front of a real llama-server whose tiny model cannot choose a tool. Every
 * request goes to the real server, which judges it as it would any request (a refusal is passed back
 * unchanged); only for the main-loop requests the script names does the relay answer with the scripted tool
 * call instead of the server's own (always empty) reply, keeping the server's usage numbers. It records what
 * the server received, byte for byte.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolUse {
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}

export interface RelayedRequest {
  readonly path: string;
  readonly body: string;
  readonly status: number;
}

export interface TurnRelay {
  readonly url: string;
  /** Every request the real server received, in order. */
  readonly requests: RelayedRequest[];
  /** The tool calls to play, in order, for the next main-loop requests (the SDK's one-token probes do not count). */
  play(tools: readonly ScriptedToolUse[]): void;
  close(): Promise<void>;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** message_start's usage in the server's own event stream. */
function usageOf(sse: string): Record<string, unknown> {
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const event = JSON.parse(line.slice(6)) as { type?: string; message?: { usage?: Record<string, unknown> } };
    if (event.type === 'message_start') return event.message?.usage ?? {};
  }
  return {};
}

function toolUseStream(n: number, model: string, tool: ScriptedToolUse, usage: Record<string, unknown>): string {
  const events: Array<[string, unknown]> = [
    ['message_start', { type: 'message_start', message: { id: `msg_relay_${n}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 0 } } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: `toolu_relay_${n}`, name: tool.name, input: {} } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(tool.input) } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 12 } }],
    ['message_stop', { type: 'message_stop' }],
  ];
  return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');
}

export async function startTurnRelay(target: string): Promise<TurnRelay> {
  const requests: RelayedRequest[] = [];
  const script: ScriptedToolUse[] = [];
  let mainLoop = 0;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readAll(req);
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k, v]) => typeof v === 'string' && k !== 'host' && k !== 'content-length')) as Record<string, string>;
      const answer = await fetch(new URL(req.url ?? '/', target), { method: req.method, headers, body: req.method === 'GET' ? undefined : body });
      const text = await answer.text();
      const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
      requests.push({ path, body: body.toString('utf8'), status: answer.status });
      const parsed = path === '/v1/messages' ? (JSON.parse(body.toString('utf8')) as { max_tokens?: number; stream?: boolean; model?: string }) : undefined;
      const tool = parsed !== undefined && parsed.max_tokens !== 1 && answer.status === 200 && parsed.stream === true ? script[mainLoop] : undefined;
      if (parsed !== undefined && parsed.max_tokens !== 1) mainLoop += 1;
      if (tool !== undefined) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(toolUseStream(mainLoop, parsed?.model ?? '', tool, usageOf(text)));
        return;
      }
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(text);
    })().catch((err: unknown) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    play: (tools) => {
      script.splice(0, script.length, ...tools);
      mainLoop = 0;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
