/**
 * The proxies under test, in one process of their own: the localagents shim
 * (createShimServer with one open route, and one with vision for the media table; requests logged to a temp
 * requests.jsonl as in a real job), the bare TCP relay and the plain HTTP relay. Only one of them
 * carries traffic at a time, so the process CPU read around a batch belongs
 * to the proxy that served it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/log.js';
import { createRequestLog, type RequestLog } from '../../src/shim/request-log/request-log.js';
import { createShimServer, type ShimServer } from '../../src/shim/server.js';
import { cpuMicros, serveCalls } from '../lib/child.js';
import { startHttpRelay, type HttpRelay } from './http-relay.js';
import { startTcpRelay, type TcpRelay } from './tcp-relay.js';

export interface ProxyUrls {
  /** http://127.0.0.1:PORT/job/<token>: append /v1/messages. */
  readonly shim: string;
  /** The same shim with a second route whose model sees images (`vision`): image bytes pass untouched. */
  readonly shimVision: string;
  /** http://127.0.0.1:PORT */
  readonly relay: string;
  /** http://127.0.0.1:PORT */
  readonly httpRelay: string;
}

function main(): void {
  let shim: ShimServer | undefined;
  let relay: TcpRelay | undefined;
  let httpRelay: HttpRelay | undefined;
  let log: RequestLog | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'la-bench-proxy-'));

  serveCalls(
    {
      start: async (params) => {
        const backendPort = params as number; // the parent passes the stub's port
        shim = createShimServer(silentLogger);
        log = createRequestLog(join(dir, 'requests.jsonl'), undefined, () => undefined);
        const route = await shim.open({
          jobId: 'bench',
          endpoint: { name: 'stub', base_url: `http://127.0.0.1:${backendPort}`, backend: 'llama.cpp' },
          servedModel: 'bench-model',
          context: undefined,
          log,
        });
        const vision = await shim.open({
          jobId: 'bench-vision',
          endpoint: { name: 'stub', base_url: `http://127.0.0.1:${backendPort}`, backend: 'llama.cpp' },
          servedModel: 'bench-model',
          context: undefined,
          vision: true,
          log,
        });
        relay = await startTcpRelay(backendPort);
        httpRelay = await startHttpRelay(backendPort);
        const urls: ProxyUrls = { shim: route.baseUrl, shimVision: vision.baseUrl, relay: `http://127.0.0.1:${relay.port}`, httpRelay: `http://127.0.0.1:${httpRelay.port}` };
        return urls;
      },
      cpu: () => cpuMicros(),
      rss: () => process.memoryUsage().rss,
    },
    async () => {
      await shim?.close();
      await relay?.close();
      await httpRelay?.close();
      await log?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  );
}

main();
