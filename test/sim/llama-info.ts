/**
 * Bodies of llama.cpp's informational endpoints (/props, /v1/models, /slots,
 * router-mode listings), shaped like the captured fixtures.
 */
import { randomAlnum } from './ids.js';
import { promptCounters, type SlotPool, type SlotState } from './llama-slots.js';
import { qwenTemplateSource } from './qwen-template.js';
import type { ResolvedOptions } from './sim-state.js';

const CREATED = Math.floor(Date.now() / 1000);

/** Server defaults as `task_params::to_json(true)` prints them (from props fixtures). */
export function defaultParams(): Record<string, unknown> {
  return {
    seed: 4294967295,
    temperature: 0.800000011920929,
    dynatemp_range: 0,
    dynatemp_exponent: 1,
    top_k: 40,
    top_p: 0.949999988079071,
    min_p: 0.05000000074505806,
    top_n_sigma: -1,
    xtc_probability: 0,
    xtc_threshold: 0.10000000149011612,
    typical_p: 1,
    repeat_last_n: 64,
    repeat_penalty: 1,
    presence_penalty: 0,
    frequency_penalty: 0,
    dry_multiplier: 0,
    dry_base: 1.75,
    dry_allowed_length: 2,
    dry_penalty_last_n: 64,
    mirostat: 0,
    mirostat_tau: 5,
    mirostat_eta: 0.10000000149011612,
    adaptive_target: -1,
    adaptive_decay: 0.8999999761581421,
    max_tokens: -1,
    n_predict: -1,
    n_keep: 0,
    n_discard: 0,
    ignore_eos: false,
    stream: false,
    n_probs: 0,
    min_keep: 0,
    chat_format: 'Content-only',
    reasoning_format: 'none',
    reasoning_in_content: false,
    generation_prompt: '',
    samplers: ['penalties', 'dry', 'top_n_sigma', 'top_k', 'typ_p', 'top_p', 'min_p', 'xtc', 'temperature'],
    'speculative.types': 'none',
    timings_per_token: false,
    post_sampling_probs: false,
    backend_sampling: false,
    lora: [],
  };
}

export function propsBody(o: ResolvedOptions): Record<string, unknown> {
  return {
    default_generation_settings: { params: defaultParams(), n_ctx: o.context },
    total_slots: o.slots,
    model_alias: o.modelId,
    model_ftype: 'Q4_K - Medium',
    model_path: o.modelFile,
    // b9553 reports {vision, audio} (backends.md §4.1); the August build and the pinned source add video.
    modalities: o.llamaBuild === 'b9553' ? { vision: o.vision, audio: false } : { vision: o.vision, video: false, audio: false },
    media_marker: `<__media_${randomAlnum()}__>`,
    endpoint_slots: o.slotsEndpoint,
    endpoint_props: false,
    endpoint_metrics: o.metrics,
    ui: true,
    ui_settings: {},
    chat_template: qwenTemplateSource(),
    chat_template_caps: {
      supports_object_arguments: true,
      supports_parallel_tool_calls: true,
      supports_preserve_reasoning: false,
      supports_reasoning_effort: false,
      supports_string_content: true,
      supports_system_role: true,
      supports_tool_calls: true,
      supports_tools: true,
      supports_typed_content: false,
    },
    bos_token: '<s>',
    eos_token: '</s>',
    build_info: o.buildInfo,
    is_sleeping: false,
    cors_proxy_enabled: false,
  };
}

/** Router-mode /props without ?model= (server-models.cpp). */
export function routerPropsBody(o: ResolvedOptions, maxInstances: number): Record<string, unknown> {
  return {
    role: 'router',
    max_instances: maxInstances,
    models_autoload: true,
    model_alias: 'llama-server',
    model_path: 'none',
    default_generation_settings: { params: {}, n_ctx: 0 },
    ui_settings: {},
    webui_settings: {},
    build_info: o.buildInfo,
    cors_proxy_enabled: false,
  };
}

export function modelMeta(o: ResolvedOptions): Record<string, unknown> {
  return {
    // The August 2026 build prints vocab_type as a boolean (captured); b9553 and sep2026 as a number.
    vocab_type: o.llamaBuild === 'aug2026' ? true : 2,
    n_vocab: 248320,
    n_ctx: o.context,
    n_ctx_train: o.nCtxTrain,
    n_embd: 5120,
    n_params: 26_900_000_000,
    size: 17_100_000_000,
    ftype: 'Q4_K - Medium',
  };
}

export function modelsBody(o: ResolvedOptions): Record<string, unknown> {
  const id = o.modelId;
  return {
    models: [
      {
        name: id,
        model: id,
        modified_at: '',
        size: '',
        digest: '',
        type: 'model',
        description: '',
        tags: [''],
        capabilities: ['completion'],
        parameters: '',
        details: { parent_model: '', format: 'gguf', family: '', families: [''], parameter_size: '', quantization_level: '' },
      },
    ],
    object: 'list',
    data: [{ id, aliases: [id], tags: [], object: 'model', created: CREATED, owned_by: 'llamacpp', meta: modelMeta(o) }],
  };
}

/** Router /v1/models: one entry per model with its status; a loaded one carries its child's meta (n_ctx per slot). */
export function routerModelsBody(o: ResolvedOptions, models: readonly { id: string; status: Record<string, unknown>; context: number | undefined }[]): Record<string, unknown> {
  return {
    data: models.map((m) => ({
      id: m.id,
      aliases: [],
      tags: [],
      object: 'model',
      owned_by: 'llamacpp',
      created: CREATED,
      status: m.status,
      architecture: { input_modalities: o.vision ? ['text', 'image'] : ['text'], output_modalities: ['text'] },
      source: 'models_dir',
      can_remove: false,
      ...(m.context !== undefined ? { meta: { ...modelMeta(o), n_ctx: m.context } } : {}),
    })),
    object: 'list',
  };
}

function slotJson(s: SlotState, nCtx: number, now: number): Record<string, unknown> {
  const base: Record<string, unknown> = { id: s.id, n_ctx: nCtx, speculative: false, is_processing: s.busy };
  if (s.idTask === undefined) return base;
  const prompt = promptCounters(s, now);
  return {
    ...base,
    id_task: s.idTask,
    n_prompt_tokens: prompt.tokens,
    n_prompt_tokens_processed: prompt.processed,
    n_prompt_tokens_cache: s.nPromptCache,
    ...(s.busy ? { params: defaultParams() } : {}),
    next_token: [{ has_next_token: s.busy, has_new_line: false, n_remain: s.nRemain, n_decoded: s.nDecoded }],
  };
}

export function slotsBody(pool: SlotPool, nCtx: number, now = Date.now()): unknown[] {
  return pool.slots.map((s) => slotJson(s, nCtx, now));
}
