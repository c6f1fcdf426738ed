/**
 * `localagents init`: which model servers answer on this machine's usual
 * ports, and what kind each is. llama-server answers /props; vLLM lists its
 * models with owned_by "vllm"; anything else with /v1/models is "other".
 * A llama-server in router mode lists every model it can load, loaded or not.
 */
import { Agent } from 'undici';
import type { FoundServer } from '../config/init-file.js';
import type { BackendKind } from '../config/schema.js';
import { httpGet, parseJson } from './http-get.js';

/** The documented default ports of local OpenAI/Anthropic-compatible servers. */
export const USUAL_PORTS: ReadonlyArray<{ readonly port: number; readonly usually: string }> = [
  { port: 8080, usually: 'llama.cpp llama-server' },
  { port: 8000, usually: 'vLLM' },
  { port: 11434, usually: 'Ollama' },
  { port: 1234, usually: 'LM Studio' },
  { port: 30000, usually: 'SGLang' },
];


// Generous: a loaded machine or a server busy generating answers slowly, and init runs once.
const TIMEOUT_MS = 4000;

async function getJson(url: string, dispatcher: Agent): Promise<unknown> {
  const result = await httpGet(url, { dispatcher, signal: AbortSignal.timeout(TIMEOUT_MS), apiKey: undefined });
  return result.status === 200 ? parseJson(result.text.slice(0, 1_000_000)) : undefined;
}

function modelIds(listing: unknown): string[] {
  const data = (listing as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) return [];
  return data.map((m) => (m as { id?: unknown }).id).filter((id): id is string => typeof id === 'string').slice(0, 20);
}

async function detectOne(host: string, port: number, dispatcher: Agent): Promise<FoundServer | undefined> {
  const baseUrl = `http://${host}:${port}`;
  const [props, models] = await Promise.all([getJson(`${baseUrl}/props`, dispatcher).catch(() => undefined), getJson(`${baseUrl}/v1/models`, dispatcher).catch(() => undefined)]);
  if (props === undefined && models === undefined) return undefined;
  const ids = modelIds(models);
  const ownedBy = ((models as { data?: Array<{ owned_by?: unknown }> } | undefined)?.data ?? [])[0]?.owned_by;
  const isLlama = typeof props === 'object' && props !== null && ('default_generation_settings' in props || 'model_path' in props);
  const backend: BackendKind = isLlama ? 'llama.cpp' : ownedBy === 'vllm' ? 'vllm' : 'other';
  // A router's own /props (no ?model=, so nothing loads) says its role (docs/backends.md §3.1).
  return { baseUrl, port, backend, models: ids, router: isLlama && (props as { role?: unknown }).role === 'router' };
}

/** Every usual port on `host`, in parallel, each bounded by a short timeout. */
export async function detectServers(host = '127.0.0.1', ports: readonly number[] = USUAL_PORTS.map((p) => p.port)): Promise<FoundServer[]> {
  const dispatcher = new Agent({ connect: { timeout: TIMEOUT_MS } });
  try {
    const found = await Promise.all(ports.map((port) => detectOne(host, port, dispatcher)));
    return found.filter((f): f is FoundServer => f !== undefined);
  } finally {
    await dispatcher.close();
  }
}
