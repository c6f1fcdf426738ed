/**
 * The processes of the shim benchmark: the stub backend, the proxy host (the
 * localagents shim, the bare TCP relay, the plain HTTP relay) and, when it can be had,
 * claude-code-router. Each variant is a way from the load generator to the
 * stub, with a reading of its proxy's CPU time.
 */
import { resolve } from 'node:path';
import { forkHelper, type HelperProcess } from '../lib/child.js';
import { startGateway, type Gateway } from '../lib/gateway.js';
import { openTarget, type Target } from '../lib/http-client.js';
import { cpuMicrosOf } from '../lib/proc.js';
import type { ProxyUrls } from '../hosts/proxy-host.js';
import type { StubMode } from '../hosts/stub-backend.js';

const HOSTS = resolve(import.meta.dirname, '..', 'hosts');

export type VariantName = 'direct' | 'tcp relay' | 'http relay' | 'shim' | 'claude-code-router';

export interface Variant {
  readonly name: VariantName;
  /** Where requests go (append /v1/messages). */
  readonly baseUrl: string;
  /** A keep-alive connection for sequential requests. */
  readonly target: Target;
  /** CPU time of the proxy process so far, µs (0 for direct: there is none). */
  cpu(): Promise<number>;
  /** The proxy's process (undefined for direct). */
  readonly pid: number | undefined;
}

export interface ShimRig {
  readonly variants: readonly Variant[];
  /** The shim's route whose model sees images (not one of the compared variants). */
  readonly shimVision: Target;
  /** Why the alternative gateway is missing, when it is. */
  readonly gatewayNote: string | undefined;
  setMode(mode: StubMode): Promise<void>;
  stubCpu(): Promise<number>;
  close(): Promise<void>;
}

export async function startShimRig(options: { gateway: boolean }): Promise<ShimRig> {
  const stub: HelperProcess = forkHelper(resolve(HOSTS, 'stub-backend.ts'));
  const proxies: HelperProcess = forkHelper(resolve(HOSTS, 'proxy-host.ts'), process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${resolve('scratch', 'bench-profiles')}`] : []);
  const stubPort = await stub.call<number>('start');
  const urls = await proxies.call<ProxyUrls>('start', stubPort);
  let gateway: Gateway | undefined;
  let gatewayNote: string | undefined;
  if (options.gateway) {
    try {
      gateway = await startGateway(stubPort);
    } catch (err) {
      gatewayNote = `claude-code-router not measured: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  const proxyCpu = (): Promise<number> => proxies.call<number>('cpu');
  const variant = (name: VariantName, baseUrl: string, cpu: () => Promise<number>, pid: number | undefined): Variant => ({
    name,
    baseUrl,
    target: openTarget(name, baseUrl),
    cpu,
    pid,
  });
  const variants: Variant[] = [
    variant('direct', `http://127.0.0.1:${stubPort}`, () => Promise.resolve(0), undefined),
    variant('tcp relay', urls.relay, proxyCpu, proxies.pid),
    variant('http relay', urls.httpRelay, proxyCpu, proxies.pid),
    variant('shim', urls.shim, proxyCpu, proxies.pid),
  ];
  if (gateway !== undefined) {
    const pid = gateway.pid;
    variants.push(variant('claude-code-router', gateway.url, () => Promise.resolve(cpuMicrosOf(pid) ?? 0), pid));
  }
  const shimVision = openTarget('shim (vision)', urls.shimVision);
  return {
    variants,
    shimVision,
    gatewayNote,
    async setMode(mode) {
      await stub.call('mode', mode);
    },
    stubCpu: () => stub.call<number>('cpu'),
    async close() {
      await Promise.all([...variants.map((v) => v.target.client.close()), shimVision.client.close()]);
      await gateway?.close();
      await proxies.close();
      await stub.close();
    },
  };
}
