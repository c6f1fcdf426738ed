/**
 * Attaching the MCP server to a transport: stdio (what `claude mcp add`
 * launches) or streamable HTTP on 127.0.0.1 only.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

/** Resolves when the client closes stdin (the caller's Claude Code exited). */
export async function serveStdio(server: McpServer): Promise<void> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return undefined;
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

export interface HttpHandle {
  readonly url: string;
  close(): Promise<void>;
}

/** One McpServer per MCP session; `makeServer` builds it over the shared app. */
export async function serveHttp(makeServer: () => McpServer, port: number): Promise<HttpHandle> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    void (async () => {
      try {
        if (!req.url?.startsWith('/mcp')) {
          res.writeHead(404).end();
          return;
        }
        const body = req.method === 'POST' ? await readJson(req) : undefined;
        const sessionId = req.headers['mcp-session-id'];
        let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
        if (transport === undefined) {
          if (req.method !== 'POST' || !isInitializeRequest(body)) {
            res.writeHead(400, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'No valid MCP session: send initialize first' }, id: null }));
            return;
          }
          const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id: string): void => {
              sessions.set(id, created);
            },
          });
          created.onclose = () => {
            if (created.sessionId) sessions.delete(created.sessionId);
          };
          await makeServer().connect(created);
          transport = created;
        }
        await transport.handleRequest(req, res, body);
      } catch (err) {
        if (!res.headersSent) res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: err instanceof Error ? err.message : String(err) }, id: null }));
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => resolve());
  });
  const address = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    async close() {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
