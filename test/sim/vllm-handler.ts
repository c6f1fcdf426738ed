/**
 * vLLM HTTP surface: /health (empty 200), /v1/models, /metrics, and the
 * Anthropic routes with vLLM's checks (Bearer-only auth on /v1*, validation,
 * served-model name, prompt + max_tokens ≤ max_model_len as HTTP 500) and its
 * scheduling (stream headers go out at once; requests wait for a running slot).
 */
import { sendJson, sendText, sleep, untilAborted, writeEvents, writeSseHeaders } from './http-io.js';
import { randomAlnum, vllmMessageId, vllmToolId } from './ids.js';
import { isRecord, num, type JsonRecord } from './json.js';
import { renderLenient, tokenCount } from './prompt-text.js';
import { renderQwen, TemplateError } from './qwen-template.js';
import { parseRequest, planOutput, resolveTurn, thinkingEnabled } from './script.js';
import type { Exchange, SimState } from './sim-state.js';
import type { Turn } from './types.js';
import { convertAnthropicVllm, toolParserRefusal, validateVllm, validationErrorBody } from './vllm-convert.js';
import { VllmEngine } from './vllm-engine.js';
import { vllmError, vllmMessageBody, vllmStreamError, vllmStreamEvents, type VllmUsage } from './vllm-stream.js';

const CREATED = Math.floor(Date.now() / 1000);

export class VllmHandler {
  readonly engine: VllmEngine;

  constructor(private readonly state: SimState) {
    this.engine = new VllmEngine(state.opts.slots, state.opts.context);
  }

  async handle(ex: Exchange): Promise<void> {
    const { method, path } = ex.rec;
    const o = this.state.opts;
    if (/^\/(v1|v2|inference)(\/|$)/.test(path) && o.apiKey !== undefined && ex.rec.headers['authorization'] !== `Bearer ${o.apiKey}`) {
      return sendJson(ex.res, 401, { error: 'Unauthorized' });
    }
    const route = `${method} ${path}`;
    switch (route) {
      case 'GET /health':
        return sendText(ex.res, 200, '');
      case 'GET /version':
        return sendJson(ex.res, 200, { version: '0.21.0' });
      case 'GET /v1/models':
        return sendJson(ex.res, 200, this.modelsBody());
      case 'GET /metrics':
        return sendText(ex.res, 200, this.engine.metricsText(o.modelId), { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' });
      case 'POST /v1/messages':
        return this.messages(ex, false);
      case 'POST /v1/messages/count_tokens':
        if (!o.countTokens) return sendJson(ex.res, 404, { detail: 'Not Found' });
        return this.messages(ex, true);
      default:
        if (['/health', '/version', '/v1/models', '/metrics', '/v1/messages', '/v1/messages/count_tokens'].includes(path)) {
          return sendJson(ex.res, 405, { detail: 'Method Not Allowed' });
        }
        return sendJson(ex.res, 404, { detail: 'Not Found' });
    }
  }

  private modelsBody(): unknown {
    const o = this.state.opts;
    return {
      object: 'list',
      data: [
        {
          id: o.modelId,
          object: 'model',
          created: CREATED,
          owned_by: 'vllm',
          root: o.modelFile,
          parent: null,
          max_model_len: o.context,
          permission: [
            {
              id: `modelperm-${randomAlnum()}`,
              object: 'model_permission',
              created: CREATED,
              allow_create_engine: false,
              allow_sampling: true,
              allow_logprobs: true,
              allow_search_indices: false,
              allow_view: true,
              allow_fine_tuning: false,
              organization: '*',
              group: null,
              is_blocking: false,
            },
          ],
        },
      ],
    };
  }

  private async messages(ex: Exchange, countOnly: boolean): Promise<void> {
    const o = this.state.opts;
    if (ex.rec.json === undefined) {
      const msg = "1 validation error:\n  {'type': 'json_invalid', 'loc': ('body', 0), 'msg': 'JSON decode error'}";
      return sendJson(ex.res, 400, { error: { message: msg, type: 'Bad Request', param: null, code: 400 } });
    }
    const issues = validateVllm(ex.rec.json, !countOnly);
    const body: JsonRecord = isRecord(ex.rec.json) ? ex.rec.json : {};
    if (issues.length > 0) return sendJson(ex.res, 400, validationErrorBody(issues));
    const model = String(body['model']);
    if (model !== o.modelId) return sendJson(ex.res, 404, vllmError('NotFoundError', `The model \`${model}\` does not exist.`));
    const noParser = o.vllmToolParser ? undefined : toolParserRefusal(body);
    if (noParser !== undefined) return sendJson(ex.res, 400, vllmError('BadRequestError', noParser));
    const converted = convertAnthropicVllm(body, o.vllmInlineSystem);
    let prompt: string;
    try {
      prompt = o.strictQwen ? renderQwen(converted.messages, converted.tools, body['chat_template_kwargs']) : renderLenient(converted.messages, converted.tools);
    } catch (e) {
      if (e instanceof TemplateError) return sendJson(ex.res, 500, vllmError('internal_error', e.reason));
      throw e;
    }
    const promptTokens = tokenCount(prompt);
    ex.rec.promptTokens = promptTokens;
    if (countOnly) return sendJson(ex.res, 200, { input_tokens: promptTokens, context_management: { original_input_tokens: promptTokens } });

    const maxTokens = num(body['max_tokens']) ?? 0;
    const overflow = overflowMessage(o.context, maxTokens, promptTokens);
    if (overflow !== undefined) return sendJson(ex.res, 500, vllmError('internal_error', overflow));
    const parsed = parseRequest(body, ex.rec.headers);
    const turn = await resolveTurn(this.state.script, parsed, { flavor: 'vllm', requestIndex: this.state.nextGenerationIndex(), promptTokens });
    if (turn.error !== undefined) return sendJson(ex.res, turn.error.status, turn.error.body, turn.error.headers);
    if (parsed.stream && turn.hangBeforeHeaders !== true) writeSseHeaders(ex.res, 'text/event-stream; charset=utf-8');

    this.state.stats.queued++;
    const admitted = await this.engine.acquire(ex.signal);
    this.state.stats.queued--;
    if (!admitted) return;
    this.state.enterFlight();
    let outcome: 'completed' | 'aborted' = 'aborted';
    try {
      outcome = await this.generate(ex, { body, prompt, promptTokens, maxTokens, stream: parsed.stream, turn });
    } finally {
      this.engine.release();
      this.state.leaveFlight(outcome);
    }
  }

  private async generate(
    ex: Exchange,
    g: { body: JsonRecord; prompt: string; promptTokens: number; maxTokens: number; stream: boolean; turn: Turn },
  ): Promise<'completed' | 'aborted'> {
    const o = this.state.opts;
    const { turn } = g;
    if (turn.hangBeforeHeaders === true || turn.hangAfterHeaders === true) {
      if (turn.hangAfterHeaders === true && !g.stream) ex.res.writeHead(200, { 'Content-Type': 'application/json' }).flushHeaders();
      await untilAborted(ex.signal);
      this.engine.recordFinish(0, 0, 'abort');
      return 'aborted';
    }
    const cached = this.engine.lookup(g.prompt, g.promptTokens);
    ex.rec.cachedTokens = cached;
    const prefillMs = o.firstTokenDelayMs + (turn.delayMs ?? 0) + (g.promptTokens - cached) * o.prefillMsPerToken;
    await sleep(prefillMs, ex.signal);
    if (ex.signal.aborted) return 'aborted';
    this.engine.recordPrefill(g.prompt, g.promptTokens, cached);
    const stop = Array.isArray(g.body['stop_sequences']) ? g.body['stop_sequences'].filter((s): s is string => typeof s === 'string') : [];
    const plan = planOutput(turn, { budget: g.maxTokens, stop, thinking: thinkingEnabled(g.body['chat_template_kwargs']) });
    ex.rec.outputTokens = plan.outputTokens;
    const usage: VllmUsage = {
      input_tokens: turn.usage?.input_tokens ?? (o.promptTokensDetails ? g.promptTokens - cached : g.promptTokens),
      output_tokens: turn.usage?.output_tokens ?? plan.outputTokens,
      ...(o.promptTokensDetails ? { cache_creation_input_tokens: 0, cache_read_input_tokens: turn.usage?.cache_read_input_tokens ?? cached } : {}),
    };
    const ids = { messageId: vllmMessageId(), toolIds: plan.tools.map(() => vllmToolId()), model: o.modelId };
    const reason = plan.stopReason === 'max_tokens' ? 'length' : 'stop';
    let done = false;
    if (g.stream) {
      const events = vllmStreamEvents(plan, ids, usage);
      const err = turn.streamError === undefined ? undefined : { event: vllmStreamError(turn.streamError.message), afterEvents: turn.streamError.afterEvents };
      done = (await writeEvents(ex.res, events, turn.tokenDelayMs ?? o.tokenDelayMs, { cutAfterEvents: turn.cutAfterEvents, error: err }, ex.signal)) === 'done';
    } else {
      await sleep(plan.outputTokens * (turn.tokenDelayMs ?? o.tokenDelayMs), ex.signal);
      if (turn.cutAfterEvents !== undefined) ex.res.socket?.destroy();
      else if (turn.streamError !== undefined) sendJson(ex.res, 500, vllmError('internal_error', turn.streamError.message));
      else if (!ex.signal.aborted) {
        sendJson(ex.res, 200, vllmMessageBody(plan, ids, usage));
        done = true;
      }
    }
    this.engine.recordFinish(g.promptTokens, plan.outputTokens, done ? reason : 'abort');
    return done ? 'completed' : 'aborted';
  }
}

/** vllm/renderers/params.py checks, as raised (→ 500 internal_error on /v1/messages). */
export function overflowMessage(maxModelLen: number, maxTokens: number, promptTokens: number): string | undefined {
  if (maxTokens > maxModelLen) {
    return `max_completion_tokens=${maxTokens} cannot be greater than max_model_len=max_total_tokens=${maxModelLen}. Please request fewer output tokens.`;
  }
  if (promptTokens + maxTokens <= maxModelLen) return undefined;
  // The prompt is tokenised with max_length = max_model_len - max_tokens + 1, hence "at least".
  const seen = maxModelLen - maxTokens + 1;
  return (
    `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${maxTokens} output tokens ` +
    `and your prompt contains at least ${seen} input tokens, for a total of at least ${seen + maxTokens} tokens. ` +
    'Please reduce the length of the input prompt or the number of requested output tokens.'
  );
}
