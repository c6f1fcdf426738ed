/**
 * The contract between probe.ts and each backend module: a backend reads what
 * it needs through `get` and reports findings; probe.ts owns timeouts and
 * turns transport failures into a plain-language reason.
 */
import type { Endpoint } from '../config/schema.js';
import type { GetResult } from './http-get.js';
import type { EndpointProbe } from './types.js';

export interface ProbeContext {
  readonly endpoint: Endpoint;
  /** GET a path on the endpoint. Rejects with the transport error when nothing answers. */
  get(path: string): Promise<GetResult>;
  /** POST a small JSON body to a path that only reads (Ollama's /api/show); same limits and errors as `get`. */
  post(path: string, json: unknown): Promise<GetResult>;
  readonly timeoutS: number;
}

export type ProbeFindings = Pick<
  EndpointProbe,
  'state' | 'hostState' | 'reason' | 'models' | 'slots' | 'metrics' | 'server' | 'warnings'
>;

export type BackendProber = (ctx: ProbeContext) => Promise<ProbeFindings>;

/** Claude Code's system prompt and tools alone are ~20k tokens; below 128k it compacts all the time. */
export const SMALL_CONTEXT = 131_072;

export function contextWarning(id: string, context: number | undefined, fix: string): string[] {
  if (context === undefined || context >= SMALL_CONTEXT) return [];
  return [
    `${id}: context ${context} < 128k — Claude Code sessions will compact constantly (fine for one-shot completions); ${fix}`,
  ];
}

/** Settled value of a secondary probe, or undefined when it failed: only the first request decides up/down. */
export async function optional<T>(promise: Promise<T>): Promise<T | undefined> {
  try {
    return await promise;
  } catch {
    return undefined; // secondary endpoints (props, slots, metrics) may be missing or slow; the primary one already answered
  }
}

function empty(): ProbeFindings {
  return { state: 'down', hostState: 'unknown', reason: '', models: [], slots: undefined, metrics: { enabled: false }, server: {}, warnings: [] };
}

/** Findings shared by every backend: an answer that is not a model list. */
export const findings = {
  loading(server: string, message: string | undefined): ProbeFindings {
    return {
      ...empty(),
      state: 'loading',
      hostState: 'up',
      reason: `${server} is up and loading its model (${message ?? 'HTTP 503'}); jobs will wait for it`,
    };
  },
  needsKey(endpoint: Endpoint, keyFlag: string): ProbeFindings {
    let reason: string;
    if (endpoint.apiKey !== undefined) reason = `the server rejected our API key (HTTP 401): check api_key / api_key_env against ${keyFlag}`;
    else if (endpoint.apiKeyProblem !== undefined) reason = `the server needs an API key (HTTP 401), and ${endpoint.apiKeyProblem}`;
    else reason = 'the server needs an API key (HTTP 401): set api_key_env (or api_key) for this endpoint in models.yaml';
    return { ...empty(), state: 'needs_api_key', hostState: 'up', reason };
  },
  failed(reason: string): ProbeFindings {
    return { ...empty(), state: 'error', hostState: 'up', reason };
  },
};
