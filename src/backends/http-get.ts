/**
 * One bounded GET for probes. Returns the status and body, or throws the
 * transport error untouched so connect-failure.ts can classify it.
 */
import { request, type Dispatcher } from 'undici';

export interface GetResult {
  readonly status: number;
  readonly text: string;
}

export interface GetOptions {
  readonly dispatcher: Dispatcher;
  readonly signal: AbortSignal;
  readonly apiKey: string | undefined;
}

/** Both headers: llama.cpp reads either, vLLM only Bearer, other servers one or the other. */
export function authHeaders(apiKey: string | undefined): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}`, 'x-api-key': apiKey } : {};
}

export async function httpGet(url: string, options: GetOptions): Promise<GetResult> {
  const response = await request(url, {
    method: 'GET',
    dispatcher: options.dispatcher,
    signal: options.signal,
    headers: { accept: 'application/json, text/plain', ...authHeaders(options.apiKey) },
  });
  const text = await response.body.text();
  return { status: response.statusCode, text };
}

/** JSON.parse that answers undefined instead of throwing: probe bodies are untrusted. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `{"error":{"message":"Loading model"}}` → "Loading model"; also vLLM's `{"error":"Unauthorized"}`. */
export function errorMessageOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error === 'string') return error;
  if (error !== null && typeof error === 'object') {
    const message = (error as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  return undefined;
}
