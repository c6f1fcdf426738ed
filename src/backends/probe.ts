/**
 * Probes endpoints live, all in parallel, each bounded by probe_timeout_s.
 * Owns the HTTP agent and the transport-failure classification; the backend
 * modules own what each server's answers mean.
 */
import { Agent } from 'undici';
import type { Config, Endpoint } from '../config/schema.js';
import { classifyConnectFailure } from './connect-failure.js';
import { httpGet } from './http-get.js';
import { probeLlamaCpp } from './llama-cpp.js';
import { probeOther } from './other.js';
import type { BackendProber, ProbeContext } from './probe-context.js';
import type { EndpointProbe } from './types.js';
import { probeVllm } from './vllm.js';

const PROBERS: Record<Endpoint['backend'], BackendProber> = {
  'llama.cpp': probeLlamaCpp,
  vllm: probeVllm,
  other: probeOther,
};

export interface Prober {
  probeEndpoint(endpoint: Endpoint, timeoutS: number): Promise<EndpointProbe>;
  probeAll(config: Config): Promise<EndpointProbe[]>;
  close(): Promise<void>;
}

export function createProber(): Prober {
  // Keep-alive between calls: list_models is called often and a warm socket saves a connect per path.
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 8 });

  async function probeEndpoint(endpoint: Endpoint, timeoutS: number): Promise<EndpointProbe> {
    const started = performance.now();
    const url = new URL(endpoint.base_url);
    const hostPort = url.host || url.hostname;
    const boundMs = Math.round(timeoutS * 1000);
    const signal = AbortSignal.timeout(boundMs);
    const headersTimeoutMs = Math.max(10, boundMs - 25);
    const ctx: ProbeContext = {
      endpoint,
      timeoutS,
      get: (path) => httpGet(new URL(path, url).href, { dispatcher: agent, signal, apiKey: endpoint.apiKey, headersTimeoutMs }),
    };
    let found;
    try {
      found = await PROBERS[endpoint.backend](ctx);
    } catch (err) {
      const failure = classifyConnectFailure(err, hostPort, timeoutS);
      found = {
        state: failure.state,
        hostState: failure.hostState,
        reason: endpoint.backend === 'vllm' && failure.hostState === 'up' && failure.state === 'down'
          ? `${failure.reason}; vLLM also refuses connections while it is still loading its model`
          : failure.reason,
        models: [],
        slots: undefined,
        metrics: { enabled: false },
        server: {},
        warnings: [],
      };
    }
    return {
      endpoint: endpoint.name,
      baseUrl: endpoint.base_url,
      backend: endpoint.backend,
      host: endpoint.host,
      notes: endpoint.notes,
      ...found,
      elapsedMs: Math.round(performance.now() - started),
    };
  }

  return {
    probeEndpoint,
    probeAll: (config) => Promise.all(config.endpoints.map((e) => probeEndpoint(e, config.defaults.probe_timeout_s))),
    close: () => agent.close(),
  };
}
