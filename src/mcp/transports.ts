/**
 * Attaching the MCP server to a transport: stdio (what `claude mcp add`
 * launches) or streamable HTTP behind the shared front door (Host, Origin,
 * bearer token), bound to 127.0.0.1 unless the user says otherwise.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { DualEraTransport } from './tasks/dual-era.js';
import type { ModernEndpoint } from './tasks/modern-endpoint.js';
import { takeStdio } from './tasks/stdio-hold.js';
import { isModern } from './tasks/wire.js';
import { errorMessage } from '../errors.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { bearerToken, createFrontDoor, type FrontDoor, type Refusal } from '../net/front-door.js';
import { answerUnparsable, isRefusal, parseRequestTarget, presentedToken, type RequestTarget } from '../net/request-url.js';

/** Resolves when the client closes stdin (the caller's Claude Code exited). */
export async function serveStdio(server: McpServer, modern?: ModernEndpoint): Promise<void> {
  // Past what the stdio hold already answered (Claude Code's server/discover probe, while this loaded).
  const input = takeStdio();
  const stdio = new StdioServerTransport(input, process.stdout);
  const transport = modern === undefined ? stdio : new DualEraTransport(stdio, modern, 'stdio');
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    input.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
}

/** A JSON-RPC message is small; the largest tool argument localagents takes is a task text. */
export const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;

class BodyTooLarge extends Error {}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_MCP_BODY_BYTES) throw new BodyTooLarge(`request body over ${MAX_MCP_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  if (chunks.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch (err) {
    throw new Error(`parse error: the request body is not JSON (${errorMessage(err)}); send one JSON-RPC message as application/json`, { cause: err });
  }
}

/** Methods the streamable HTTP transport answers on /mcp. */
const MCP_METHODS = ['GET', 'POST', 'DELETE'];

const RETRY = 'The MCP endpoint is POST /mcp (GET for the event stream, DELETE to end a session), with the token in Authorization: Bearer.';

/** The request target as written: one plain path and query, and no token in the URL. */
function checkTarget(req: IncomingMessage): Refusal | RequestTarget {
  const target = parseRequestTarget(req.url);
  if (isRefusal(target)) return { ...target, message: `${target.message}. ${RETRY}` };
  const token = presentedToken(req, target, false);
  if (isRefusal(token)) return { ...token, message: `${token.message}. ${RETRY}` };
  return target;
}

/** Only for a caller holding the token: what exists here is nobody else's business. */
function checkRoute(req: IncomingMessage, target: RequestTarget): Refusal | undefined {
  if (target.path !== '/mcp') return { status: 404, message: `not found: nothing at ${target.path}. ${RETRY}` };
  if (!MCP_METHODS.includes(req.method ?? '')) return { status: 405, message: `method not allowed: ${String(req.method)}. ${RETRY}` };
  return undefined;
}

function refuse(res: ServerResponse, refusal: Refusal): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: refusal.message }, id: null });
  res.writeHead(refusal.status, { 'content-type': 'application/json', ...(refusal.status === 401 ? { 'www-authenticate': 'Bearer' } : {}) });
  res.end(body);
}

const isModernBody = (body: unknown): body is JSONRPCMessage => typeof body === 'object' && body !== null && !Array.isArray(body) && isModern(body as JSONRPCMessage);

/**
 * One 2026-07-28 message, answered as JSON; a request whose progress comes before its answer (a blocking
 * run_agent: print mode asks for no task) gets both on one event stream when the client takes one, so a person
 * watching sees the job move and no idle timeout fires.
 */
async function answerModern(req: IncomingMessage, res: ServerResponse, modern: ModernEndpoint, body: JSONRPCMessage): Promise<void> {
  const event = (m: JSONRPCMessage): void => {
    if (res.writableEnded || res.destroyed) return; // the client went away; the job runs on
    if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
  };
  const streams = String(req.headers.accept ?? '').includes('text/event-stream');
  const reply = await modern.handle(body, 'http', streams ? event : undefined);
  if (res.headersSent) {
    if (reply !== undefined) event(reply);
    res.end();
  } else if (reply === undefined) res.writeHead(202).end();
  else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
}

export interface HttpOptions {
  readonly port: number;
  /** Address to bind; 127.0.0.1 unless the user chose another. */
  readonly host: string;
  /** Every request must carry `Authorization: Bearer <token>`. */
  readonly token: string;
  /** Where a refused caller finds the token (ends the 401 message), given the port listened on. */
  readonly tokenHint: (port: number) => string;
  /** Host names accepted on top of the bound address. */
  readonly allowedHosts?: readonly string[];
  /** Serves 2026-07-28 requests (no session: each POST stands alone); without it only 2025-11-25 sessions. */
  readonly modern?: ModernEndpoint;
}

export interface HttpHandle {
  readonly url: string;
  readonly door: FrontDoor;
  close(): Promise<void>;
}

/** One McpServer per MCP session; `makeServer` builds it over the shared app. */
export async function serveHttp(makeServer: () => McpServer, options: HttpOptions): Promise<HttpHandle> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let port = 0;
  const door = createFrontDoor({ bindHost: options.host, extraHostNames: options.allowedHosts }, () => port, options.token, () => options.tokenHint(port));
  const http = createServer((req, res) => {
    void (async () => {
      try {
        // Before anything else, the body included: a refused caller costs nothing.
        const address = door.checkAddress(req);
        const target = address ?? checkTarget(req);
        const refused = isRefusal(target) ? target : (door.checkToken(bearerToken(req)) ?? checkRoute(req, target));
        if (refused) {
          refuse(res, refused);
          req.resume();
          return;
        }
        const body = req.method === 'POST' ? await readJson(req) : undefined;
        const sessionId = req.headers['mcp-session-id'];
        if (options.modern !== undefined && sessionId === undefined && req.method === 'POST' && isModernBody(body)) {
          await answerModern(req, res, options.modern, body);
          return;
        }
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
        if (!res.headersSent) res.writeHead(err instanceof BodyTooLarge ? 413 : 400, { 'content-type': 'application/json', ...(err instanceof BodyTooLarge ? { connection: 'close' } : {}) });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: err instanceof Error ? err.message : String(err) }, id: null }));
      }
    })();
  });
  http.on('clientError', answerUnparsable);
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  // A wildcard bind is reached from here through loopback.
  const urlHost = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${urlHost}:${port}/mcp`,
    door,
    async close() {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
