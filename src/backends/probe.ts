/**
 * Probes endpoints live, all in parallel, each bounded by probe_timeout_s.
 * Owns the HTTP agent and the transport-failure classification; the backend
 * modules own what each server's answers mean.
 */
import { Agent, buildConnector } from 'undici';
import type { Config, Endpoint } from '../config/schema.js';
import { BackendAnswerError } from './answer-body.js';
import { classifyConnectFailure } from './connect-failure.js';
import { httpGet, httpPostJson } from './http-get.js';
import { probeLlamaCpp } from './llama-cpp.js';
import { probeOllama } from './ollama.js';
import { probeOther } from './other.js';
import { findings, type BackendProber, type ProbeContext, type ProbeFindings } from './probe-context.js';
import type { EndpointProbe } from './types.js';
import { probeVllm } from './vllm.js';

const PROBERS: Record<Endpoint['backend'], BackendProber> = {
  'llama.cpp': probeLlamaCpp,
  vllm: probeVllm,
  ollama: probeOllama,
  other: probeOther,
};

export interface Prober {
  probeEndpoint(endpoint: Endpoint, timeoutS: number): Promise<EndpointProbe>;
  probeAll(config: Config): Promise<EndpointProbe[]>;
  close(): Promise<void>;
}

export function createProber(): Prober {
  // When each origin last completed a TCP connect: a probe that then times out hit a server that
  // accepted and never answered (host up), not a black hole. undici's own header timer is too coarse
  // (~0.5 s ticks) to tell the two apart within a sub-second probe bound.
  const lastConnect = new Map<string, number>();
  const connector = buildConnector({ timeout: 60_000 });
  // Keep-alive between calls: list_models is called often and a warm socket saves a connect per path.
  const agent = new Agent({
    keepAliveTimeout: 10_000,
    connections: 8,
    connect: (opts, callback) =>
      connector(opts, (...result) => {
        if (result[0] === null) lastConnect.set(`${opts.hostname}:${opts.port || (opts.protocol === 'https:' ? '443' : '80')}`, performance.now());
        callback(...result);
      }),
  });

  async function probeEndpoint(endpoint: Endpoint, timeoutS: number): Promise<EndpointProbe> {
    const started = performance.now();
    const url = new URL(endpoint.base_url);
    const signal = AbortSignal.timeout(Math.round(timeoutS * 1000));
    const ctx: ProbeContext = {
      endpoint,
      timeoutS,
      get: (path) => httpGet(new URL(path, url).href, { dispatcher: agent, signal, apiKey: endpoint.apiKey }),
      post: (path, json) => httpPostJson(new URL(path, url).href, json, { dispatcher: agent, signal, apiKey: endpoint.apiKey }),
    };
    let found: ProbeFindings;
    try {
      found = await PROBERS[endpoint.backend](ctx);
    } catch (err) {
      // An answer we refuse to read (too big, a redirect, compressed past decoding, stalled mid-body):
      // the server is up and answered; what it answered is the problem.
      found = err instanceof BackendAnswerError ? findings.failed(err.message) : unreachable(endpoint, url, err, timeoutS, started);
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

  /** No HTTP answer at all: say whether the host or only the server is down. */
  function unreachable(endpoint: Endpoint, url: URL, err: unknown, timeoutS: number, started: number): ProbeFindings {
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const connectedDuringProbe = (lastConnect.get(`${url.hostname}:${port}`) ?? -1) >= started;
    const failure = classifyConnectFailure(err, url.host || url.hostname, timeoutS, connectedDuringProbe);
    return {
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
    probeEndpoint,
    probeAll: (config) => Promise.all(config.endpoints.map((e) => probeEndpoint(e, config.defaults.probe_timeout_s))),
    close: () => agent.close(),
  };
}
