/**
 * local_complete: one generation, no tools, no agent loop. Goes through the
 * shim like a job does, so it gets the same model rewrite and error
 * translation instead of a raw backend body.
 */
import { request, type Dispatcher } from 'undici';
import { BackendAnswerError, discard, readWhole } from '../../backends/answer-body.js';
import type { Prober } from '../../backends/probe.js';
import type { Config } from '../../config/schema.js';
import { LocalAgentsError } from '../../errors.js';
import { resolveModel } from '../../registry/resolve.js';
import { redactSecrets } from '../../secrets/redact.js';
import { nullRequestLog } from '../../shim/request-log/request-log.js';
import type { Shim } from '../../shim/routes.js';

export interface CompleteRequest {
  readonly prompt: string;
  readonly model?: string | undefined;
  readonly endpoint?: string | undefined;
  readonly system?: string | undefined;
  readonly maxTokens?: number | undefined;
  readonly temperature?: number | undefined;
}

export interface CompleteResult {
  readonly text: string;
  readonly stop_reason: string | null;
  readonly usage: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number };
  readonly model: string;
  readonly endpoint: string;
  /** What was asked of the backend: the request's, else the default, never above the model's window. */
  readonly max_tokens: number;
}

/** The original localagents' default; a one-shot answer should not be cut at a page. */
export const DEFAULT_COMPLETE_MAX_TOKENS = 4096;

interface MessageBody {
  content?: Array<{ type?: string; text?: string }>;
  stop_reason?: string | null;
  usage?: CompleteResult['usage'];
  error?: { message?: string };
}

/**
 * The most of one answer local_complete reads: max_tokens output is a few
 * hundred kB of JSON even with thinking; past this the server is misbehaving.
 */
export const MAX_COMPLETE_ANSWER = 16 * 1024 * 1024;

function answerError(endpoint: string, status: number, message: string): LocalAgentsError {
  return new LocalAgentsError('backend_error', message, {
    hint: 'Check that base_url points at the model server itself (not a web page, a login proxy or another service).',
    details: { endpoint, status },
  });
}

/** The answer as a Messages body, or a clear error for one that is too big, not JSON, or a stream. */
async function readAnswer(res: Dispatcher.ResponseData, endpoint: string): Promise<MessageBody> {
  const type = String(res.headers['content-type'] ?? '');
  if (type.includes('text/event-stream')) {
    discard(res.body);
    throw answerError(endpoint, res.statusCode, `${endpoint} answered HTTP ${res.statusCode} with an event stream (text/event-stream) although localagents asked for stream: false`);
  }
  let raw: Buffer;
  try {
    raw = await readWhole(res.body, MAX_COMPLETE_ANSWER, `POST /v1/messages on ${endpoint}`);
  } catch (err) {
    if (err instanceof BackendAnswerError) throw answerError(endpoint, res.statusCode, err.message);
    throw err;
  }
  const text = raw.toString('utf8');
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
  } catch {
    // described below
  }
  const shown = redactSecrets(text).slice(0, 120).replace(/\s+/g, ' ').trim();
  const body = raw.length > 0 ? `a body that is not a Messages JSON answer (${type || 'no content-type'}, starts: ${shown})` : 'an empty body';
  throw answerError(endpoint, res.statusCode, `${endpoint} answered HTTP ${res.statusCode} with ${body}`);
}

export async function localComplete(deps: { loadConfig: () => Promise<Config>; prober: Prober; shim: Shim }, req: CompleteRequest): Promise<CompleteResult> {
  const config = await deps.loadConfig();
  const probes = await deps.prober.probeAll(config);
  const candidate = resolveModel(config, probes, { model: req.model, endpoint: req.endpoint }).candidates[0];
  if (candidate === undefined) throw new LocalAgentsError('internal', 'resolution returned no candidate');
  const route = await deps.shim.open({
    jobId: 'local_complete',
    endpoint: candidate.endpoint,
    servedModel: candidate.model.id,
    context: candidate.context,
    log: nullRequestLog,
  });
  const maxTokens = Math.min(req.maxTokens ?? DEFAULT_COMPLETE_MAX_TOKENS, candidate.context ?? Number.POSITIVE_INFINITY);
  try {
    const body = {
      model: candidate.model.id,
      max_tokens: maxTokens,
      messages: [{ role: 'user', content: req.prompt }],
      ...(req.system !== undefined ? { system: req.system } : {}),
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      stream: false,
    };
    const res = await request(`${route.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
    });
    const answer = await readAnswer(res, candidate.endpoint.name);
    if (res.statusCode >= 400) {
      throw new LocalAgentsError('backend_error', `${candidate.endpoint.name} answered HTTP ${res.statusCode}: ${answer.error?.message ?? 'no message'}`, {
        details: { endpoint: candidate.endpoint.name, status: res.statusCode },
      });
    }
    const text = (answer.content ?? []).filter((b) => b.type === 'text').map((b) => b.text ?? '').join('');
    return { text, stop_reason: answer.stop_reason ?? null, usage: answer.usage ?? {}, model: candidate.model.id, endpoint: candidate.endpoint.name, max_tokens: maxTokens };
  } finally {
    route.close();
  }
}
