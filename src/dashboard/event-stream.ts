/** One page's server-sent event stream: its headers, and events redacted on the way out. */
import type { ServerResponse } from 'node:http';
import { redactSecrets } from '../secrets/redact.js';

/** A page that stops reading this far behind is dropped; its EventSource reconnects and starts afresh. */
export const MAX_BACKLOG_BYTES = 4 * 1024 * 1024;

/** Takes over the response: SSE headers, and the page's reconnect delay. */
export function openEventStream(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  });
  res.write('retry: 2000\n\n');
}

/** Sends one event, unless the page has gone; drops a page that has fallen MAX_BACKLOG_BYTES behind. */
export function sendEvent(res: ServerResponse, event: string, data: string): void {
  if (res.destroyed || res.writableEnded) return;
  if (res.writableLength > MAX_BACKLOG_BYTES) {
    res.destroy();
    return;
  }
  res.write(`event: ${event}\ndata: ${redactSecrets(data)}\n\n`);
}
