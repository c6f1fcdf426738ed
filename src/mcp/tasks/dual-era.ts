/**
 * One stdio connection, both protocol eras: a 2025-11-25 client's messages (initialize first) go to the
 * connection's McpServer as before; a 2026-07-28 client's (server/discover, then requests that carry their
 * version in `_meta`) are answered by the modern endpoint. Claude Code probes with server/discover first
 * and falls back to initialize when the server does not know it.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../errors.js';
import type { ModernEndpoint } from './modern-endpoint.js';
import type { Channel } from './task-ids.js';
import { failure, isModern, isRequest } from './wire.js';

export class DualEraTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  constructor(
    private readonly wire: Transport,
    private readonly modern: ModernEndpoint,
    private readonly channel: Channel,
  ) {
    wire.onclose = () => this.onclose?.();
    wire.onerror = (error) => this.onerror?.(error);
    wire.onmessage = (message, extra) => {
      if (isModern(message)) void this.answer(message);
      else this.onmessage?.(message, extra);
    };
  }

  private async answer(message: JSONRPCMessage): Promise<void> {
    const notify = (m: JSONRPCMessage): void => void this.wire.send(m).catch((err: unknown) => this.onerror?.(err as Error));
    try {
      const reply = await this.modern.handle(message, this.channel, notify);
      if (reply !== undefined) await this.wire.send(reply);
    } catch (err) {
      if (isRequest(message)) await this.wire.send(failure(message.id, -32603, errorMessage(err))).catch(() => undefined);
      this.onerror?.(err instanceof Error ? err : new Error(errorMessage(err)));
    }
  }

  start(): Promise<void> {
    return this.wire.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.wire.send(message, options);
  }

  close(): Promise<void> {
    return this.wire.close();
  }
}
